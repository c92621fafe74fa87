/**
 * What cluster-sim does with each RPC of the container API's discovery table (`methods.generated.ts`):
 * every method of an RPC (both API versions, the `locations` and the legacy `zones` forms) is simulated,
 * or refused with 501 UNIMPLEMENTED naming the method and the reason below (never the URL-not-found
 * page). FIDELITY.md lists every method with its state.
 *
 * An RPC served through the discovery table (a spec in `discoverySpecs`, routes/cluster-setters.ts) is
 * simulated by that row and has no entry here: the row is the one place a new method is added
 * (`methodState` in routes/discovery.ts reads both). The RPCs listed `simulated` are those the family
 * route tables serve, which the discovery middleware leaves to them.
 */
export type MethodState = { state: 'simulated' } | { state: 'refused'; reason: string };

const simulated: MethodState = { state: 'simulated' };
const refused = (reason: string): MethodState => ({ state: 'refused', reason });

export const METHOD_STATES: Readonly<Record<string, MethodState>> = {
  CancelOperation: simulated,
  CheckAutopilotCompatibility: refused(
    "the check reports what the cluster's Kubernetes workloads would need under Autopilot (GKE's workload auditor, turned on by `autopilotCompatibilityAuditingEnabled` from GKE 1.31.6-gke.1027000), and cluster-sim runs no workloads; GKE's answer for a cluster without them is not recorded anywhere public",
  ),
  CompleteControlPlaneUpgrade: refused(
    'control plane upgrades have no soak phase to complete in cluster-sim',
  ),
  CompleteNodePoolUpgrade: simulated,
  CreateCluster: simulated,
  CreateNodePool: simulated,
  DeleteCluster: simulated,
  DeleteNodePool: simulated,
  FetchNodePoolUpgradeInfo: simulated,
  GetCluster: simulated,
  GetNodePool: simulated,
  GetOperation: simulated,
  GetServerConfig: simulated,
  ListClusters: simulated,
  ListNodePools: simulated,
  ListOperations: simulated,
  RollbackNodePoolUpgrade: simulated,
  SetNodePoolAutoscaling: simulated,
  SetNodePoolManagement: simulated,
  SetNodePoolSize: simulated,
  UpdateCluster: simulated,
  UpdateNodePool: simulated,
};
