import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v1 as gapicV1 } from '@google-cloud/container';
import { credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedClusterSimContainer } from '../../src/index';
import { clusterSim, docker, network, readLogsUntil, skipReason } from './support/engine';

const TOKEN = 'tc-admin-token';

// A scenario file on disk (copied into the container) ...
const FILE_SCENARIO = `# the first node pool update is ABORTED, then updates succeed
name: abort-first-update
faults:
  - id: abort-first-update
    match: { operation: nodePools.update }
    trigger: { times: 1 }
    effect: { error: { status: ABORTED } }
`;
// ... and one given as text.
const TEXT_SCENARIO = `name: list-unavailable-once
faults:
  - id: list-unavailable-once
    match: { operation: nodePools.list }
    trigger: { times: 1 }
    effect: { error: { status: UNAVAILABLE } }
`;

const POOLS = '/v1beta1/projects/tc/locations/europe-west1/clusters/c1/nodePools';
const bearer = { authorization: 'Bearer ya29.test-token' };

describe.skipIf(skipReason)('ClusterSimContainer', () => {
  let sim: StartedClusterSimContainer;
  let dir: string;
  let startMs: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sims-tc-'));
    const file = join(dir, 'abort-first-update.yaml');
    writeFileSync(file, FILE_SCENARIO);
    const t0 = performance.now();
    sim = await clusterSim()
      .withScenario(file)
      .withScenario(TEXT_SCENARIO)
      .withSeed('tc-seed')
      .withClock('manual')
      .withAdminToken(TOKEN)
      .start();
    startMs = performance.now() - t0;
    console.log(
      `cluster-sim container: start() to healthy in ${Math.round(startMs)} ms at ${sim.getBaseUrl()}`,
    );
  });

  afterAll(async () => {
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`starts with ${network} networking and answers GET /_sim/health with 200`, async () => {
    expect(sim.usesHostNetwork()).toBe(network === 'host');
    if (network === 'host') expect(sim.getBaseUrl()).toBe(`http://127.0.0.1:${sim.getPort()}`);
    const response = await fetch(`${sim.getBaseUrl()}/_sim/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', simulator: 'cluster-sim' });
    expect(await sim.client().health()).toMatchObject({ status: 'ok', simulator: 'cluster-sim' });
  });

  it('serves its dashboard from the image: the page and its own script, nothing from elsewhere', async () => {
    const page = await fetch(`${sim.getBaseUrl()}/_sim/ui/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>cluster-sim dashboard</title>');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const script = await fetch(`${sim.getBaseUrl()}/_sim/ui/app.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('Node pools');
  });

  it('logs the ready line', async () => {
    const text = await readLogsUntil(await sim.logs(), / ready at http:\/\//);
    expect(text).toMatch(
      new RegExp(`cluster-sim \\S+ ready at http://127\\.0\\.0\\.1:${sim.getPort()}|ready at`),
    );
    expect(text).toContain('clock manual');
    // gRPC on the same port: the container's own address, which is the host's with host networking.
    expect(text).toMatch(/, gRPC 127\.0\.0\.1:\d+, clock manual\)/);
    if (network === 'host') expect(text).toContain(`, gRPC ${sim.getGrpcEndpoint()}, `);
  });

  it('loads the scenarios given as a file and as text; their fault rules fire', async () => {
    const client = sim.client();
    const ids = (await client.faults.list()).map((rule) => rule.id);
    expect(ids).toEqual(expect.arrayContaining(['abort-first-update', 'list-unavailable-once']));
    const first = await fetch(`${sim.getBaseUrl()}${POOLS}`, { headers: bearer });
    await first.arrayBuffer();
    expect(first.status).toBe(503);
    expect((await client.faults.get('list-unavailable-once')).fired).toBe(1);
    const entry = await client.journal.waitFor({ operation: 'nodePools.list' });
    expect(entry.faults).toEqual(['list-unavailable-once']);
  });

  it('runs the manual clock: world time moves only when advanced', async () => {
    const clock = sim.client().clock;
    const before = await clock.get();
    expect(before.mode).toBe('manual');
    await new Promise((r) => setTimeout(r, 50));
    expect((await clock.get()).now).toBe(before.now);
    const after = await clock.advance('1h');
    expect(Date.parse(after.now) - Date.parse(before.now)).toBe(3_600_000);
  });

  it('protects the control plane with the admin token, which client() sends', async () => {
    const bare = await fetch(`${sim.getBaseUrl()}/_sim/faults`);
    await bare.arrayBuffer();
    expect(bare.status).toBe(401);
    expect(sim.getAdminToken()).toBe(TOKEN);
    await expect(sim.client().faults.list()).resolves.toBeInstanceOf(Array);
    // The cluster-specific part of the client reaches its own routes.
    await expect(sim.client().settings.get()).resolves.toBeTypeOf('object');
    // A namespace of its own, created on first use.
    const other = sim.client({ namespace: 'tc-other' });
    expect(await other.faults.list()).toEqual([]);
  });

  it('serves gRPC from the image at getGrpcEndpoint(): @google-cloud/container lists, gets, and gets the ABORTED of a fault rule, journaled', async () => {
    expect(sim.getGrpcEndpoint()).toBe(sim.getBaseUrl().replace('http://', ''));
    const client = sim.client();
    await client.seed({
      clusters: [{ projectId: 'tc', location: 'europe-west1', name: 'grpc', nodePools: [{ name: 'np1' }] }],
    });
    const [host, port] = sim.getGrpcEndpoint().split(':');
    const gke = new gapicV1.ClusterManagerClient({
      apiEndpoint: host,
      port: Number(port),
      sslCreds: credentials.createInsecure(),
    });
    const call = { otherArgs: { headers: bearer }, retry: null };
    const pool = 'projects/tc/locations/europe-west1/clusters/grpc/nodePools/np1';
    try {
      const [list] = await gke.listClusters({ parent: 'projects/tc/locations/-' }, call);
      expect(list.clusters?.map((c) => c.name)).toContain('grpc');
      const [got] = await gke.getNodePool({ name: pool }, call);
      expect(got).toMatchObject({ name: 'np1', status: 'RUNNING' });
      // The scenario file's rule: the first nodePools.update is ABORTED, over gRPC as over REST.
      const aborted = (await gke
        .updateNodePool({ name: pool, nodeVersion: '-' }, call)
        .catch((e: unknown) => e)) as { code: number; statusDetails?: object[] };
      expect(aborted.code).toBe(10);
      expect(aborted.statusDetails).toEqual([{ requestId: expect.stringMatching(/^0x[0-9a-f]{16}$/) }]);
      const entry = await client.journal.waitFor({ operation: 'nodePools.update' });
      expect(entry).toMatchObject({ status: 409, faults: ['abort-first-update'] });
      // No token: UNAUTHENTICATED with GKE's ErrorInfo reason, decoded from grpc-status-details-bin.
      const anonymous = (await gke.getNodePool({ name: pool }, { retry: null }).catch((e: unknown) => e)) as {
        code: number;
        reason?: string;
        domain?: string;
      };
      expect(anonymous).toMatchObject({ code: 16, reason: 'CREDENTIALS_MISSING', domain: 'googleapis.com' });
    } finally {
      await gke.close();
    }
  });

  it('derives ids from the seed: same seed, same request ids; another seed, others', async () => {
    const [same, other] = await Promise.all([
      clusterSim().withSeed('tc-seed').start(),
      clusterSim().withSeed('another-seed').start(),
    ]);
    try {
      const firstRequestId = async (s: StartedClusterSimContainer, namespace: string) => {
        const response = await fetch(`${s.getBaseUrl()}${POOLS}`, {
          headers: { ...bearer, 'x-sim-namespace': namespace },
        });
        await response.arrayBuffer();
        const [entry] = await s.client({ namespace }).journal.list({ operation: 'nodePools.list' });
        return entry?.requestId;
      };
      const mine = await firstRequestId(sim, 'seed-check');
      expect(mine).toMatch(/^[0-9a-f-]{36}$/);
      expect(await firstRequestId(same, 'seed-check')).toBe(mine);
      expect(await firstRequestId(other, 'seed-check')).not.toBe(mine);
    } finally {
      await Promise.all([same.stop(), other.stop()]);
    }
  });
});

describe.skipIf(skipReason)('ClusterSimContainer lifecycle', () => {
  it('stops on SIGTERM: the simulator exits 0 at once', async () => {
    const sim = await clusterSim().withClock('real', 10).start();
    expect((await sim.client().clock.get()).speed).toBe(10);
    const id = sim.getId();
    const t0 = performance.now();
    await sim.stop({ remove: false });
    const stopMs = performance.now() - t0;
    try {
      const [exitCode, oomKilled] = (
        await docker('inspect', '--format', '{{.State.ExitCode}} {{.State.OOMKilled}}', id)
      ).split(' ');
      expect(exitCode).toBe('0');
      expect(oomKilled).toBe('false');
      expect(stopMs).toBeLessThan(3_000);
    } finally {
      await docker('rm', '-f', id);
    }
  });
});
