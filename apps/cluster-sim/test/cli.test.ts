import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { v1 as gapicV1 } from '@google-cloud/container';
import { credentials } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

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

/**
 * Starts the CLI and resolves with its ready line (or rejects with what it printed): from its sources, or
 * the bundled `main.js` of `bundle` (run from that folder).
 */
function start(args: string[], bundle?: string): Promise<{ line: string; url: string }> {
  const main = bundle ? [join(bundle, 'main.js')] : ['--import', 'tsx', 'src/main.ts'];
  child = spawn(process.execPath, [...main, ...args], {
    cwd: bundle ?? APP,
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

interface GrpcError {
  code: number;
  details: string;
  reason?: string;
  domain?: string;
  statusDetails?: object[];
}

describe('the bundled CLI, alone in a folder (what the Docker image holds)', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = mkdtempSync(join(tmpdir(), 'cluster-sim-bundle-'));
    // Bundled now, from these sources, as `pnpm build` bundles dist/main.js: no stale dist/ is tested.
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/support/cli-bundle.ts', bundle], {
      cwd: APP,
    });
  }, 60_000);
  afterAll(() => rmSync(bundle, { recursive: true, force: true }));

  it('names its gRPC endpoint in the ready line and answers @google-cloud/container there, errors with their details', async () => {
    const scenario = join(bundle, 'seed.yaml');
    writeFileSync(
      scenario,
      [
        'seed:',
        '  clusters:',
        '    - { projectId: p1, location: us-central1-a, name: c1, nodePools: [ { name: np1, initialNodeCount: 3 } ] }',
      ].join('\n'),
    );
    const { line, url } = await start(['--port', '0', '--clock', 'manual', '--scenario', scenario], bundle);
    // The same port as REST: "…, API docs …/openapi.json, gRPC 127.0.0.1:<port>, clock manual)".
    const endpoint = / gRPC (\S+), clock manual\)$/.exec(line)?.[1];
    expect(endpoint).toBe(url.replace('http://', ''));
    const [host, port] = (endpoint ?? '').split(':');
    const gke = new gapicV1.ClusterManagerClient({
      apiEndpoint: host,
      port: Number(port),
      sslCreds: credentials.createInsecure(),
    });
    const call = { otherArgs: { headers: { authorization: 'Bearer any-token' } }, retry: null };
    try {
      const [list] = await gke.listClusters({ parent: 'projects/p1/locations/-' }, call);
      expect(list.clusters?.map((c) => c.name)).toEqual(['c1']);
      const pool = 'projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1';
      expect((await gke.getNodePool({ name: pool }, call))[0]).toMatchObject({
        name: 'np1',
        initialNodeCount: 3,
      });
      const [op] = await gke.setNodePoolSize({ name: pool, nodeCount: 5 }, call);
      expect(op).toMatchObject({ operationType: 'SET_NODE_POOL_SIZE', status: 'PENDING' });
      const advance = await fetch(`${url}/_sim/clock/advance`, { method: 'POST', body: '{"by":"1h"}' });
      expect(advance.status).toBe(200);
      const opName = `projects/p1/locations/us-central1-a/operations/${op.name}`;
      expect((await gke.getOperation({ name: opName }, call))[0]).toMatchObject({ status: 'DONE' });
      expect((await gke.getNodePool({ name: pool }, call))[0]).toMatchObject({ initialNodeCount: 5 });
      // A stale etag: ABORTED with GKE's text and its RequestInfo, decoded from grpc-status-details-bin.
      const stale = (await gke
        .updateNodePool({ name: pool, nodeVersion: '-', etag: 'c3RhbGVldGFn' }, call)
        .catch((e: unknown) => e)) as GrpcError;
      expect(stale).toMatchObject({
        code: 10,
        details: 'Etag "c3RhbGVldGFn" does not match the current etag of node pool "np1".',
      });
      expect(stale.statusDetails).toEqual([{ requestId: expect.stringMatching(/^0x[0-9a-f]{16}$/) }]);
      // No token: UNAUTHENTICATED with its ErrorInfo (reason, domain).
      const anonymous = (await gke
        .getNodePool({ name: pool }, { retry: null })
        .catch((e: unknown) => e)) as GrpcError;
      expect(anonymous).toMatchObject({ code: 16, reason: 'CREDENTIALS_MISSING', domain: 'googleapis.com' });
      // Journaled under the operation name fault rules and REST calls use.
      const journal = await fetch(`${url}/_sim/journal?operation=nodePools.setSize`);
      const { entries } = (await journal.json()) as { entries: { status: number }[] };
      expect(entries.map((e) => e.status)).toEqual([200]);
    } finally {
      await gke.close();
    }
  }, 30_000);
});
