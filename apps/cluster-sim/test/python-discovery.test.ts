import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useSocketSim } from './support/client-sim';
import { aCluster, aNodePool } from './support/fixtures';

/**
 * Python's discovery client, a real one (googleapiclient 1.7.12, Debian's `python3-googleapi`), built
 * against the simulator with nothing but a `discoveryServiceUrl`: the container API's documents (v1beta1
 * and v1, the service form `/$discovery/rest?version=…`) and Compute's (the directory form), through
 * test/python/discovery_clients.py, which prints what it read. googleapiclient checks the documents as it
 * builds (`rootUrl`, `servicePath`, each parameter's `location`, `required` and `pattern`), so a document
 * it disagrees with fails here.
 */

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'python', 'discovery_clients.py');

const simOf = useSocketSim(37);

/** googleapiclient and httplib2 are importable, or a failure that says which Debian packages to install. */
async function requirePythonClient(): Promise<void> {
  try {
    await run(PYTHON, ['-c', 'import googleapiclient.discovery, httplib2']);
  } catch (err) {
    throw new Error(
      `${PYTHON} cannot import googleapiclient: install Debian's python3-googleapi and python3-httplib2 ` +
        `(apt-get install -y python3-googleapi python3-httplib2). ${(err as Error).message}`,
    );
  }
}

interface ContainerRead {
  clusters: string[];
  pool: { name: string; status: string; initialNodeCount: number };
  setSize: { operationType: string; status: string; polls: number };
  update: { operationType: string; status: string; polls: number };
}
interface TerraformRead {
  node_count: number;
  total: number;
  managed_instance_group_urls: string[];
}
interface Read {
  v1beta1: ContainerRead;
  v1: ContainerRead;
  compute: {
    zonal: TerraformRead;
    regional: TerraformRead;
    zoneManagers: string[];
    groupInstances: string[];
  };
}

describe("Python's discovery client (googleapiclient)", () => {
  it('builds container v1beta1 and v1 and Compute v1 from the simulator and drives them', async () => {
    await requirePythonClient();
    const sim = simOf();
    const regional = aCluster('r1')
      .inLocation('us-central1')
      .withPools(aNodePool('np1').withNodeCount(2))
      .build();
    regional.locations = ['us-central1-a', 'us-central1-b', 'us-central1-c'];
    const seeded = await sim.app.request('/_sim/seed', {
      method: 'POST',
      body: JSON.stringify({
        clusters: [aCluster().withPools(aNodePool('np1'), aNodePool('np2')).build(), regional],
      }),
    });
    expect(seeded.status).toBe(201);

    const { stdout } = await run(PYTHON, [SCRIPT, sim.url], {
      timeout: 60_000,
      // No proxy and no metadata server: the client talks to 127.0.0.1 only.
      env: {
        ...process.env,
        http_proxy: '',
        https_proxy: '',
        HTTP_PROXY: '',
        HTTPS_PROXY: '',
        no_proxy: '*',
      },
    });
    const read = JSON.parse(stdout) as Read;

    for (const [version, count] of [
      ['v1beta1', 3],
      ['v1', 4],
    ] as const) {
      expect(read[version], version).toMatchObject({
        clusters: ['c1'],
        pool: { name: 'np1', status: 'RUNNING', initialNodeCount: count + 1 },
        setSize: { operationType: 'SET_NODE_POOL_SIZE', status: 'DONE' },
        update: { operationType: 'UPGRADE_NODES', status: 'DONE' },
      });
      expect(read[version].setSize.polls, version).toBeGreaterThan(0);
    }
    // Two setSize calls (3 → 4 → 5) landed; Terraform's node_count follows them.
    expect(read.compute.zonal).toMatchObject({ node_count: 5, total: 5 });
    expect(read.compute.zonal.managed_instance_group_urls).toHaveLength(1);
    expect(read.compute.regional).toMatchObject({ node_count: 2, total: 6 });
    expect(read.compute.regional.managed_instance_group_urls.map((u) => u.split('/')[8])).toEqual([
      'us-central1-a',
      'us-central1-b',
      'us-central1-c',
    ]);
    // np1 and np2 of c1 and the regional pool's zone-a group, one page each.
    expect(read.compute.zoneManagers).toHaveLength(3);
    expect(read.compute.groupInstances).toEqual(['RUNNING', 'RUNNING', 'RUNNING', 'RUNNING', 'RUNNING']);

    const journal = (await (await sim.app.request('/_sim/journal')).json()) as {
      entries?: { operation?: string }[];
    };
    const operations = new Set((journal.entries ?? []).map((e) => e.operation));
    expect(operations).toContain('compute.instanceGroupManagers.get');
    expect(operations).toContain('compute.instanceGroups.listInstances');
  });
});
