import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterStates } from '@sims/contracts';
import { verifyPacts } from '@sims/pact-verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSimProviders } from '../../src/verify/provider';

const APP = fileURLToPath(new URL('../../', import.meta.url));
const POOL_PATH = '/v1beta1/projects/sim-project/locations/us-central1-a/clusters/cluster-1/nodePools/pool-1';
const WORLD = [
  {
    name: clusterStates.cluster.template,
    params: {
      project: 'sim-project',
      location: 'us-central1-a',
      cluster: 'cluster-1',
      masterVersion: '1.30.5-gke.1014000',
      validNodeVersions: ['1.30.5-gke.1014000', '1.29.8-gke.1211000'],
    },
  },
  {
    name: clusterStates.nodePool.template,
    params: { nodePool: 'pool-1', cluster: 'cluster-1', version: '1.29.8-gke.1211000', etag: 'any' },
  },
];

/** A pact that is wrong on purpose: a pool version the state never set, and a state nobody documented. */
const WRONG_PACT = {
  consumer: { name: 'wrong-consumer' },
  provider: { name: 'cluster-sim' },
  interactions: [
    {
      type: 'Synchronous/HTTP',
      description: 'a read of pool-1 expecting a version it does not have',
      providerStates: WORLD,
      request: { method: 'GET', path: POOL_PATH, headers: { Authorization: ['Bearer ya29.token'] } },
      response: {
        status: 200,
        body: {
          content: { name: 'pool-1', version: '1.31.0-gke.1000000' },
          contentType: 'application/json',
          encoded: false,
        },
      },
    },
    {
      type: 'Synchronous/HTTP',
      description: 'a read of pool-1 in an undocumented world',
      providerStates: [...WORLD, { name: 'the pool is on fire', params: {} }],
      request: { method: 'GET', path: POOL_PATH, headers: { Authorization: ['Bearer ya29.token'] } },
      response: { status: 200 },
    },
  ],
  metadata: { pactSpecification: { version: '4.0' } },
};

describe('cluster-sim verification rejects a wrong pact', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wrong-pact-'));
    writeFileSync(join(dir, 'wrong-consumer-cluster-sim.json'), JSON.stringify(WRONG_PACT, null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the expected and actual pool version as a body mismatch, and an undocumented state as a failed state', async () => {
    const result = await verifyPacts({ providers: clusterSimProviders, pacts: [dir], log: () => {} });
    expect(result.ok).toBe(false);
    const [run] = result.results;
    const wrongVersion = run?.mismatches.find((m) => m.interaction.includes('expecting a version'));
    expect(wrongVersion?.details.join('\n')).toMatch(
      /BodyMismatch at \$\.version: Expected '1\.29\.8-gke\.1211000' .* to be equal to '1\.31\.0-gke\.1000000'/,
    );
    expect(run?.stateFailures).toEqual([
      expect.stringMatching(
        /^provider state "the pool is on fire" \{\} could not be set up: unknown provider state/,
      ),
    ]);
    expect(run?.mismatches.map((m) => m.interaction)).toEqual([
      expect.stringContaining('expecting a version it does not have'),
      expect.stringContaining('in an undocumented world'),
    ]);
  });

  it('exits 1 from the verify command and prints pact report and the mismatch', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/verify/main.ts', dir], {
      cwd: APP,
      encoding: 'utf8',
      env: { ...process.env, PACT_DO_NOT_TRACK: 'true', NO_COLOR: '1' },
      timeout: 50_000,
    });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toContain('Verifying a pact between');
    expect(run.stdout).toContain('pact-verify: cluster-sim: FAILED');
    expect(run.stdout).toMatch(/BodyMismatch at \$\.version/);
  });

  it('exits 2 with the usage when given no pacts', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/verify/main.ts'], {
      cwd: APP,
      encoding: 'utf8',
      env: { ...process.env, PACT_DO_NOT_TRACK: 'true' },
      timeout: 50_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('give pact files or folders, or a broker URL');
    expect(run.stderr).toContain('--consumer-version-selectors');
  });
});
