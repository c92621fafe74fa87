import type { SeedInput } from '../../src/index';

type SeedCluster = NonNullable<SeedInput['clusters']>[number];
type SeedPool = NonNullable<SeedCluster['nodePools']>[number];

/** Versions of the simulator's default ServerConfig, named for what tests use them for. */
export const V = {
  master: '1.33.5-gke.1308000',
  masterPrevPatch: '1.33.4-gke.1350000',
  oldPatch133: '1.33.4-gke.1036000',
  newerMinor: '1.34.1-gke.1829001',
  minor132: '1.32.9-gke.1108000',
  minor131: '1.31.13-gke.1023000',
  minor130: '1.30.14-gke.1169000',
  minor129: '1.29.15-gke.1325000',
} as const;

/** A node pool fixture: `aNodePool('np1').withVersion(V.minor132).withTaints(...)`. */
export function aNodePool(name = 'np1') {
  const pool: SeedPool = { name, version: V.master, initialNodeCount: 3 };
  const builder = {
    withVersion(version: string) {
      pool.version = version;
      return builder;
    },
    withNodeCount(count: number) {
      pool.initialNodeCount = count;
      return builder;
    },
    withTaints(
      ...taints: { key: string; value: string; effect: 'NO_SCHEDULE' | 'PREFER_NO_SCHEDULE' | 'NO_EXECUTE' }[]
    ) {
      pool.config = { ...(pool.config ?? {}), taints };
      return builder;
    },
    withLabels(labels: Record<string, string>) {
      pool.config = { ...(pool.config ?? {}), labels };
      return builder;
    },
    withTags(...tags: string[]) {
      pool.config = { ...(pool.config ?? {}), tags };
      return builder;
    },
    build(): SeedPool {
      return structuredClone(pool);
    },
  };
  return builder;
}

/** A cluster fixture: `aCluster('c1').inLocation('us-central1').withPools(aNodePool('np1'))`. */
export function aCluster(name = 'c1') {
  const cluster: SeedCluster = {
    projectId: 'p1',
    location: 'us-central1-a',
    name,
    currentMasterVersion: V.master,
    nodePools: [aNodePool('np1').build()],
  };
  const builder = {
    inProject(projectId: string) {
      cluster.projectId = projectId;
      return builder;
    },
    inLocation(location: string) {
      cluster.location = location;
      return builder;
    },
    withMasterVersion(version: string) {
      cluster.currentMasterVersion = version;
      return builder;
    },
    withPools(...pools: { build(): SeedPool }[]) {
      cluster.nodePools = pools.map((p) => p.build());
      return builder;
    },
    build(): SeedCluster {
      return structuredClone(cluster);
    },
  };
  return builder;
}
