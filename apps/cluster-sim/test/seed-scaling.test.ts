import { countMapReads } from '@sims/test-support/map-reads';
import { afterEach, describe, expect, it } from 'vitest';
import { podRangesOf } from '../src/domain/pod-ranges';
import type { ClusterRecord } from '../src/domain/state';
import type { SeedInput } from '../src/index';
import { createHarness, type Harness } from './support/harness';

type SeedCluster = NonNullable<SeedInput['clusters']>[number];

/**
 * The rule the pod ranges follow, written as a scan (as the simulator did before it kept an index): the
 * id-derived /14 moves on by /14 steps past every one that overlaps a range another cluster of the
 * network holds; when all 63 are taken, the id-derived one.
 */
function octetByScan(id: string, held: string[]): number {
  const ranges = held.flatMap((cidr) => {
    const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
    if (!m || Number(m[5]) > 32) return [];
    const address = ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
    const size = 2 ** (32 - Number(m[5]));
    const lo = address - (address % size);
    return [[lo, lo + size - 1] as const];
  });
  const first = Number.parseInt(id.slice(8, 10), 16) % 63;
  for (let step = 0; step < 63; step++) {
    const octet = 4 * (1 + ((first + step) % 63));
    const lo = (10 * 2 ** 24 + octet * 2 ** 16) >>> 0;
    const hi = lo + 2 ** 18 - 1;
    if (!ranges.some(([a, b]) => a <= hi && lo <= b)) return octet;
  }
  return 4 * (1 + first);
}

const NETWORKS = [
  undefined,
  'net-a',
  'projects/host/global/networks/shared',
  'projects/p2/global/networks/b',
];
const GIVEN = [
  undefined,
  undefined,
  '10.0.0.0/9',
  '/16',
  '10.200.0.0/14',
  '/20',
  '192.168.0.0/16',
  '10.130.0.0/20',
];

/** The i-th cluster of the mix: networks, projects, given ranges (as a CIDR or a size) in turn. */
function mixed(i: number): SeedCluster {
  const network = NETWORKS[(i * 7) % NETWORKS.length];
  const given = GIVEN[(i * 5 + (i >> 3)) % GIVEN.length];
  return {
    projectId: i % 5 === 0 ? 'p2' : 'p1',
    location: 'us-central1-a',
    name: `m${i}`,
    ...(network ? { network } : {}),
    ...(given && i % 2 ? { clusterIpv4Cidr: given } : {}),
    ...(given && !(i % 2) ? { ipAllocationPolicy: { clusterIpv4CidrBlock: given } } : {}),
    nodePools: i % 3 === 0 ? [] : [{ name: 'np', initialNodeCount: 1 }],
  };
}

describe('seeding at scale', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('gives every cluster the pod range a scan of the other clusters of its network gives', async () => {
    h = createHarness();
    /** The clusters of the world, in the order they were made: network and pod range. */
    const held = new Map<string, { network: string; cidr: string }>();
    let checked = 0;
    const check = (key: string, given: string | undefined) => {
      const c = (h.world().state.clusters.get(key) as ClusterRecord).cluster;
      const network = c.networkConfig?.network as string;
      const others = [...held.values()].filter((o) => o.network === network).map((o) => o.cidr);
      const octet = octetByScan(c.id as string, others);
      const size = given && /^\/?(\d+)$/.exec(given)?.[1];
      const expected = given && !size ? given : `10.${octet}.0.0/${size || 14}`;
      expect(c.clusterIpv4Cidr, key).toBe(expected);
      held.set(key, { network, cidr: c.clusterIpv4Cidr as string });
      checked++;
    };
    const givenOf = (c: SeedCluster) =>
      (c.clusterIpv4Cidr as string | undefined) ?? c.ipAllocationPolicy?.clusterIpv4CidrBlock;
    const seed = async (from: number, count: number) => {
      const clusters = Array.from({ length: count }, (_, i) => mixed(from + i));
      await h.seed({ clusters });
      for (const c of clusters) check(`${c.projectId}/${c.location}/${c.name}`, givenOf(c));
    };
    await seed(0, 250);
    await seed(250, 100);
    // clusters.create, with clusters deleted in between (a deleted cluster's range is free again).
    for (let i = 350; i < 380; i++) {
      const { projectId, location, nodePools: _, ...cluster } = mixed(i);
      const res = await h.post(`/v1beta1/projects/${projectId}/locations/${location}/clusters`, {
        cluster: { ...cluster, initialNodeCount: 1 },
      });
      expect(res.status, res.text).toBe(200);
      check(`${projectId}/${location}/${cluster.name}`, givenOf(mixed(i)));
      if (i % 10 === 0) {
        const gone = mixed(i - 339);
        const del = await h.del(
          `/v1beta1/projects/${gone.projectId}/locations/${gone.location}/clusters/${gone.name}`,
        );
        expect(del.status, del.text).toBe(200);
        await h.advance('1h');
        const key = `${gone.projectId}/${gone.location}/${gone.name}`;
        expect(h.world().state.clusters.has(key)).toBe(false);
        held.delete(key);
      }
    }
    await seed(380, 60);
    expect(checked).toBe(440);
    // The mix fills networks past their 63 candidates: the rule's last resort is covered too.
    const chosen = [...held.values()].filter((c) => /^10\.\d+\.0\.0\/14$/.test(c.cidr));
    const distinct = new Set(chosen.map((c) => `${c.network} ${c.cidr}`));
    expect(distinct.size).toBeLessThan(chosen.length);
  });

  it('reads a bounded number of stored entries per seeded cluster, however many it seeds', () => {
    h = createHarness();
    const readsPerCluster = (count: number, from: number) => {
      const clusters = Array.from({ length: count }, (_, i) => ({
        projectId: 'p1',
        location: 'us-central1-a',
        name: `c${from + i}`,
        nodePools: [1, 2, 3].map((n) => ({ name: `np${n}`, initialNodeCount: 1 })),
      }));
      const { reads } = countMapReads(() => h.sim.kernel.def.seed(h.world(), { clusters }));
      return reads / count;
    };
    const small = readsPerCluster(100, 0);
    h.close();
    h = createHarness();
    const large = readsPerCluster(800, 0);
    // A scan of every cluster per cluster (as before) reads ~400 more entries per cluster at 800.
    expect(large).toBeLessThanOrEqual(small * 1.1);
    expect(large).toBeLessThan(100);
  });

  it('looks at a bounded number of ranges per cluster it places, however many the network holds', () => {
    const record = (cidr: string) =>
      ({
        cluster: { networkConfig: { network: 'projects/p/global/networks/n' }, clusterIpv4Cidr: cidr },
      }) as unknown as ClusterRecord;
    const perPlaced = (existing: number) => {
      const world = Array.from({ length: existing }, (_, i) => record(`10.${4 * (1 + (i % 63))}.0.0/14`));
      const ranges = podRangesOf(world);
      const before = ranges.examined;
      for (let i = 0; i < 100; i++) {
        const id = (i * 2654435761).toString(16).padStart(64, '0');
        const octet = ranges.octetFor('projects/p/global/networks/n', id);
        ranges.add(record(`10.${octet}.0.0/14`));
      }
      return (ranges.examined - before) / 100;
    };
    // At most every candidate /14 and the placed cluster's own range (and its 63 overlap checks once).
    expect(perPlaced(10)).toBeLessThanOrEqual(63 + 1 + 63);
    expect(perPlaced(10_000)).toBeLessThanOrEqual(63 + 1 + 63);
  });
});

describe('a seed into a large world', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('copies only the clusters it changes, and a refused seed leaves them as they were', async () => {
    h = createHarness();
    const clusters = Array.from({ length: 200 }, (_, i) => ({
      projectId: 'p',
      location: 'us-central1-a',
      name: `c${i}`,
      nodePools: [{ name: 'default-pool' }],
    }));
    await h.seed({ clusters });
    const state = h.world().state;
    const before = new Map(state.clusters);
    const changed = 'p/us-central1-a/c7';
    expect(state.clusters.has(changed)).toBe(true);
    const poolsBefore = JSON.stringify([...(before.get(changed) as ClusterRecord).pools.keys()]);

    // All or nothing: the second pool names a cluster that does not exist, so the first is not kept.
    const refused = await h.post(
      '/_sim/seed',
      {
        nodePools: [
          { projectId: 'p', location: 'us-central1-a', cluster: 'c7', name: 'extra' },
          { projectId: 'p', location: 'us-central1-a', cluster: 'nope', name: 'extra' },
        ],
      },
      { token: null },
    );
    expect(refused.status).toBe(400);
    expect(state.clusters.get(changed)).toBe(before.get(changed));
    expect(JSON.stringify([...(state.clusters.get(changed) as ClusterRecord).pools.keys()])).toBe(
      poolsBefore,
    );

    await h.seed({
      nodePools: [{ projectId: 'p', location: 'us-central1-a', cluster: 'c7', name: 'extra' }],
    });
    // The cluster it changed is a new record; the 199 others are the very records they were (a seed
    // copied the whole world before: seconds for one pool beside 10,000 clusters).
    expect(state.clusters.get(changed)).not.toBe(before.get(changed));
    expect([...(state.clusters.get(changed) as ClusterRecord).pools.keys()]).toEqual([
      'default-pool',
      'extra',
    ]);
    expect([...(before.get(changed) as ClusterRecord).pools.keys()]).toEqual(['default-pool']);
    const shared = [...state.clusters].filter(
      ([key, record]) => key !== changed && before.get(key) === record,
    );
    expect(shared).toHaveLength(199);
  });
});
