import type { FieldUpdate } from './cluster-field-update';
import { isPlainObject, type Loose } from './defaults';
import { fail, ok, type Result } from './errors';
import type { ClusterRecord, NodePoolShape } from './state';

/**
 * NetworkTags or ResourceManagerTags as GKE keeps them (proto3): an empty list or map of `tags` is not
 * kept, so `{tags: []}` comes back as `{}`.
 */
function withoutEmpty(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const out: Loose = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === false || v === 0 || v === '') continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (isPlainObject(v) && Object.keys(v).length === 0) continue;
    out[key] = v;
  }
  return out;
}

/**
 * The fields of a message set in a request: those other than `allowed` are refused, as the proto says
 * of the message ("Currently only `insecure_kubelet_readonly_port_enabled` can be set here"). The text
 * is the simulator's (FIDELITY.md).
 */
function onlyFields(allowed: string, protoName: string, field: string) {
  return (value: unknown): Result<void> => {
    if (!isPlainObject(value)) return ok(undefined);
    const others = Object.entries(value)
      .filter(([k, v]) => k !== allowed && v !== undefined && v !== null)
      .map(([k]) => k);
    if (others.length === 0) return ok(undefined);
    return fail({
      code: 'INVALID_REQUEST',
      message: `Only ${protoName} can be set in ${field}; got ${others.sort().join(', ')}.`,
      field,
    });
  };
}

/**
 * The `nodePoolAutoConfig` fields apply to "all auto-provisioned node pools in autopilot clusters and
 * node auto-provisioning enabled clusters" (ClusterUpdate's proto): the simulator creates no
 * auto-provisioned pool, so on a cluster without one only the Cluster's field changes. On an Autopilot
 * cluster, or one with an auto-provisioned pool (a seeded one), GKE would change those pools' nodes:
 * refused (NOT_SIMULATED).
 */
function autoProvisionedPoolsCheck(field: string, extra?: (value: unknown) => Result<void>) {
  return (value: unknown, record: ClusterRecord): Result<void> => {
    const checked = extra?.(value);
    if (checked && !checked.ok) return checked;
    const autopilot = (record.cluster as Loose).autopilot;
    const autoprovisioned = [...record.pools.values()].some(
      (p) => p.pool.autoscaling?.autoprovisioned === true,
    );
    if ((isPlainObject(autopilot) && autopilot.enabled === true) || autoprovisioned) {
      return fail({
        code: 'NOT_SIMULATED',
        what: `ClusterUpdate field "${field}" on a cluster with auto-provisioned node pools`,
      });
    }
    return ok(undefined);
  };
}

/** A pool's own `networkConfig.enablePrivateNodes`, if it sets one. */
function ownPrivateNodes(pool: NodePoolShape): boolean | undefined {
  const network = (pool as Loose).networkConfig;
  const value = isPlainObject(network) ? network.enablePrivateNodes : undefined;
  return typeof value === 'boolean' ? value : undefined;
}

/**
 * `desiredDefaultEnablePrivateNodes` sets the default of "future created nodes" (ClusterUpdate's proto),
 * and a pool that does not set `networkConfig.enablePrivateNodes` derives it from the cluster's default
 * (NodeNetworkConfig's proto): its nodes would get or lose their external addresses, a node recreation
 * the simulator does not run. On a cluster whose every pool sets its own (or that has none, as
 * Terraform leaves it) only pools created afterwards take the default: applied; otherwise refused
 * (NOT_SIMULATED).
 */
function defaultPrivateNodesCheck(_value: unknown, record: ClusterRecord): Result<void> {
  const deriving = [...record.pools.values()].filter((p) => ownPrivateNodes(p.pool) === undefined);
  if (deriving.length === 0) return ok(undefined);
  return fail({
    code: 'NOT_SIMULATED',
    what: `ClusterUpdate field "desiredDefaultEnablePrivateNodes" on a cluster with node pools that take it (${deriving
      .map((p) => `"${p.pool.name}"`)
      .join(', ')}: their nodes would be recreated)`,
  });
}

/**
 * `desiredNodePoolLoggingConfig`: the variant is DEFAULT or MAX_THROUGHPUT (VARIANT_UNSPECIFIED "shouldn't
 * be used", and GKE's answer to it is not known: refused, NOT_SIMULATED).
 */
function loggingVariantCheck(value: unknown): Result<void> {
  const variantConfig = isPlainObject(value) ? value.variantConfig : undefined;
  const variant = isPlainObject(variantConfig) ? variantConfig.variant : undefined;
  if (variant === 'DEFAULT' || variant === 'MAX_THROUGHPUT') return ok(undefined);
  return fail({
    code: 'NOT_SIMULATED',
    what: `A desiredNodePoolLoggingConfig without a DEFAULT or MAX_THROUGHPUT variant (${JSON.stringify(variant ?? null)})`,
  });
}

/**
 * The ClusterUpdate fields for the defaults of node pools: the cluster's `nodePoolAutoConfig` (for
 * auto-provisioned pools, which the simulator never creates) and `nodePoolDefaults.nodeConfigDefaults`
 * (for pools created afterwards: GKE does not change existing pools; {@link inheritPoolDefaults}). Each
 * replaces the message at its path, with an UPDATE_CLUSTER on the cluster like the other field updates.
 */
export const POOL_DEFAULT_FIELD_UPDATES: Readonly<Record<string, FieldUpdate>> = {
  desiredNodePoolAutoConfigNetworkTags: {
    path: 'nodePoolAutoConfig.networkTags',
    apply: 'replace',
    check: autoProvisionedPoolsCheck('desiredNodePoolAutoConfigNetworkTags'),
    stored: withoutEmpty,
  },
  desiredNodePoolAutoConfigResourceManagerTags: {
    path: 'nodePoolAutoConfig.resourceManagerTags',
    apply: 'replace',
    check: autoProvisionedPoolsCheck('desiredNodePoolAutoConfigResourceManagerTags'),
    stored: withoutEmpty,
  },
  // `insecureKubeletReadonlyPortEnabled` is an `optional bool`: false is kept.
  desiredNodePoolAutoConfigKubeletConfig: {
    path: 'nodePoolAutoConfig.nodeKubeletConfig',
    apply: 'replace',
    check: autoProvisionedPoolsCheck(
      'desiredNodePoolAutoConfigKubeletConfig',
      onlyFields(
        'insecureKubeletReadonlyPortEnabled',
        'insecure_kubelet_readonly_port_enabled',
        'update.desired_node_pool_auto_config_kubelet_config',
      ),
    ),
  },
  // "Currently only `cgroup_mode` can be set here" (ClusterUpdate's proto); an `optional` enum: kept.
  desiredNodePoolAutoConfigLinuxNodeConfig: {
    path: 'nodePoolAutoConfig.linuxNodeConfig',
    apply: 'replace',
    check: autoProvisionedPoolsCheck(
      'desiredNodePoolAutoConfigLinuxNodeConfig',
      onlyFields('cgroupMode', 'cgroup_mode', 'update.desired_node_pool_auto_config_linux_node_config'),
    ),
  },
  desiredNodePoolLoggingConfig: {
    path: 'nodePoolDefaults.nodeConfigDefaults.loggingConfig',
    apply: 'replace',
    check: loggingVariantCheck,
  },
  desiredNodeKubeletConfig: {
    path: 'nodePoolDefaults.nodeConfigDefaults.nodeKubeletConfig',
    apply: 'replace',
    check: onlyFields(
      'insecureKubeletReadonlyPortEnabled',
      'insecure_kubelet_readonly_port_enabled',
      'update.desired_node_kubelet_config',
    ),
  },
  // An `optional bool`: false is kept (clusters.get leaves it out: not in KEEP_FALSE).
  desiredDefaultEnablePrivateNodes: {
    path: 'networkConfig.defaultEnablePrivateNodes',
    apply: 'replace',
    check: defaultPrivateNodesCheck,
  },
};

/**
 * A NodePool input of nodePools.create with the cluster's default kubelet read-only port
 * (`nodePoolDefaults.nodeConfigDefaults.nodeKubeletConfig`) when it does not set the port itself: the
 * default is for "newly created node pools" (the Cluster's proto: "These settings are overridden if
 * specified on the specific NodePool object"), and GKE writes the port a pool has into its
 * `config.kubeletConfig` (recorded). The logging variant is not copied: recorded, a pool created
 * without one has no `config.loggingConfig` (gcloud-nodepool-crud), the cluster's default applying to
 * it on GKE's side. The cluster's `networkConfig.defaultEnablePrivateNodes` becomes the pool's
 * `networkConfig.enablePrivateNodes` when it sets none ("the value is derived from" it, NodeNetworkConfig's
 * proto).
 */
export function inheritPoolDefaults<T extends NodePoolShape>(record: ClusterRecord, input: T): T {
  return inheritPrivateNodes(record, inheritKubeletPort(record, input));
}

/** The cluster's default private nodes, for a pool that does not set its own. */
function inheritPrivateNodes<T extends NodePoolShape>(record: ClusterRecord, input: T): T {
  const network = (record.cluster as Loose).networkConfig;
  const value = isPlainObject(network) ? network.defaultEnablePrivateNodes : undefined;
  if (typeof value !== 'boolean' || ownPrivateNodes(input) !== undefined) return input;
  const own = (input as Loose).networkConfig;
  return { ...input, networkConfig: { ...(isPlainObject(own) ? own : {}), enablePrivateNodes: value } };
}

/** The cluster's default kubelet read-only port, for a pool that does not set its own. */
function inheritKubeletPort<T extends NodePoolShape>(record: ClusterRecord, input: T): T {
  const defaults = (record.cluster as Loose).nodePoolDefaults;
  const node = isPlainObject(defaults) ? defaults.nodeConfigDefaults : undefined;
  const kubelet = isPlainObject(node) ? node.nodeKubeletConfig : undefined;
  const port = isPlainObject(kubelet) ? kubelet.insecureKubeletReadonlyPortEnabled : undefined;
  if (typeof port !== 'boolean') return input;
  const config: Loose = { ...((input.config as Loose | undefined) ?? {}) };
  const given = isPlainObject(config.kubeletConfig) ? config.kubeletConfig : undefined;
  if (given?.insecureKubeletReadonlyPortEnabled !== undefined) return input;
  config.kubeletConfig = { ...(given ?? {}), insecureKubeletReadonlyPortEnabled: port };
  return { ...input, config: config as NodePoolShape['config'] };
}
