import { minorOf } from './versions';

type Loose = Record<string, unknown>;

/**
 * The defaults GKE gives a new cluster or node pool that depend on the GKE version it is created at:
 * each is keyed by the minor version from which real recordings show it (or its new value). The
 * recordings, all of `GoogleCloudPlatform/k8s-config-connector`, real GKE traffic:
 *
 * - 1.29: `pkg/test/resourcefixture/testdata/basic/container/v1beta1/containernodepool/_vcr_cassettes/tf.yaml`
 *   @239fb57903d10ac2ffd9f7b3365147de3b71c460 (Terraform, v1beta1, 1.29.7-gke.1104000, 2024-08-28, raw);
 * - 1.33: `mockgcp/mockcontainer/testdata/nodepool/crud/_http.log` @554ffc8829dccca7573a612d646f521e88a347b9
 *   (gcloud, v1, 1.33.4-gke.1036000);
 * - 1.34: `pkg/test/resourcefixture/testdata/basic/container/v1beta1/containernodepool/containernodepool-swap/_http.log`
 *   @8c2160adeb699e6aaa7b46efc48555fdda7bdbc2 (Config Connector, v1beta1, 1.34.9-gke.1131000);
 * - 1.35: `pkg/test/resourcefixture/testdata/basic/container/v1beta1/containernodepool/containernodepool-kubeletconfig/_http.log`
 *   @265d1efb385e57d74b424e2290a32e3eabdf6560 (Config Connector, v1beta1, 1.35.5-gke.1241004).
 *
 * A default is keyed here only when every one of those recordings agrees with the key (absent in all
 * below it, present in all from it). Differences the version cannot explain (`networkConfig.defaultSnatStatus`:
 * present at 1.29, 1.34 and 1.35, absent at 1.33; a non-autoscaled pool's `autoscaling: {}`: only at
 * 1.33) are not keyed: the defaults follow the later recordings and the replay lists the rest.
 */

/** A default from one minor version on: the value set at `path` (dotted), or made from the node scopes. */
interface VersionedDefault {
  since: string;
  path: string;
  value: unknown | ((oauthScopes: readonly string[]) => unknown);
}

/** What node autoprovisioning would give its pools (recorded at 1.34 and 1.35: the node scopes). */
function autoprovisioningDefaults(oauthScopes: readonly string[]): Loose {
  return {
    imageType: 'COS_CONTAINERD',
    management: { autoRepair: true, autoUpgrade: true },
    oauthScopes: [...oauthScopes],
    serviceAccount: 'default',
  };
}

const CLUSTER_DEFAULTS: readonly VersionedDefault[] = [
  // ENABLED at 1.33 and 1.34, LIMITED at 1.35 (the 1.29 cassette predates the field).
  { since: '1.0', path: 'anonymousAuthenticationConfig', value: { mode: 'ENABLED' } },
  { since: '1.35', path: 'anonymousAuthenticationConfig', value: { mode: 'LIMITED' } },
  // Absent at 1.29 and 1.33, present at 1.34 and 1.35.
  { since: '1.34', path: 'addonsConfig.dnsCacheConfig', value: { enabled: true } },
  { since: '1.34', path: 'controlPlaneEgress', value: { mode: 'VIA_CONTROL_PLANE' } },
  { since: '1.34', path: 'controlPlaneEndpointsConfig.dnsEndpointConfig.enableK8sCertsViaDns', value: false },
  {
    since: '1.34',
    path: 'ipAllocationPolicy.networkTierConfig',
    value: { networkTier: 'NETWORK_TIER_DEFAULT' },
  },
  // Absent at 1.29 (Terraform sent `autoscaling`, as Config Connector does at 1.34 and 1.35) and at
  // 1.33 (gcloud sent none): what was sent does not explain it, the version explains all four.
  { since: '1.34', path: 'autoscaling.autoprovisioningNodePoolDefaults', value: autoprovisioningDefaults },
  // Absent at 1.34, present at 1.35 (same client, same request).
  { since: '1.35', path: 'addonsConfig.nodeReadinessConfig', value: {} },
  { since: '1.35', path: 'nodeCreationConfig', value: { nodeCreationMode: 'VIA_KUBELET' } },
];

const POOL_DEFAULTS: readonly VersionedDefault[] = [
  // A pool's `networkConfig.networkTierConfig`: absent at 1.29 and 1.33, present at 1.34 and 1.35.
  { since: '1.34', path: 'networkConfig.networkTierConfig', value: { networkTier: 'NETWORK_TIER_DEFAULT' } },
];

/** True when `version` is at `since` (a `1.X` minor) or later; an unparseable version counts as the newest. */
function isAtLeast(version: string, since: string): boolean {
  const minor = minorOf(version);
  if (minor < 0) return true;
  const [major, min] = since.split('.').map(Number) as [number, number];
  return minor >= major * 1000 + min;
}

function setPath(target: Loose, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) node[key] = {};
    node = node[key] as Loose;
  }
  node[keys[keys.length - 1] as string] = structuredClone(value);
}

function build(table: readonly VersionedDefault[], version: string, scopes: readonly string[]): Loose {
  const out: Loose = {};
  for (const entry of table) {
    if (!isAtLeast(version, entry.since)) continue;
    setPath(out, entry.path, typeof entry.value === 'function' ? entry.value(scopes) : entry.value);
  }
  return out;
}

/** The version-keyed defaults of a cluster created at `version` (its initial master version). */
export function clusterVersionDefaults(version: string, oauthScopes: readonly string[]): Loose {
  return build(CLUSTER_DEFAULTS, version, oauthScopes);
}

/** The version-keyed defaults of a node pool created at `version` (the pool's own version). */
export function poolVersionDefaults(version: string): Loose {
  return build(POOL_DEFAULTS, version, []);
}
