import { compute } from '@googleapis/compute';
import { container } from '@googleapis/container';
import { describe, expect, it } from 'vitest';
import { fakeAuth, useSocketSim } from './support/client-sim';
import { aCluster, aNodePool, V } from './support/fixtures';

/**
 * Terraform's node pool read, done as the Google provider does it, through Google's Node REST clients
 * over a socket: the pool from the container API, then for each of its `instanceGroupUrls` the Compute
 * instance group manager, by `instanceGroupManagers.get` (provider ≤ 7.16: a 404 skips the URL) or by
 * the zone's `instanceGroupManagers.list`, every page, matched on `selfLink` (≥ 7.17: a 404 on the list
 * removes the pool from the state); `node_count` is the managers' `targetSize` summed and divided by
 * their number, `managed_instance_group_urls` their `instanceGroup`s.
 */

const simOf = useSocketSim(11, { seedEach: true });
const LOC = 'projects/p1/locations/us-central1-a/clusters/c1';
const REGIONAL = 'projects/p1/locations/us-central1/clusters/r1';
const IGM_URL = /projects\/([^/]+)\/zones\/([a-z0-9-]*)\/instanceGroupManagers\/([^/]*)/;

const clients = () => {
  const rootUrl = `${simOf().url}/`;
  // The clients bundle their own google-auth-library types; the runtime object is the same kind.
  return {
    gke: container({ version: 'v1', rootUrl, auth: fakeAuth() as never }),
    gce: compute({ version: 'v1', rootUrl, auth: fakeAuth() as never }),
  };
};

const advance = async (by: string) => {
  const res = await simOf().app.request('/_sim/clock/advance', {
    method: 'POST',
    body: JSON.stringify({ by }),
  });
  expect(res.status).toBe(200);
};

/** Replaces the world's clusters (each test starts from `aCluster()`, seeded by useSocketSim). */
const seed = async (clusters: unknown[]) => {
  expect((await simOf().app.request('/_sim/reset', { method: 'POST' })).status).toBe(200);
  const res = await simOf().app.request('/_sim/seed', { method: 'POST', body: JSON.stringify({ clusters }) });
  expect(res.status, await res.clone().text()).toBe(201);
};

interface TerraformRead {
  nodeCount: number;
  instanceGroupUrls: string[];
  managedInstanceGroupUrls: string[];
}

/** The provider's flatten of one node pool, by IGM get (≤ 7.16) or by the zone's IGM list (≥ 7.17). */
async function terraformRead(pool: string, mode: 'get' | 'list'): Promise<TerraformRead> {
  const { gke, gce } = clients();
  const np = (await gke.projects.locations.clusters.nodePools.get({ name: pool })).data;
  let size = 0;
  const instanceGroupUrls: string[] = [];
  const managedInstanceGroupUrls: string[] = [];
  for (const url of np.instanceGroupUrls ?? []) {
    const m = IGM_URL.exec(url);
    if (!m) throw new Error(`not an instance group manager URL: ${url}`);
    const [key, project, zone, name] = m as unknown as [string, string, string, string];
    let igm: { targetSize?: number | null; instanceGroup?: string | null } | undefined;
    if (mode === 'get') {
      try {
        igm = (await gce.instanceGroupManagers.get({ project, zone, instanceGroupManager: name })).data;
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
      }
    } else {
      // Every page (a small page size here, so that a zone of three pools takes several).
      let pageToken: string | undefined;
      do {
        const page = (await gce.instanceGroupManagers.list({ project, zone, maxResults: 1, pageToken })).data;
        igm ??= page.items?.find((i) => IGM_URL.exec(i.selfLink ?? '')?.[0] === key);
        pageToken = page.nextPageToken ?? undefined;
      } while (pageToken);
    }
    if (!igm) continue;
    size += igm.targetSize ?? 0;
    instanceGroupUrls.push(url);
    managedInstanceGroupUrls.push(igm.instanceGroup ?? '');
  }
  const nodeCount = instanceGroupUrls.length > 0 ? Math.trunc(size / instanceGroupUrls.length) : 0;
  return { nodeCount, instanceGroupUrls, managedInstanceGroupUrls };
}

const groupUrl = (igmUrl: string) => igmUrl.replace('/instanceGroupManagers/', '/instanceGroups/');

describe.each(['get', 'list'] as const)('a Terraform read by instanceGroupManagers.%s', (mode) => {
  it('reads node_count and both URL lists of a zonal pool beside others in its zone', async () => {
    await seed([
      aCluster().withPools(aNodePool('np1'), aNodePool('np2').withNodeCount(2), aNodePool('np3')).build(),
    ]);
    const read = await terraformRead(`${LOC}/nodePools/np2`, mode);
    expect(read.nodeCount).toBe(2);
    expect(read.instanceGroupUrls).toHaveLength(1);
    expect(read.managedInstanceGroupUrls).toEqual(read.instanceGroupUrls.map(groupUrl));
  });

  it('reads the per-zone node_count of a regional pool over its three zones', async () => {
    const cluster = aCluster('r1')
      .inLocation('us-central1')
      .withPools(aNodePool('np1').withNodeCount(2))
      .build();
    cluster.locations = ['us-central1-a', 'us-central1-b', 'us-central1-c'];
    await seed([cluster]);
    const read = await terraformRead(`${REGIONAL}/nodePools/np1`, mode);
    expect(read).toMatchObject({ nodeCount: 2 });
    expect(
      read.managedInstanceGroupUrls.map(
        (u) => IGM_URL.exec(u.replace('instanceGroups', 'instanceGroupManagers'))?.[2],
      ),
    ).toEqual(['us-central1-a', 'us-central1-b', 'us-central1-c']);
  });

  it('follows setSize when its operation is done, and an autoscaling minimum above the size', async () => {
    const { gke } = clients();
    const name = `${LOC}/nodePools/np1`;
    await gke.projects.locations.clusters.nodePools.setSize({ name, requestBody: { nodeCount: 5 } });
    expect((await terraformRead(name, mode)).nodeCount).toBe(3);
    await advance('1h');
    expect((await terraformRead(name, mode)).nodeCount).toBe(5);
    await gke.projects.locations.clusters.nodePools.setAutoscaling({
      name,
      requestBody: { autoscaling: { enabled: true, minNodeCount: 6, maxNodeCount: 8 } },
    });
    await advance('1h');
    expect((await terraformRead(name, mode)).nodeCount).toBe(6);
  });

  it('keeps node_count through a surge upgrade and a blue-green one, then reads the green groups', async () => {
    const { gke } = clients();
    const name = `${LOC}/nodePools/np1`;
    await gke.projects.locations.clusters.nodePools.update({
      name,
      requestBody: { nodeVersion: V.master, imageType: 'UBUNTU_CONTAINERD' },
    });
    await advance('300ms');
    expect((await terraformRead(name, mode)).nodeCount).toBe(3);
    await advance('1h');
    const blue = await terraformRead(name, mode);
    expect(blue.nodeCount).toBe(3);
    await gke.projects.locations.clusters.nodePools.update({
      name,
      requestBody: {
        nodeVersion: V.master,
        upgradeSettings: { strategy: 'BLUE_GREEN', blueGreenSettings: { nodePoolSoakDuration: '0s' } },
      },
    });
    await advance('300ms');
    expect((await terraformRead(name, mode)).nodeCount).toBe(3);
    await advance('1h');
    const green = await terraformRead(name, mode);
    expect(green.nodeCount).toBe(3);
    expect(green.instanceGroupUrls).not.toEqual(blue.instanceGroupUrls);
    expect(green.managedInstanceGroupUrls).toEqual(green.instanceGroupUrls.map(groupUrl));
  });
});

describe('a deleted pool', () => {
  it("answers Compute's 404 on its manager, which the list no longer has", async () => {
    const { gke, gce } = clients();
    const name = `${LOC}/nodePools/np1`;
    const url =
      ((await gke.projects.locations.clusters.nodePools.get({ name })).data.instanceGroupUrls ?? [])[0] ?? '';
    const [, project, zone, igm] = IGM_URL.exec(url) as unknown as [string, string, string, string];
    await gke.projects.locations.clusters.nodePools.delete({ name });
    await advance('1h');
    const refused = await gce.instanceGroupManagers
      .get({ project, zone, instanceGroupManager: igm })
      .catch((e) => e);
    expect(refused.code).toBe(404);
    expect(refused.response.data.error.errors).toEqual([
      {
        message: `The resource 'projects/p1/zones/us-central1-a/instanceGroupManagers/${igm}' was not found`,
        domain: 'global',
        reason: 'notFound',
      },
    ]);
    const listed = (await gce.instanceGroupManagers.list({ project, zone })).data;
    expect(listed.items).toBeUndefined();
  });
});
