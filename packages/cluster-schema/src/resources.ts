import * as z from 'zod';
import {
  AutoUpgradePausedReason,
  AutoUpgradeStatus,
  BlueGreenPhase,
  ClusterStatus,
  LocationPolicy,
  NodePoolStatus,
  OperationStatus,
  OperationType,
  PlacementType,
  ReleaseChannelName,
  StatusConditionCode,
  UpgradeDetailsState,
  UpgradeStartType,
} from './enums';
import {
  NodeConfig,
  NodeDrainConfig,
  NodeNetworkConfig,
  NodePoolMaintenancePolicy,
  QueuedProvisioning,
  UpgradeSettings,
} from './node-config';
import { int32, int64, timestamp } from './proto';
import { RpcStatus } from './status';

export const StatusCondition = z.object({
  code: StatusConditionCode.optional(),
  message: z.string().optional(),
  canonicalCode: z.string().optional(),
});

export const NodePoolAutoscaling = z.object({
  enabled: z.boolean().optional(),
  minNodeCount: int32.optional(),
  maxNodeCount: int32.optional(),
  autoprovisioned: z.boolean().optional(),
  locationPolicy: LocationPolicy.optional(),
  totalMinNodeCount: int32.optional(),
  totalMaxNodeCount: int32.optional(),
});

export const NodeManagement = z.object({
  autoUpgrade: z.boolean().optional(),
  autoRepair: z.boolean().optional(),
  upgradeOptions: z
    .object({ autoUpgradeStartTime: z.string().optional(), description: z.string().optional() })
    .optional(),
});

/** `NodePool` (v1beta1). `etag` is a server checksum of the pool's content. */
export const NodePool = z.object({
  name: z.string().optional(),
  config: NodeConfig.optional(),
  initialNodeCount: int32.optional(),
  locations: z.array(z.string()).optional(),
  networkConfig: NodeNetworkConfig.optional(),
  selfLink: z.string().optional(),
  version: z.string().optional(),
  instanceGroupUrls: z.array(z.string()).optional(),
  status: NodePoolStatus.optional(),
  statusMessage: z.string().optional(),
  autoscaling: NodePoolAutoscaling.optional(),
  management: NodeManagement.optional(),
  maxPodsConstraint: z.object({ maxPodsPerNode: int64.optional() }).optional(),
  conditions: z.array(StatusCondition).optional(),
  podIpv4CidrSize: int32.optional(),
  upgradeSettings: UpgradeSettings.optional(),
  placementPolicy: z
    .object({
      type: PlacementType.optional(),
      tpuTopology: z.string().optional(),
      policyName: z.string().optional(),
    })
    .optional(),
  updateInfo: z
    .object({
      blueGreenInfo: z
        .object({
          phase: BlueGreenPhase.optional(),
          blueInstanceGroupUrls: z.array(z.string()).optional(),
          greenInstanceGroupUrls: z.array(z.string()).optional(),
          bluePoolDeletionStartTime: z.string().optional(),
          greenPoolVersion: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  etag: z.string().optional(),
  queuedProvisioning: QueuedProvisioning.optional(),
  bestEffortProvisioning: z
    .object({ enabled: z.boolean().optional(), minProvisionNodes: int32.optional() })
    .optional(),
  nodeDrainConfig: NodeDrainConfig.optional(),
  maintenancePolicy: NodePoolMaintenancePolicy.optional(),
});

/** The fields of `Cluster` a node pool client needs, kept consistent with the pools. */
export const Cluster = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  initialNodeCount: int32.optional(),
  nodeConfig: NodeConfig.optional(),
  network: z.string().optional(),
  subnetwork: z.string().optional(),
  clusterIpv4Cidr: z.string().optional(),
  nodePools: z.array(NodePool).optional(),
  locations: z.array(z.string()).optional(),
  resourceLabels: z.record(z.string(), z.string()).optional(),
  labelFingerprint: z.string().optional(),
  releaseChannel: z.object({ channel: ReleaseChannelName.optional() }).optional(),
  selfLink: z.string().optional(),
  zone: z.string().optional(),
  endpoint: z.string().optional(),
  initialClusterVersion: z.string().optional(),
  currentMasterVersion: z.string().optional(),
  currentNodeVersion: z.string().optional(),
  createTime: timestamp.optional(),
  status: ClusterStatus.optional(),
  statusMessage: z.string().optional(),
  nodeIpv4CidrSize: int32.optional(),
  servicesIpv4Cidr: z.string().optional(),
  currentNodeCount: int32.optional(),
  expireTime: timestamp.optional(),
  location: z.string().optional(),
  conditions: z.array(StatusCondition).optional(),
  etag: z.string().optional(),
  id: z.string().optional(),
});

export const ReleaseChannelConfig = z.object({
  channel: ReleaseChannelName.optional(),
  defaultVersion: z.string().optional(),
  validVersions: z.array(z.string()).optional(),
  upgradeTargetVersion: z.string().optional(),
});

/** `ServerConfig`: version lists are in descending order. */
export const ServerConfig = z.object({
  defaultClusterVersion: z.string().optional(),
  validNodeVersions: z.array(z.string()).optional(),
  defaultImageType: z.string().optional(),
  validImageTypes: z.array(z.string()).optional(),
  validMasterVersions: z.array(z.string()).optional(),
  channels: z.array(ReleaseChannelConfig).optional(),
});

/** `OperationProgress.Metric`: exactly one of the values is set; intValue is an int64 string. */
export const OperationMetric = z.object({
  name: z.string(),
  intValue: int64.optional(),
  doubleValue: z.number().optional(),
  stringValue: z.string().optional(),
});

export interface OperationProgressShape {
  name?: string;
  status?: z.infer<typeof OperationStatus>;
  metrics?: z.infer<typeof OperationMetric>[];
  stages?: OperationProgressShape[];
}

export const OperationProgress: z.ZodType<OperationProgressShape> = z.object({
  name: z.string().optional(),
  status: OperationStatus.optional(),
  metrics: z.array(OperationMetric).optional(),
  get stages() {
    return z.array(OperationProgress).optional();
  },
});

/**
 * GKE's own `Operation` (not google.longrunning): `name` is the short id, callers poll until
 * `status == "DONE"`; a failure sets both `statusMessage` and `error`.
 */
export const Operation = z.object({
  name: z.string().optional(),
  zone: z.string().optional(),
  operationType: OperationType.optional(),
  status: OperationStatus.optional(),
  detail: z.string().optional(),
  statusMessage: z.string().optional(),
  selfLink: z.string().optional(),
  targetLink: z.string().optional(),
  location: z.string().optional(),
  startTime: timestamp.optional(),
  endTime: timestamp.optional(),
  progress: OperationProgress.optional(),
  clusterConditions: z.array(StatusCondition).optional(),
  nodepoolConditions: z.array(StatusCondition).optional(),
  error: RpcStatus.optional(),
});

export const ListNodePoolsResponse = z.object({ nodePools: z.array(NodePool).optional() });
export const ListClustersResponse = z.object({
  clusters: z.array(Cluster).optional(),
  missingZones: z.array(z.string()).optional(),
});
export const ListOperationsResponse = z.object({
  operations: z.array(Operation).optional(),
  missingZones: z.array(z.string()).optional(),
});
export const Empty = z.object({});

/** `UpgradeDetails`: one past or running upgrade of a node pool. */
export const UpgradeDetails = z.object({
  state: UpgradeDetailsState.optional(),
  startTime: timestamp.optional(),
  endTime: timestamp.optional(),
  initialVersion: z.string().optional(),
  targetVersion: z.string().optional(),
  startType: UpgradeStartType.optional(),
  initialEmulatedVersion: z.string().optional(),
  targetEmulatedVersion: z.string().optional(),
});

/** `NodePoolUpgradeInfo` (nodePools.fetchNodePoolUpgradeInfo). */
export const NodePoolUpgradeInfo = z.object({
  minorTargetVersion: z.string().optional(),
  patchTargetVersion: z.string().optional(),
  autoUpgradeStatus: z.array(AutoUpgradeStatus).optional(),
  pausedReason: z.array(AutoUpgradePausedReason).optional(),
  upgradeDetails: z.array(UpgradeDetails).optional(),
  endOfStandardSupportTimestamp: z.string().optional(),
  endOfExtendedSupportTimestamp: z.string().optional(),
});
