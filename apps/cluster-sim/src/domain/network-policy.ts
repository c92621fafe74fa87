import { fail, ok, type Result } from './errors';
import type { ClusterShape } from './state';

/*
 * Network policy: the control plane's addon (`addonsConfig.networkPolicyConfig`) and the nodes'
 * enforcement (`networkPolicy`).
 */

/** Whether the cluster's NetworkPolicy addon (the control plane's part of network policy) is on. */
export function networkPolicyAddonOn(cluster: ClusterShape): boolean {
  const addon = cluster.addonsConfig?.networkPolicyConfig as { disabled?: boolean } | undefined;
  return addon !== undefined && addon.disabled !== true;
}

/** Whether network policy is enforced on the cluster's nodes. */
export function networkPolicyOn(cluster: ClusterShape): boolean {
  return (cluster.networkPolicy as { enabled?: boolean } | undefined)?.enabled === true;
}

/**
 * The NetworkPolicy addon cannot be turned off while the nodes enforce network policy: GKE's 400
 * `Network policy addon cannot be removed until network policy has been disabled on the nodes.` (quoted
 * in rancher/dashboard#3941). Used by setAddons and clusters.update's desiredAddonsConfig.
 */
export function checkNetworkPolicyAddon(
  cluster: ClusterShape,
  addonsConfig: Record<string, unknown>,
): Result<undefined> {
  const sent = addonsConfig.networkPolicyConfig as { disabled?: boolean } | undefined;
  if (sent?.disabled === true && networkPolicyAddonOn(cluster) && networkPolicyOn(cluster)) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'Network policy addon cannot be removed until network policy has been disabled on the nodes.',
    });
  }
  return ok(undefined);
}

/**
 * GKE Dataplane V2 enforces network policy itself: enabling Calico's on such a cluster (create or
 * setNetworkPolicy) is GKE's 400 `Enabling NetworkPolicy for clusters with DatapathProvider=ADVANCED_DATAPATH
 * is not allowed.` (GKE's Dataplane V2 guide, quoted in hashicorp/terraform-provider-google#11334).
 */
export function checkDataplaneNetworkPolicy(cluster: ClusterShape, enable: boolean): Result<undefined> {
  const datapath = (cluster.networkConfig as { datapathProvider?: string } | undefined)?.datapathProvider;
  if (enable && datapath === 'ADVANCED_DATAPATH') {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'Enabling NetworkPolicy for clusters with DatapathProvider=ADVANCED_DATAPATH is not allowed.',
    });
  }
  return ok(undefined);
}

/**
 * clusters.create with enforcement on and the addon explicitly off: GKE's precondition text for
 * setNetworkPolicy (its answer to create is not public; chosen). Without a word on the addon, the
 * cluster gets it (cluster-defaults.ts).
 */
export function checkCreateNetworkPolicy(cluster: ClusterShape): Result<undefined> {
  const enable = networkPolicyOn(cluster);
  const dataplane = checkDataplaneNetworkPolicy(cluster, enable);
  if (!dataplane.ok) return dataplane;
  const addon = cluster.addonsConfig?.networkPolicyConfig as { disabled?: boolean } | undefined;
  if (enable && addon?.disabled === true) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'The network policy addon must be enabled before updating the nodes.',
    });
  }
  return ok(undefined);
}
