import * as z from 'zod';
import {
  AutoUpgradePausedReason,
  AutoUpgradeStatus,
  OperationStatus,
  OperationType,
  ReleaseChannelName,
  UpgradeDetailsState,
  UpgradeStartType,
} from './enums';
import { Cluster } from './generated/cluster.generated';
import { NodeManagement, NodePool, NodePoolAutoscaling, StatusCondition } from './node-pool';
import { int64, timestamp } from './proto';
import { RpcStatus } from './status';

export { Cluster, NodeManagement, NodePool, NodePoolAutoscaling, StatusCondition };

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
