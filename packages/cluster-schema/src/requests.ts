import * as z from 'zod';
import {
  AcceleratorConfig,
  BootDisk,
  ConfidentialNodes,
  ContainerdConfig,
  FastSocket,
  GcfsConfig,
  LinuxNodeConfig,
  NetworkTags,
  NodeDrainConfig,
  NodeKubeletConfig,
  NodeLabels,
  NodeNetworkConfig,
  NodePoolLoggingConfig,
  NodePoolMaintenancePolicy,
  NodeTaints,
  QueuedProvisioning,
  ResourceLabels,
  ResourceManagerTags,
  TaintConfig,
  UpgradeSettings,
  VirtualNIC,
  WindowsNodeConfig,
  WorkloadMetadataConfig,
} from './node-config';
import { duration, int32, int64 } from './proto';
import { Cluster, NodeManagement, NodePool, NodePoolAutoscaling } from './resources';

/**
 * `UpdateNodePoolRequest` (v1beta1): every field of the seed's table 2.1 plus the newer ones of the
 * 6.10.0 proto. "Required" fields are not enforced by the real server (recorded PUTs carrying only
 * `kubeletConfig` succeeded), so everything is optional here and absent means unchanged.
 */
export const UpdateNodePoolRequest = z.object({
  projectId: z.string().optional(),
  zone: z.string().optional(),
  clusterId: z.string().optional(),
  nodePoolId: z.string().optional(),
  name: z.string().optional(),
  nodeVersion: z.string().optional(),
  imageType: z.string().optional(),
  image: z.string().optional(),
  imageProject: z.string().optional(),
  locations: z.array(z.string()).optional(),
  workloadMetadataConfig: WorkloadMetadataConfig.optional(),
  upgradeSettings: UpgradeSettings.optional(),
  tags: NetworkTags.optional(),
  taints: NodeTaints.optional(),
  labels: NodeLabels.optional(),
  linuxNodeConfig: LinuxNodeConfig.optional(),
  kubeletConfig: NodeKubeletConfig.optional(),
  nodeNetworkConfig: NodeNetworkConfig.optional(),
  gcfsConfig: GcfsConfig.optional(),
  confidentialNodes: ConfidentialNodes.optional(),
  gvnic: VirtualNIC.optional(),
  etag: z.string().optional(),
  fastSocket: FastSocket.optional(),
  loggingConfig: NodePoolLoggingConfig.optional(),
  resourceLabels: ResourceLabels.optional(),
  windowsNodeConfig: WindowsNodeConfig.optional(),
  accelerators: z.array(AcceleratorConfig).optional(),
  machineType: z.string().optional(),
  diskType: z.string().optional(),
  diskSizeGb: int64.optional(),
  resourceManagerTags: ResourceManagerTags.optional(),
  containerdConfig: ContainerdConfig.optional(),
  queuedProvisioning: QueuedProvisioning.optional(),
  storagePools: z.array(z.string()).optional(),
  maxRunDuration: duration.optional(),
  flexStart: z.boolean().optional(),
  bootDisk: BootDisk.optional(),
  nodeDrainConfig: NodeDrainConfig.optional(),
  consolidationDelay: duration.optional(),
  taintConfig: TaintConfig.optional(),
  maintenancePolicy: NodePoolMaintenancePolicy.optional(),
});

/** `CreateNodePoolRequest`: `{ nodePool, parent? }` plus the deprecated ids. */
export const CreateNodePoolRequest = z.object({
  projectId: z.string().optional(),
  zone: z.string().optional(),
  clusterId: z.string().optional(),
  parent: z.string().optional(),
  nodePool: NodePool.optional(),
});

/** `CreateClusterRequest`: `{ cluster, parent? }` plus the deprecated ids. */
export const CreateClusterRequest = z.object({
  projectId: z.string().optional(),
  zone: z.string().optional(),
  parent: z.string().optional(),
  cluster: Cluster.optional(),
});

/**
 * `ClusterUpdate`: the fields the simulator acts on are typed (the `desired*` messages as the Cluster's
 * own fields of the same message, so v1 refuses their v1beta1-only fields); the many others of the real
 * message pass the parser as they come and are refused by the domain.
 */
export const ClusterUpdate = z.looseObject({
  desiredNodeVersion: z.string().optional(),
  desiredMasterVersion: z.string().optional(),
  desiredNodePoolId: z.string().optional(),
  desiredImageType: z.string().optional(),
  desiredNodePoolAutoscaling: NodePoolAutoscaling.optional(),
  desiredLocations: z.array(z.string()).optional(),
  desiredLoggingService: z.string().optional(),
  desiredMonitoringService: z.string().optional(),
  get desiredAddonsConfig() {
    return Cluster.shape.addonsConfig;
  },
  get desiredLoggingConfig() {
    return Cluster.shape.loggingConfig;
  },
  get desiredMonitoringConfig() {
    return Cluster.shape.monitoringConfig;
  },
  get desiredVerticalPodAutoscaling() {
    return Cluster.shape.verticalPodAutoscaling;
  },
  get desiredReleaseChannel() {
    return Cluster.shape.releaseChannel;
  },
  get desiredBinaryAuthorization() {
    return Cluster.shape.binaryAuthorization;
  },
  get desiredNotificationConfig() {
    return Cluster.shape.notificationConfig;
  },
  get desiredResourceUsageExportConfig() {
    return Cluster.shape.resourceUsageExportConfig;
  },
  etag: z.string().optional(),
});

/** `UpdateClusterRequest`: `{ update, name? }` plus the deprecated ids. */
export const UpdateClusterRequest = z.object({
  projectId: z.string().optional(),
  zone: z.string().optional(),
  clusterId: z.string().optional(),
  name: z.string().optional(),
  update: ClusterUpdate.optional(),
});

/** The deprecated ids every node pool method's body may carry besides `name`. */
const poolIds = {
  projectId: z.string().optional(),
  zone: z.string().optional(),
  clusterId: z.string().optional(),
  nodePoolId: z.string().optional(),
  name: z.string().optional(),
};

/** `SetNodePoolSizeRequest`: `nodeCount` (int32, required) is the new per-zone count. */
export const SetNodePoolSizeRequest = z.object({ ...poolIds, nodeCount: int32.optional() });

/** `SetNodePoolManagementRequest`: `management` (required) replaces the pool's NodeManagement. */
export const SetNodePoolManagementRequest = z.object({ ...poolIds, management: NodeManagement.optional() });

/** `SetNodePoolAutoscalingRequest`: `autoscaling` (required) replaces the pool's NodePoolAutoscaling. */
export const SetNodePoolAutoscalingRequest = z.object({
  ...poolIds,
  autoscaling: NodePoolAutoscaling.optional(),
});

/** `RollbackNodePoolUpgradeRequest`: `respectPdb` (default false) keeps PodDisruptionBudgets while draining. */
export const RollbackNodePoolUpgradeRequest = z.object({ ...poolIds, respectPdb: z.boolean().optional() });

/** `CompleteNodePoolUpgradeRequest`: an empty message. */
export const CompleteNodePoolUpgradeRequest = z.object({});

/** `CancelOperationRequest`: usually `{}`. */
export const CancelOperationRequest = z.object({
  projectId: z.string().optional(),
  zone: z.string().optional(),
  operationId: z.string().optional(),
  name: z.string().optional(),
});

export type UpdateNodePoolRequestShape = z.infer<typeof UpdateNodePoolRequest>;
export type CreateNodePoolRequestShape = z.infer<typeof CreateNodePoolRequest>;
export type CreateClusterRequestShape = z.infer<typeof CreateClusterRequest>;
export type UpdateClusterRequestShape = z.infer<typeof UpdateClusterRequest>;
export type SetNodePoolSizeRequestShape = z.infer<typeof SetNodePoolSizeRequest>;
export type SetNodePoolManagementRequestShape = z.infer<typeof SetNodePoolManagementRequest>;
export type SetNodePoolAutoscalingRequestShape = z.infer<typeof SetNodePoolAutoscalingRequest>;
export type RollbackNodePoolUpgradeRequestShape = z.infer<typeof RollbackNodePoolUpgradeRequest>;
