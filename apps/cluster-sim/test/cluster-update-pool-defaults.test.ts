import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterUpdates, V1_CLUSTER } from './support/cluster-update';
import { aCluster, aNodePool } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, LOC } from './support/harness';

/**
 * ClusterUpdate fields for node pools' defaults: `nodePoolAutoConfig.*` (auto-provisioned pools, which
 * the simulator never creates) and `nodePoolDefaults.nodeConfigDefaults.*` (pools created afterwards
 * inherit them; existing pools keep their config). Each an UPDATE_CLUSTER operation aimed at the
 * cluster, the change landing when it is DONE.
 */
let h: Harness;

beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const { applyUpdate, refused } = clusterUpdates(() => h);

/** Creates a pool with nodePools.create and returns it once its operation is DONE. */
async function createPool(nodePool: Record<string, unknown>) {
  const res = await h.post(`${CLUSTER}/nodePools`, { nodePool });
  expect(res.status, res.text).toBe(200);
  await h.advance('10m');
  const pool = await h.get(`${CLUSTER}/nodePools/${nodePool.name}`);
  expect(pool.status, pool.text).toBe(200);
  return pool.body;
}

describe('clusters.update: nodePoolAutoConfig', () => {
  it('desiredNodePoolAutoConfigNetworkTags lands in nodePoolAutoConfig.networkTags; [] leaves {}', async () => {
    const on = await applyUpdate({ desiredNodePoolAutoConfigNetworkTags: { tags: ['web', 'ssh'] } });
    expect(on.before.nodePoolAutoConfig.networkTags).toBeUndefined();
    expect(on.after.nodePoolAutoConfig).toEqual({
      ...on.before.nodePoolAutoConfig,
      networkTags: { tags: ['web', 'ssh'] },
    });
    // Standard pools are not auto-provisioned: their tags stay as they were.
    expect(on.after.nodePools[0].config.tags).toEqual(on.before.nodePools[0].config.tags);
    const off = await applyUpdate({ desiredNodePoolAutoConfigNetworkTags: { tags: [] } });
    expect(off.after.nodePoolAutoConfig.networkTags).toEqual({});
  });

  it('desiredNodePoolAutoConfigResourceManagerTags lands in nodePoolAutoConfig.resourceManagerTags', async () => {
    const tags = { 'tagKeys/123': 'tagValues/456' };
    const { after } = await applyUpdate({ desiredNodePoolAutoConfigResourceManagerTags: { tags } });
    expect(after.nodePoolAutoConfig.resourceManagerTags).toEqual({ tags });
  });

  it('desiredNodePoolAutoConfigKubeletConfig replaces nodePoolAutoConfig.nodeKubeletConfig (false kept)', async () => {
    const on = await applyUpdate({
      desiredNodePoolAutoConfigKubeletConfig: { insecureKubeletReadonlyPortEnabled: true },
    });
    expect(on.after.nodePoolAutoConfig.nodeKubeletConfig).toEqual({
      insecureKubeletReadonlyPortEnabled: true,
    });
    const off = await applyUpdate({
      desiredNodePoolAutoConfigKubeletConfig: { insecureKubeletReadonlyPortEnabled: false },
    });
    expect(off.after.nodePoolAutoConfig.nodeKubeletConfig).toEqual({
      insecureKubeletReadonlyPortEnabled: false,
    });
  });

  it('desiredNodePoolAutoConfigLinuxNodeConfig lands in nodePoolAutoConfig.linuxNodeConfig', async () => {
    const { after } = await applyUpdate({
      desiredNodePoolAutoConfigLinuxNodeConfig: { cgroupMode: 'CGROUP_MODE_V2' },
    });
    expect(after.nodePoolAutoConfig.linuxNodeConfig).toEqual({ cgroupMode: 'CGROUP_MODE_V2' });
  });

  it('refuses the fields only cgroup_mode / the read-only port may be set in, starting nothing', async () => {
    const linux = await refused(
      { desiredNodePoolAutoConfigLinuxNodeConfig: { sysctls: { 'net.core.somaxconn': '1024' } } },
      400,
    );
    expect(linux.status).toBe('INVALID_ARGUMENT');
    expect(linux.message).toBe(
      'Only cgroup_mode can be set in update.desired_node_pool_auto_config_linux_node_config; got sysctls.',
    );
    const kubelet = await refused(
      { desiredNodePoolAutoConfigKubeletConfig: { cpuManagerPolicy: 'static', podPidsLimit: '2048' } },
      400,
    );
    expect(kubelet.message).toBe(
      'Only insecure_kubelet_readonly_port_enabled can be set in update.desired_node_pool_auto_config_kubelet_config; got cpuManagerPolicy, podPidsLimit.',
    );
  });

  it('refuses them (501) on a cluster with an auto-provisioned pool, whose nodes GKE would change', async () => {
    await h.seed({
      clusters: [
        aCluster('c2')
          .withPools({
            build: () => ({
              ...aNodePool('nap-1').build(),
              autoscaling: { enabled: true, autoprovisioned: true, minNodeCount: 1, maxNodeCount: 3 },
            }),
          })
          .build(),
      ],
    });
    const error = await refused(
      { desiredNodePoolAutoConfigNetworkTags: { tags: ['web'] } },
      501,
      `${LOC}/clusters/c2`,
    );
    expect(error.status).toBe('UNIMPLEMENTED');
    expect(error.message).toMatch(
      /^ClusterUpdate field "desiredNodePoolAutoConfigNetworkTags" on a cluster with auto-provisioned node pools: not simulated/,
    );
  });
});

describe('clusters.update: nodePoolDefaults.nodeConfigDefaults', () => {
  it('desiredNodePoolLoggingConfig: the default changes, existing pools keep theirs, new pools keep their own', async () => {
    const { before, after } = await applyUpdate({
      desiredNodePoolLoggingConfig: { variantConfig: { variant: 'MAX_THROUGHPUT' } },
    });
    expect(before.nodePoolDefaults.nodeConfigDefaults.loggingConfig).toEqual({
      variantConfig: { variant: 'DEFAULT' },
    });
    expect(after.nodePoolDefaults.nodeConfigDefaults).toEqual({
      ...before.nodePoolDefaults.nodeConfigDefaults,
      loggingConfig: { variantConfig: { variant: 'MAX_THROUGHPUT' } },
    });
    expect(after.nodePools).toEqual(before.nodePools);
    // The default is not copied into a new pool's config: GKE leaves loggingConfig out of a pool
    // created without one (recorded, gcloud-nodepool-crud) and applies the cluster's variant itself.
    const later = await createPool({ name: 'late', initialNodeCount: 1 });
    expect(later.config.loggingConfig).toBeUndefined();
    // A pool that sets its own variant keeps it.
    const own = await createPool({
      name: 'own',
      initialNodeCount: 1,
      config: { loggingConfig: { variantConfig: { variant: 'DEFAULT' } } },
    });
    expect(own.config.loggingConfig).toEqual({ variantConfig: { variant: 'DEFAULT' } });
  });

  it('desiredNodeKubeletConfig: the read-only port default changes, existing pools keep theirs, new pools inherit it', async () => {
    const { before, after } = await applyUpdate({
      desiredNodeKubeletConfig: { insecureKubeletReadonlyPortEnabled: true },
    });
    expect(after.nodePoolDefaults.nodeConfigDefaults.nodeKubeletConfig).toEqual({
      insecureKubeletReadonlyPortEnabled: true,
    });
    expect(after.nodePools).toEqual(before.nodePools);
    const inherited = await createPool({ name: 'late', initialNodeCount: 1 });
    expect(inherited.config.kubeletConfig).toEqual({
      insecureKubeletReadonlyPortEnabled: true,
      maxParallelImagePulls: 2,
    });
    // A pool's own kubelet settings stay beside the inherited default; its own port setting wins.
    const own = await createPool({
      name: 'own',
      initialNodeCount: 1,
      config: { kubeletConfig: { cpuManagerPolicy: 'static' } },
    });
    expect(own.config.kubeletConfig).toMatchObject({
      cpuManagerPolicy: 'static',
      insecureKubeletReadonlyPortEnabled: true,
    });
    const closed = await createPool({
      name: 'closed',
      initialNodeCount: 1,
      config: { kubeletConfig: { insecureKubeletReadonlyPortEnabled: false } },
    });
    expect(closed.config.kubeletConfig.insecureKubeletReadonlyPortEnabled).toBe(false);
  });

  it('refuses kubelet settings other than the read-only port, and a logging config without a variant', async () => {
    const kubelet = await refused({ desiredNodeKubeletConfig: { cpuCfsQuota: true } }, 400);
    expect(kubelet.status).toBe('INVALID_ARGUMENT');
    expect(kubelet.message).toBe(
      'Only insecure_kubelet_readonly_port_enabled can be set in update.desired_node_kubelet_config; got cpuCfsQuota.',
    );
    const variant = await refused(
      { desiredNodePoolLoggingConfig: { variantConfig: { variant: 'VARIANT_UNSPECIFIED' } } },
      501,
    );
    expect(variant.status).toBe('UNIMPLEMENTED');
    expect(variant.message).toMatch(
      /^A desiredNodePoolLoggingConfig without a DEFAULT or MAX_THROUGHPUT variant \("VARIANT_UNSPECIFIED"\): not simulated/,
    );
  });
});

describe('clusters.update: desiredDefaultEnablePrivateNodes', () => {
  const C2 = `${LOC}/clusters/c2`;

  /** Creates a pool in c2 and returns it once its operation is DONE. */
  async function createPoolIn(cluster: string, nodePool: Record<string, unknown>) {
    const res = await h.post(`${cluster}/nodePools`, { nodePool });
    expect(res.status, res.text).toBe(200);
    await h.advance('10m');
    return (await h.get(`${cluster}/nodePools/${nodePool.name}`)).body;
  }

  it('sets networkConfig.defaultEnablePrivateNodes, which pools created afterwards without their own take', async () => {
    await h.seed({ clusters: [{ ...aCluster('c2').build(), nodePools: [] }] });
    const { before, after } = await applyUpdate({ desiredDefaultEnablePrivateNodes: true }, C2);
    expect(before.networkConfig.defaultEnablePrivateNodes).toBeUndefined();
    expect(after.networkConfig).toEqual({ ...before.networkConfig, defaultEnablePrivateNodes: true });
    const late = await createPoolIn(C2, { name: 'late', initialNodeCount: 1 });
    expect(late.networkConfig.enablePrivateNodes).toBe(true);
    const own = await createPoolIn(C2, {
      name: 'own',
      initialNodeCount: 1,
      networkConfig: { enablePrivateNodes: false },
    });
    expect(own.networkConfig.enablePrivateNodes).toBe(false);
    // Every pool has its own value now: no existing pool changes.
    const off = await applyUpdate(
      { desiredDefaultEnablePrivateNodes: false },
      '/v1/projects/p1/locations/us-central1-a/clusters/c2',
    );
    // An `optional bool`: a false set is answered false.
    expect(off.after.networkConfig.defaultEnablePrivateNodes).toBe(false);
    expect(off.after.nodePools).toEqual(off.before.nodePools);
  });

  it('refuses it (501) on a cluster with a pool that takes the default, whose nodes GKE would recreate', async () => {
    const error = await refused({ desiredDefaultEnablePrivateNodes: true }, 501);
    expect(error.status).toBe('UNIMPLEMENTED');
    expect(error.message).toMatch(
      /^ClusterUpdate field "desiredDefaultEnablePrivateNodes" on a cluster with node pools that take it \("[^"]+".*\): not simulated/,
    );
  });
});

describe('clusters.update: the pool-related fields still refused and v1', () => {
  it('refuses the fields that would change existing pools or recreate nodes with the 501, starting nothing', async () => {
    for (const [update, name] of [
      [{ desiredGcfsConfig: { enabled: true } }, 'desiredGcfsConfig'],
      [
        { desiredContainerdConfig: { privateRegistryAccessConfig: { enabled: true } } },
        'desiredContainerdConfig',
      ],
      [{ desiredImage: 'my-image' }, 'desiredImage'],
      [{ desiredImageProject: 'my-project' }, 'desiredImageProject'],
      [{ desiredHostMaintenancePolicy: { maintenanceInterval: 'PERIODIC' } }, 'desiredHostMaintenancePolicy'],
      [{ desiredTpuConfig: { enabled: true } }, 'desiredTpuConfig'],
      [
        { desiredNodePoolUpgradeConcurrencyConfig: { maxCount: '2' } },
        'desiredNodePoolUpgradeConcurrencyConfig',
      ],
    ] as const) {
      const error = await refused(update, 501);
      expect(error.status).toBe('UNIMPLEMENTED');
      expect(error.message).toMatch(new RegExp(`^ClusterUpdate field "${name}": not simulated`));
    }
  });

  it('refuses two of the fields together as not simulated', async () => {
    const error = await refused(
      {
        desiredNodeKubeletConfig: { insecureKubeletReadonlyPortEnabled: false },
        desiredNodePoolLoggingConfig: { variantConfig: { variant: 'MAX_THROUGHPUT' } },
      },
      501,
    );
    expect(error.message).toMatch(
      /^A ClusterUpdate with "desiredNodeKubeletConfig", "desiredNodePoolLoggingConfig" together/,
    );
  });

  it('v1 applies the fields and refuses v1beta1-only names in them as unknown', async () => {
    const { after } = await applyUpdate(
      { desiredNodePoolLoggingConfig: { variantConfig: { variant: 'MAX_THROUGHPUT' } } },
      V1_CLUSTER,
    );
    expect(after.nodePoolDefaults.nodeConfigDefaults.loggingConfig).toEqual({
      variantConfig: { variant: 'MAX_THROUGHPUT' },
    });
    const beta = await refused(
      { desiredNodePoolUpgradeConcurrencyConfig: { maxCount: '2' } },
      400,
      V1_CLUSTER,
    );
    expect(beta.status).toBe('INVALID_ARGUMENT');
    expect(beta.message).toMatch(
      /Unknown name "desiredNodePoolUpgradeConcurrencyConfig" at 'update': Cannot find field\./,
    );
  });
});
