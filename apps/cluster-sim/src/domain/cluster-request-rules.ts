import { fail, type Result } from './errors';
import { checkCreateNetworkPolicy } from './network-policy';
import type { ClusterShape } from './state';

/**
 * What clusters.create refuses before it looks at the project's clusters: GKE's rules on a new
 * cluster's name and its node pools, with GKE's texts where public logs of real answers show them.
 */

/** A cluster name as GKE takes it: 1 to 40 lowercase letters, digits and hyphens, from a letter to a letter or digit. */
const CLUSTER_NAME = /^(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)$/;

/** The longest part of a value an error quotes (no answer echoes an unbounded input). */
const MAX_ECHO = 200;

const quoted = (value: string): string =>
  JSON.stringify(value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value);

const invalid = (message: string): Result<never> => fail({ code: 'INVALID_REQUEST', message });

/**
 * - The name: GKE's text as gcloud printed it in 2024 (otrack/cloud-computing-infrastructures#17; the
 *   2018-2020 form said "only alphanumerics", rancher/rancher#12734, cloudfoundry-incubator/kubecf#1060).
 * - A node pool without a name: `Node_pool.name must be specified.` (pulumi/pulumi-google-native#270).
 * - No node pool and no positive `initialNodeCount`: `Cluster.initial_node_count must be greater than
 *   zero.` (hashicorp/terraform-provider-google#2104 and #13540, 2018 and 2023).
 * - `initialNodeCount` beside `nodePools`: the reference says "Do not use this and a node_pool at the
 *   same time"; GKE's answer is not in public logs, the text is the simulator's.
 */
export function checkCreateRequest(input: ClusterShape & { name: string }): Result<void> {
  if (!CLUSTER_NAME.test(input.name)) {
    return invalid(
      `Invalid value for field "cluster.name": ${quoted(input.name)}. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)' (only lowercase alphanumerics and '-' allowed, must start with a letter and end with an alphanumeric, and must be no longer than 40 characters).`,
    );
  }
  const pools = input.nodePools ?? [];
  if (pools.some((p) => !p.name)) return invalid('Node_pool.name must be specified.');
  const names = new Set<string>();
  for (const p of pools) {
    if (names.has(p.name ?? '')) return fail({ code: 'POOL_NAME_REPEATED', nodePool: p.name ?? '' });
    names.add(p.name ?? '');
  }
  const count = input.initialNodeCount ?? 0;
  if (pools.length > 0 && count > 0) {
    return invalid(
      'Cluster.initial_node_count must not be set when node_pools are specified; set node_pools[].initial_node_count instead.',
    );
  }
  if (pools.length === 0 && count <= 0)
    return invalid('Cluster.initial_node_count must be greater than zero.');
  return checkCreateNetworkPolicy(input);
}
