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
import { duration, int32, int64, markBetaOnly } from './proto';
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

/** A ClusterUpdate field the simulator does not act on: any JSON value, refused by the domain. */
const notActedOn = z.unknown().optional();

/** The fields of the Cluster's `networkConfig` message (several ClusterUpdate fields land there). */
function networkConfigShape() {
  return Cluster.shape.networkConfig.unwrap().shape;
}

/** The fields of the Cluster's `nodePoolAutoConfig` message (auto-provisioned pools' settings). */
function autoConfigShape() {
  return Cluster.shape.nodePoolAutoConfig.unwrap().shape;
}

/** The fields of the Cluster's `nodePoolDefaults.nodeConfigDefaults` message (new pools' settings). */
function nodeConfigDefaultsShape() {
  return Cluster.shape.nodePoolDefaults.unwrap().shape.nodeConfigDefaults.unwrap().shape;
}

/**
 * `ClusterUpdate`: every field of the v1beta1 message (in the proto's order), so that any other name is
 * an unknown one, and under v1 those only v1beta1 has. The fields the simulator acts on are typed (the
 * `desired*` messages as the Cluster's own fields of the same message, so v1 refuses their v1beta1-only
 * fields); the others pass the parser as they come and are refused by the domain.
 */
export const ClusterUpdate = markBetaOnly(
  z.object({
    desiredNodeVersion: z.string().optional(),
    desiredMonitoringService: z.string().optional(),
    get desiredAddonsConfig() {
      return Cluster.shape.addonsConfig;
    },
    desiredNodePoolId: z.string().optional(),
    desiredImageType: z.string().optional(),
    desiredNodePoolAutoscaling: NodePoolAutoscaling.optional(),
    desiredLocations: z.array(z.string()).optional(),
    get desiredMasterAuthorizedNetworksConfig() {
      return Cluster.shape.masterAuthorizedNetworksConfig;
    },
    desiredPodSecurityPolicyConfig: notActedOn,
    get desiredClusterAutoscaling() {
      return Cluster.shape.autoscaling;
    },
    get desiredBinaryAuthorization() {
      return Cluster.shape.binaryAuthorization;
    },
    desiredLoggingService: z.string().optional(),
    get desiredResourceUsageExportConfig() {
      return Cluster.shape.resourceUsageExportConfig;
    },
    get desiredVerticalPodAutoscaling() {
      return Cluster.shape.verticalPodAutoscaling;
    },
    get desiredPrivateClusterConfig() {
      return Cluster.shape.privateClusterConfig;
    },
    desiredIntraNodeVisibilityConfig: notActedOn,
    get desiredDefaultSnatStatus() {
      return networkConfigShape().defaultSnatStatus;
    },
    get desiredClusterTelemetry() {
      return Cluster.shape.clusterTelemetry;
    },
    get desiredReleaseChannel() {
      return Cluster.shape.releaseChannel;
    },
    privateClusterConfig: notActedOn,
    desiredTpuConfig: notActedOn,
    desiredL4ilbSubsettingConfig: z.object({ enabled: z.boolean().optional() }).optional(),
    desiredDatapathProvider: notActedOn,
    get desiredPrivateIpv6GoogleAccess() {
      return networkConfigShape().privateIpv6GoogleAccess;
    },
    get desiredNotificationConfig() {
      return Cluster.shape.notificationConfig;
    },
    desiredMasterVersion: z.string().optional(),
    desiredGcfsConfig: notActedOn,
    desiredImage: notActedOn,
    desiredImageProject: notActedOn,
    desiredDatabaseEncryption: notActedOn,
    get desiredWorkloadIdentityConfig() {
      return Cluster.shape.workloadIdentityConfig;
    },
    desiredWorkloadCertificates: notActedOn,
    get desiredMeshCertificates() {
      return Cluster.shape.meshCertificates;
    },
    desiredWorkloadAltsConfig: notActedOn,
    desiredShieldedNodes: notActedOn,
    get desiredCostManagementConfig() {
      return Cluster.shape.costManagementConfig;
    },
    desiredMaster: notActedOn,
    desiredDnsConfig: notActedOn,
    get desiredServiceExternalIpsConfig() {
      return networkConfigShape().serviceExternalIpsConfig;
    },
    get desiredAuthenticatorGroupsConfig() {
      return Cluster.shape.authenticatorGroupsConfig;
    },
    get desiredLoggingConfig() {
      return Cluster.shape.loggingConfig;
    },
    get desiredMonitoringConfig() {
      return Cluster.shape.monitoringConfig;
    },
    get desiredIdentityServiceConfig() {
      return Cluster.shape.identityServiceConfig;
    },
    desiredEnablePrivateEndpoint: z.boolean().optional(),
    desiredDefaultEnablePrivateNodes: z.boolean().optional(),
    get desiredControlPlaneEndpointsConfig() {
      return Cluster.shape.controlPlaneEndpointsConfig;
    },
    get desiredNodePoolAutoConfigNetworkTags() {
      return autoConfigShape().networkTags;
    },
    desiredProtectConfig: notActedOn,
    get desiredPodAutoscaling() {
      return Cluster.shape.podAutoscaling;
    },
    get desiredGatewayApiConfig() {
      return networkConfigShape().gatewayApiConfig;
    },
    etag: z.string().optional(),
    get desiredNodePoolLoggingConfig() {
      return nodeConfigDefaultsShape().loggingConfig;
    },
    desiredFleet: notActedOn,
    desiredStackType: notActedOn,
    additionalPodRangesConfig: notActedOn,
    removedAdditionalPodRangesConfig: notActedOn,
    enableK8sBetaApis: notActedOn,
    get desiredSecurityPostureConfig() {
      return Cluster.shape.securityPostureConfig;
    },
    desiredNetworkPerformanceConfig: notActedOn,
    desiredEnableFqdnNetworkPolicy: z.boolean().optional(),
    desiredAutopilotWorkloadPolicyConfig: notActedOn,
    get desiredK8sBetaApis() {
      return Cluster.shape.enableK8sBetaApis;
    },
    desiredHostMaintenancePolicy: notActedOn,
    desiredContainerdConfig: notActedOn,
    desiredEnableMultiNetworking: notActedOn,
    get desiredNodePoolAutoConfigResourceManagerTags() {
      return autoConfigShape().resourceManagerTags;
    },
    get desiredInTransitEncryptionConfig() {
      return networkConfigShape().inTransitEncryptionConfig;
    },
    desiredEnableCiliumClusterwideNetworkPolicy: z.boolean().optional(),
    desiredSecretManagerConfig: notActedOn,
    desiredCompliancePostureConfig: notActedOn,
    get desiredNodeKubeletConfig() {
      return nodeConfigDefaultsShape().nodeKubeletConfig;
    },
    get desiredNodePoolAutoConfigKubeletConfig() {
      return autoConfigShape().nodeKubeletConfig;
    },
    userManagedKeysConfig: notActedOn,
    desiredRbacBindingConfig: notActedOn,
    desiredAdditionalIpRangesConfig: notActedOn,
    desiredEnterpriseConfig: notActedOn,
    desiredAutoIpamConfig: notActedOn,
    desiredDisableL4LbFirewallReconciliation: notActedOn,
    get desiredNodePoolAutoConfigLinuxNodeConfig() {
      return autoConfigShape().linuxNodeConfig;
    },
    desiredUserManagedKeysConfig: notActedOn,
    desiredAnonymousAuthenticationConfig: notActedOn,
    gkeAutoUpgradeConfig: notActedOn,
    desiredNetworkTierConfig: notActedOn,
    desiredScheduleUpgradeConfig: notActedOn,
    desiredSecretSyncConfig: notActedOn,
    desiredPrivilegedAdmissionConfig: notActedOn,
    desiredControlPlaneEgress: notActedOn,
    desiredRollbackSafeUpgrade: notActedOn,
    desiredNodePoolUpgradeConcurrencyConfig: notActedOn,
    desiredManagedOpentelemetryConfig: notActedOn,
    desiredAutopilotClusterPolicyConfig: notActedOn,
    desiredManagedMachineLearningDiagnosticsConfig: notActedOn,
    desiredNodeCreationConfig: notActedOn,
  }),
  [
    'desiredPodSecurityPolicyConfig',
    'desiredClusterTelemetry',
    'privateClusterConfig',
    'desiredTpuConfig',
    'desiredImage',
    'desiredImageProject',
    'desiredWorkloadCertificates',
    'desiredWorkloadAltsConfig',
    'desiredMaster',
    'desiredProtectConfig',
    'desiredHostMaintenancePolicy',
    'desiredScheduleUpgradeConfig',
    'desiredRollbackSafeUpgrade',
    'desiredNodePoolUpgradeConcurrencyConfig',
  ],
);

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
