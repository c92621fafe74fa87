import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const APP = join(dirname(fileURLToPath(import.meta.url)), '..');

// Every simulator a test started; `node --import tsx` keeps each one a single process, so a kill
// reaches the simulator itself (the tsx CLI would run it as a grandchild that outlives the kill).
const children = new Set<ChildProcess>();
let child: ChildProcess | undefined;
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
  child = undefined;
});

/** Starts the CLI and resolves with its ready line (or rejects with what it printed). */
function start(args: string[]): Promise<{ line: string; url: string }> {
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: APP,
    env: { ...process.env, SIM_PORT: undefined },
  });
  children.add(child);
  const proc = child;
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes(' ready at '));
      const url = line ? /ready at (http:\/\/\S+)/.exec(line)?.[1] : undefined;
      if (line && url) resolve({ line, url });
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    proc.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}${err}`)));
  });
}

describe('cluster-sim CLI', () => {
  it('prints a ready line with the URL, serves health, loads a scenario and stops on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cluster-sim-cli-'));
    const scenario = join(dir, 'seed.yaml');
    writeFileSync(
      scenario,
      [
        'seed:',
        '  clusters:',
        '    - { projectId: p1, location: us-central1-a, name: c1, nodePools: [ { name: np1 } ] }',
        'faults:',
        '  - { id: unavailable, match: { operation: clusters.get }, trigger: { times: 1 }, effect: { error: { status: UNAVAILABLE } } }',
      ].join('\n'),
    );
    const { line, url } = await start([
      '--port',
      '0',
      '--clock',
      'manual',
      '--seed',
      '3',
      '--scenario',
      scenario,
    ]);
    expect(line).toMatch(/^cluster-sim 0\.1\.0 ready at http:\/\/127\.0\.0\.1:\d+ /);
    expect(await (await fetch(`${url}/_sim/health`)).json()).toMatchObject({
      status: 'ok',
      simulator: 'cluster-sim',
    });
    // The ready line names the dashboard, which the process serves with its own assets.
    expect(line).toContain(`(dashboard ${url}/_sim/ui/, `);
    const page = await fetch(`${url}/_sim/ui/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>cluster-sim dashboard</title>');
    const script = await fetch(`${url}/_sim/ui/app.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('Node pools');
    const headers = { authorization: 'Bearer t' };
    const cluster = `${url}/v1beta1/projects/p1/locations/us-central1-a/clusters/c1`;
    expect((await fetch(cluster, { headers })).status).toBe(503);
    expect((await fetch(cluster, { headers })).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 20_000);

  it('exits with 2 and a usage message on a bad flag', async () => {
    await expect(start(['--clock', 'sundial'])).rejects.toThrow(
      /exited with 2: .*invalid --clock "sundial"/s,
    );
  }, 20_000);

  it('saves the world to --state-file on SIGTERM and loads it on the next start', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cluster-sim-state-')), 'world.json');
    const first = await start(['--port', '0', '--state-file', file]);
    const seed = await fetch(`${first.url}/_sim/seed`, {
      method: 'POST',
      body: JSON.stringify({ clusters: [{ projectId: 'p1', location: 'us-central1', name: 'kept' }] }),
    });
    expect(seed.status).toBe(201);
    const exited = new Promise((resolve) => child?.on('exit', resolve));
    child?.kill('SIGTERM');
    await exited;
    const second = await start(['--port', '0', '--state-file', file]);
    const res = await fetch(`${second.url}/v1beta1/projects/p1/locations/us-central1/clusters/kept`, {
      headers: { authorization: 'Bearer t' },
    });
    expect(res.status).toBe(200);
  }, 20_000);

  it('loads the example scenario shipped with the app', async () => {
    const { url } = await start([
      '--port',
      '0',
      '--scenario',
      join(APP, 'scenarios', 'abort-first-update.yaml'),
    ]);
    const faults = (await (await fetch(`${url}/_sim/faults`)).json()) as { faults: { id: string }[] };
    expect(faults.faults.map((f) => f.id)).toEqual(['concurrent-writer', 'fail-midway']);
  }, 20_000);
});
