import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, POOL } from './support/harness';

/**
 * Compute Engine's slice GKE clients read: the node pools' managed instance groups, derived from the
 * container state at every moment, with Compute's envelope, auth, paging, journal and 501s.
 */
let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.close());

const COMPUTE = '/compute/v1/projects/p1/zones/us-central1-a';
const IGMS = `${COMPUTE}/instanceGroupManagers`;

/** The IGM path of a pool's first instanceGroupUrl, as the container API hands it out. */
async function igmPathOf(pool = POOL): Promise<string> {
  const url = (await h.get(pool)).body.instanceGroupUrls[0] as string;
  return url.replace('https://www.googleapis.com', '');
}

describe('instanceGroupManagers', () => {
  it('answers get on the URL a pool hands out with its per-zone target size and Compute fields', async () => {
    await h.seedDefault();
    const path = await igmPathOf();
    const res = await h.get(path);
    expect(res.status, res.text).toBe(200);
    const name = path.split('/').at(-1) as string;
    expect(name).toMatch(/^gke-c1-np1-[0-9a-f]{8}-grp$/);
    expect(res.body).toMatchObject({
      kind: 'compute#instanceGroupManager',
      name,
      targetSize: 3,
      zone: 'https://www.googleapis.com/compute/v1/projects/p1/zones/us-central1-a',
      selfLink: `https://www.googleapis.com${path}`,
      instanceGroup: `https://www.googleapis.com/compute/v1/projects/p1/zones/us-central1-a/instanceGroups/${name}`,
      baseInstanceName: name.replace(/-grp$/, ''),
      status: { isStable: true },
      currentActions: { none: 3, creating: 0, recreating: 0 },
    });
    expect(res.body.id).toMatch(/^\d+$/);
    expect(res.body.fingerprint).toMatch(/^[A-Za-z0-9+/]{11}=$/);
    expect(res.body.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-08:00$/);
  });

  it('follows setSize and an autoscaling minimum above the count', async () => {
    await h.seedDefault();
    const path = await igmPathOf();
    expect((await h.post(`${POOL}:setSize`, { nodeCount: 5 })).status).toBe(200);
    await h.advance('1h');
    expect((await h.get(path)).body.targetSize).toBe(5);
    const scaled = await h.post(`${POOL}:setAutoscaling`, {
      autoscaling: { enabled: true, minNodeCount: 7, maxNodeCount: 9 },
    });
    expect(scaled.status, scaled.text).toBe(200);
    await h.advance('1h');
    expect((await h.get(path)).body.targetSize).toBe(7);
  });

  it('counts a surge batch in currentActions while the target size stays the pool size', async () => {
    await h.seedDefault();
    const path = await igmPathOf();
    const started = await h.put(POOL, { nodeVersion: '1.33.5-gke.1308000', imageType: 'UBUNTU_CONTAINERD' });
    expect(started.status, started.text).toBe(200);
    await h.advance('300ms');
    const during = (await h.get(path)).body;
    expect(during).toMatchObject({ targetSize: 3, currentActions: { creating: 1, recreating: 1 } });
    expect(during.status.isStable).toBe(false);
    await h.advance('1h');
    expect((await h.get(path)).body).toMatchObject({ targetSize: 3, status: { isStable: true } });
  });

  it("lists the green pool's managers beside the blue ones during a blue-green upgrade, then the green only", async () => {
    await h.seedDefault();
    const blue = (await igmPathOf()).split('/').at(-1);
    const started = await h.put(POOL, {
      nodeVersion: '1.33.5-gke.1308000',
      upgradeSettings: { strategy: 'BLUE_GREEN', blueGreenSettings: { nodePoolSoakDuration: '0s' } },
    });
    expect(started.status, started.text).toBe(200);
    const names = async () => (await h.get(IGMS)).body.items?.map((i: { name: string }) => i.name) ?? [];
    expect(await names()).toEqual([blue]);
    await h.advance('300ms');
    const during = await names();
    expect(during).toHaveLength(2);
    expect(during).toContain(blue);
    await h.advance('1h');
    const after = await names();
    expect(after).toHaveLength(1);
    expect(after).not.toContain(blue);
    expect(`/${after[0]}`).toBe(`/${(await igmPathOf()).split('/').at(-1)}`);
  });

  it('lists a zone in pages, each manager once, and filters on name', async () => {
    await h.seed({
      clusters: [aCluster().withPools(aNodePool('np1'), aNodePool('np2'), aNodePool('np3')).build()],
    });
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const res = await h.get(`${IGMS}?maxResults=2${token ? `&pageToken=${token}` : ''}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.kind).toBe('compute#instanceGroupManagerList');
      seen.push(...res.body.items.map((i: { name: string }) => i.name));
      token = res.body.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(2);
    expect(seen).toHaveLength(3);
    expect([...seen].sort()).toEqual(seen);
    const one = await h.get(`${IGMS}?filter=${encodeURIComponent(`name = "${seen[1]}"`)}`);
    expect(one.body.items.map((i: { name: string }) => i.name)).toEqual([seen[1]]);
    const empty = await h.get('/compute/v1/projects/p1/zones/europe-west1-b/instanceGroupManagers');
    expect(empty.body).not.toHaveProperty('items');
    const regex = await h.get(`${IGMS}?filter=${encodeURIComponent("name eq 'gke-.*-np2-.*'")}`);
    expect(regex.body.items.map((i: { name: string }) => i.name)).toEqual([seen[1]]);
    // A repeated group would backtrack for minutes in JavaScript's engine (Compute's RE2 is linear).
    const nested = await h.get(`${IGMS}?filter=${encodeURIComponent("name eq '(a+)+b'")}`);
    expect(nested.status).toBe(501);
    const tooMany = await h.get(`${IGMS}?maxResults=501`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.errors[0].reason).toBe('invalid');
  });

  it("answers Compute's 404 once the pool is deleted, and the list no longer has it", async () => {
    await h.seedDefault();
    const path = await igmPathOf();
    expect((await h.del(POOL)).status).toBe(200);
    await h.advance('1h');
    const res = await h.get(path);
    const resource = path.replace('/compute/v1/', '');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: {
        code: 404,
        message: `The resource '${resource}' was not found`,
        errors: [
          { message: `The resource '${resource}' was not found`, domain: 'global', reason: 'notFound' },
        ],
      },
    });
    expect((await h.get(IGMS)).body.items).toBeUndefined();
  });

  it("answers Compute's 404 for every group of a deleted cluster", async () => {
    await h.seed({ clusters: [aCluster().withPools(aNodePool('np1'), aNodePool('np2')).build()] });
    const paths = [await igmPathOf(), await igmPathOf(`${CLUSTER}/nodePools/np2`)];
    expect((await h.del(CLUSTER)).status).toBe(200);
    // The groups stay while the cluster's deletion runs.
    expect((await h.get(paths[0] as string)).status).toBe(200);
    await h.advance('1h');
    for (const path of paths) expect((await h.get(path)).status).toBe(404);
    expect((await h.get('/compute/v1/projects/p1/aggregated/instanceGroupManagers')).body.items).toEqual({});
  });

  it('lists the managers of every zone of a regional pool, and aggregates them by zone', async () => {
    const cluster = aCluster().inLocation('us-central1').build();
    cluster.locations = ['us-central1-a', 'us-central1-b'];
    await h.seed({ clusters: [cluster] });
    const pool = (await h.get('/v1/projects/p1/locations/us-central1/clusters/c1/nodePools/np1')).body;
    expect(pool.instanceGroupUrls).toHaveLength(2);
    for (const url of pool.instanceGroupUrls as string[]) {
      const res = await h.get(url.replace('https://www.googleapis.com', ''));
      expect(res.body.targetSize).toBe(3);
    }
    const agg = (await h.get('/compute/v1/projects/p1/aggregated/instanceGroupManagers')).body;
    expect(Object.keys(agg.items).sort()).toEqual(['zones/us-central1-a', 'zones/us-central1-b']);
  });

  it("lists a group's instances named as GKE names nodes, and gets each", async () => {
    await h.seedDefault();
    const path = await igmPathOf();
    const managed = await h.post(`${path}/listManagedInstances`, {});
    expect(managed.status, managed.text).toBe(200);
    const base = path.split('/').at(-1)?.replace(/-grp$/, '');
    expect(managed.body.managedInstances).toHaveLength(3);
    for (const m of managed.body.managedInstances) {
      expect(m.name).toMatch(new RegExp(`^${base}-[a-z0-9]{4}$`));
      expect(m).toMatchObject({ instanceStatus: 'RUNNING', currentAction: 'NONE' });
      const instance = await h.get(`${COMPUTE}/instances/${m.name}`);
      expect(instance.body).toMatchObject({ kind: 'compute#instance', name: m.name, status: 'RUNNING' });
    }
    const ig = await h.get(path.replace('instanceGroupManagers', 'instanceGroups'));
    expect(ig.body).toMatchObject({ kind: 'compute#instanceGroup', size: 3 });
    const listed = await h.post(`${path.replace('instanceGroupManagers', 'instanceGroups')}/listInstances`, {
      instanceState: 'ALL',
    });
    expect(listed.body.items).toHaveLength(3);
    expect((await h.get(`${COMPUTE}/instances`)).body.items).toHaveLength(3);
  });
});

describe("Compute's auth, 501s, journal and faults", () => {
  it('answers 401 without credentials and 403 naming the Compute permission', async () => {
    await h.seedDefault();
    const path = await igmPathOf();
    const anonymous = await h.get(path, { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.status).toBe('UNAUTHENTICATED');
    await h.settings({ auth: { principals: { narrow: { permissions: ['container.*'] } } } });
    const denied = await h.get(path, { token: 'narrow' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(
      `Required 'compute.instanceGroupManagers.get' permission for '${path.replace('/compute/v1/', '')}'`,
    );
  });

  it('refuses every other Compute path with a 501 naming the method', async () => {
    const res = await h.post(`${IGMS}/gke-x-grp/resize?size=3`, {});
    expect(res.status).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
    expect(res.body.error.message).toContain('compute.instanceGroupManagers.resize');
    const del = await h.del('/compute/v1/projects/p1/regions/us-central1/instanceGroupManagers/x');
    expect(del.body.error.message).toContain('compute.regionInstanceGroupManagers.delete');
    const journal = await h.journal();
    expect(journal.map((e) => e.operation)).toEqual([
      'compute.instanceGroupManagers.resize',
      'compute.regionInstanceGroupManagers.delete',
    ]);
  });

  it('runs fault rules matched on a Compute operation name', async () => {
    await h.seedDefault();
    await h.addFault({
      match: { operation: 'compute.instanceGroupManagers.list' },
      effect: { error: { status: 'UNAVAILABLE' } },
    });
    expect((await h.get(IGMS)).status).toBe(503);
    expect((await h.get(await igmPathOf())).status).toBe(200);
    expect((await h.get(CLUSTER)).status).toBe(200);
  });
});
