import * as z from 'zod';
import { BlueGreenPhase, LocationPolicy, NodePoolStatus, PlacementType, StatusConditionCode } from './enums';
import {
  NodeConfig,
  NodeDrainConfig,
  NodeNetworkConfig,
  NodePoolMaintenancePolicy,
  QueuedProvisioning,
  UpgradeSettings,
} from './node-config';
import { int32, int64 } from './proto';

/**
 * `NodePool` and the messages it holds (v1beta1, JSON names): hand-written because the simulator acts on
 * them; the generated `Cluster` (generated/cluster.generated.ts) reuses these.
 */

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
