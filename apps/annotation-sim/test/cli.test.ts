import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const appDir = fileURLToPath(new URL('..', import.meta.url));

describe('annotation-sim CLI', () => {
  it('prints a ready line, serves health and the seeded scenario, and stops on SIGTERM', async () => {
    const scenario = fileURLToPath(new URL('./fixtures/failing-receiver.yaml', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', '--port', '0', '--clock', 'manual', '--scenario', scenario],
      {
        cwd: appDir,
        env: { ...process.env, SIM_LOG: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let out = '';
      const ready = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) resolve(m[1] as string);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const health = await fetch(`${ready}/_sim/health`);
      expect(await health.json()).toMatchObject({ status: 'ok', simulator: 'annotation-sim' });
      const project = await fetch(`${ready}/api/projects/1`, {
        headers: { authorization: 'Token scenario-token' },
      });
      expect(await project.json()).toMatchObject({ id: 1, name: 'demo' });
      const faults = (await (await fetch(`${ready}/_sim/faults`)).json()) as {
        faults: { effect: unknown }[];
      };
      expect(faults.faults[0]?.effect).toEqual({ deliveryRefused: true });
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);

  it('embeds seed 2.4 task segments with SIM_TASK_SEGMENTS=true', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', '0'], {
      cwd: appDir,
      env: { ...process.env, SIM_LOG: 'info', SIM_TASK_SEGMENTS: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const ready = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) resolve(m[1] as string);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const seeded = await fetch(`${ready}/_sim/seed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          users: [{ username: 'u', token: 'u-token' }],
          tasks: [{ name: 't', owner: 'u', size: 3, segment_size: 2 }],
        }),
      });
      expect(seeded.status).toBe(201);
      const task = (await (
        await fetch(`${ready}/api/tasks/1`, { headers: { authorization: 'Token u-token' } })
      ).json()) as { segments?: { start_frame: number; stop_frame: number; jobs: unknown[] }[] };
      expect(task.segments?.map((s) => [s.start_frame, s.stop_frame, s.jobs.length])).toEqual([
        [0, 1, 1],
        [2, 2, 1],
      ]);
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
