import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const appDir = fileURLToPath(new URL('..', import.meta.url));

/** Runs the CLI with tsx and resolves with its URL once it prints the ready line. */
async function startCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: appDir,
    env: { ...process.env, SIM_LOG: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return {
    url,
    child,
    /** SIGTERM, then the exit code. */
    async stop() {
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code as number;
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

describe('annotation-sim CLI', () => {
  it('prints a ready line, serves health and the seeded scenario, and stops on SIGTERM', async () => {
    const scenario = fileURLToPath(new URL('./fixtures/failing-receiver.yaml', import.meta.url));
    const cli = await startCli(['--port', '0', '--clock', 'manual', '--scenario', scenario]);
    const ready = cli.url;
    try {
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
      expect(await cli.stop()).toBe(0);
    } finally {
      cli.kill();
    }
  }, 30_000);

  it('embeds seed 2.4 task segments with SIM_TASK_SEGMENTS=true', async () => {
    const cli = await startCli(['--port', '0'], { SIM_TASK_SEGMENTS: 'true' });
    const ready = cli.url;
    try {
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
      expect(await cli.stop()).toBe(0);
    } finally {
      cli.kill();
    }
  }, 30_000);

  it('saves the world to --state-file on SIGTERM and continues from it on the next start', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'annotation-sim-state-')), 'world.json');
    const first = await startCli(['--port', '0', '--state-file', file]);
    try {
      const seeded = await fetch(`${first.url}/_sim/seed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ users: [{ username: 'kept', token: 'kept-token' }] }),
      });
      expect(seeded.status).toBe(201);
      expect(await first.stop()).toBe(0);
    } finally {
      first.kill();
    }
    const second = await startCli(['--port', '0', '--state-file', file]);
    try {
      const me = await fetch(`${second.url}/api/users/self`, {
        headers: { authorization: 'Token kept-token' },
      });
      expect(((await me.json()) as { username: string }).username).toBe('kept');
      expect(await second.stop()).toBe(0);
    } finally {
      second.kill();
    }
  }, 30_000);
});
