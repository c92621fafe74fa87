import { protoEnum } from './proto';

/** `Operation.Status`: DONE means completed or cancelled. */
export const OperationStatus = protoEnum(
  {
    STATUS_UNSPECIFIED: 0,
    PENDING: 1,
    RUNNING: 2,
    DONE: 3,
    ABORTING: 4,
  },
  'google.container.v1beta1.Operation.Status',
);

/** `Operation.Type` (no 17). */
export const OperationType = protoEnum(
  {
    TYPE_UNSPECIFIED: 0,
    CREATE_CLUSTER: 1,
    DELETE_CLUSTER: 2,
    UPGRADE_MASTER: 3,
    UPGRADE_NODES: 4,
    REPAIR_CLUSTER: 5,
    UPDATE_CLUSTER: 6,
    CREATE_NODE_POOL: 7,
    DELETE_NODE_POOL: 8,
    SET_NODE_POOL_MANAGEMENT: 9,
    AUTO_REPAIR_NODES: 10,
    AUTO_UPGRADE_NODES: 11,
    SET_LABELS: 12,
    SET_MASTER_AUTH: 13,
    SET_NODE_POOL_SIZE: 14,
    SET_NETWORK_POLICY: 15,
    SET_MAINTENANCE_POLICY: 16,
    RESIZE_CLUSTER: 18,
    FLEET_FEATURE_UPGRADE: 19,
  },
  'google.container.v1beta1.Operation.Type',
);

export const NodePoolStatus = protoEnum(
  {
    STATUS_UNSPECIFIED: 0,
    PROVISIONING: 1,
    RUNNING: 2,
    RUNNING_WITH_ERROR: 3,
    RECONCILING: 4,
    STOPPING: 5,
    ERROR: 6,
  },
  'google.container.v1beta1.NodePool.Status',
);

export const ClusterStatus = protoEnum(
  {
    STATUS_UNSPECIFIED: 0,
    PROVISIONING: 1,
    RUNNING: 2,
    RECONCILING: 3,
    STOPPING: 4,
    ERROR: 5,
    DEGRADED: 6,
  },
  'google.container.v1beta1.Cluster.Status',
);

export const ReleaseChannelName = protoEnum(
  { UNSPECIFIED: 0, RAPID: 1, REGULAR: 2, STABLE: 3, EXTENDED: 4 },
  'google.container.v1beta1.ReleaseChannel.Channel',
);

export const TaintEffect = protoEnum(
  {
    EFFECT_UNSPECIFIED: 0,
    NO_SCHEDULE: 1,
    PREFER_NO_SCHEDULE: 2,
    NO_EXECUTE: 3,
  },
  'google.container.v1beta1.NodeTaint.Effect',
);

export const WorkloadMetadataMode = protoEnum(
  { MODE_UNSPECIFIED: 0, GCE_METADATA: 1, GKE_METADATA: 2 },
  'google.container.v1beta1.WorkloadMetadataConfig.Mode',
);

export const NodeMetadata = protoEnum(
  { UNSPECIFIED: 0, SECURE: 1, EXPOSE: 2, GKE_METADATA_SERVER: 3 },
  'google.container.v1beta1.WorkloadMetadataConfig.NodeMetadata',
);

export const NodePoolUpdateStrategy = protoEnum(
  {
    NODE_POOL_UPDATE_STRATEGY_UNSPECIFIED: 0,
    BLUE_GREEN: 2,
    SURGE: 3,
    SHORT_LIVED: 5,
  },
  'google.container.v1beta1.NodePoolUpdateStrategy',
);

export const CgroupMode = protoEnum(
  { CGROUP_MODE_UNSPECIFIED: 0, CGROUP_MODE_V1: 1, CGROUP_MODE_V2: 2 },
  'google.container.v1beta1.LinuxNodeConfig.CgroupMode',
);

export const EffectiveCgroupMode = protoEnum(
  {
    EFFECTIVE_CGROUP_MODE_UNSPECIFIED: 0,
    EFFECTIVE_CGROUP_MODE_V1: 1,
    EFFECTIVE_CGROUP_MODE_V2: 2,
  },
  'google.container.v1beta1.NodeConfig.EffectiveCgroupMode',
);

export const TransparentHugepageEnabled = protoEnum(
  {
    TRANSPARENT_HUGEPAGE_ENABLED_UNSPECIFIED: 0,
    TRANSPARENT_HUGEPAGE_ENABLED_ALWAYS: 1,
    TRANSPARENT_HUGEPAGE_ENABLED_MADVISE: 2,
    TRANSPARENT_HUGEPAGE_ENABLED_NEVER: 3,
  },
  'google.container.v1beta1.LinuxNodeConfig.TransparentHugepageEnabled',
);

export const TransparentHugepageDefrag = protoEnum(
  {
    TRANSPARENT_HUGEPAGE_DEFRAG_UNSPECIFIED: 0,
    TRANSPARENT_HUGEPAGE_DEFRAG_ALWAYS: 1,
    TRANSPARENT_HUGEPAGE_DEFRAG_DEFER: 2,
    TRANSPARENT_HUGEPAGE_DEFRAG_DEFER_WITH_MADVISE: 3,
    TRANSPARENT_HUGEPAGE_DEFRAG_MADVISE: 4,
    TRANSPARENT_HUGEPAGE_DEFRAG_NEVER: 5,
  },
  'google.container.v1beta1.LinuxNodeConfig.TransparentHugepageDefrag',
);

export const KernelModuleLoadingPolicy = protoEnum(
  {
    POLICY_UNSPECIFIED: 0,
    ENFORCE_SIGNED_MODULES: 1,
    DO_NOT_ENFORCE_SIGNED_MODULES: 2,
  },
  'google.container.v1beta1.LinuxNodeConfig.NodeKernelModuleLoading.Policy',
);

export const NetworkTier = protoEnum(
  { TIER_UNSPECIFIED: 0, TIER_1: 1 },
  'google.container.v1beta1.NodeNetworkConfig.NetworkPerformanceConfig.Tier',
);

export const ConfidentialInstanceType = protoEnum(
  {
    CONFIDENTIAL_INSTANCE_TYPE_UNSPECIFIED: 0,
    SEV: 1,
    SEV_SNP: 2,
    TDX: 3,
  },
  'google.container.v1beta1.ConfidentialNodes.ConfidentialInstanceType',
);

export const LoggingVariant = protoEnum(
  { VARIANT_UNSPECIFIED: 0, DEFAULT: 1, MAX_THROUGHPUT: 2 },
  'google.container.v1beta1.LoggingVariantConfig.Variant',
);

export const WindowsOsVersion = protoEnum(
  {
    OS_VERSION_UNSPECIFIED: 0,
    OS_VERSION_LTSC2019: 1,
    OS_VERSION_LTSC2022: 2,
  },
  'google.container.v1beta1.WindowsNodeConfig.OSVersion',
);

export const GpuSharingStrategy = protoEnum(
  { GPU_SHARING_STRATEGY_UNSPECIFIED: 0, TIME_SHARING: 1, MPS: 2 },
  'google.container.v1beta1.GPUSharingConfig.GPUSharingStrategy',
);

export const GpuDriverVersion = protoEnum(
  {
    GPU_DRIVER_VERSION_UNSPECIFIED: 0,
    INSTALLATION_DISABLED: 1,
    DEFAULT: 2,
    LATEST: 3,
  },
  'google.container.v1beta1.GPUDriverInstallationConfig.GPUDriverVersion',
);

export const HostCapability = protoEnum(
  {
    HOST_CAPABILITY_UNSPECIFIED: 0,
    HOST_CAPABILITY_PULL: 1,
    HOST_CAPABILITY_RESOLVE: 2,
    HOST_CAPABILITY_PUSH: 3,
  },
  'google.container.v1beta1.ContainerdConfig.RegistryHostConfig.HostCapability',
);

export const ArchitectureTaintBehavior = protoEnum(
  {
    ARCHITECTURE_TAINT_BEHAVIOR_UNSPECIFIED: 0,
    NONE: 1,
    ARM: 2,
  },
  'google.container.v1beta1.TaintConfig.ArchitectureTaintBehavior',
);

export const LocationPolicy = protoEnum(
  { LOCATION_POLICY_UNSPECIFIED: 0, BALANCED: 1, ANY: 2 },
  'google.container.v1beta1.NodePoolAutoscaling.LocationPolicy',
);

export const PlacementType = protoEnum(
  { TYPE_UNSPECIFIED: 0, COMPACT: 1 },
  'google.container.v1beta1.NodePool.PlacementPolicy.Type',
);

export const BlueGreenPhase = protoEnum(
  {
    PHASE_UNSPECIFIED: 0,
    UPDATE_STARTED: 1,
    CREATING_GREEN_POOL: 2,
    CORDONING_BLUE_POOL: 3,
    DRAINING_BLUE_POOL: 4,
    NODE_POOL_SOAKING: 5,
    DELETING_BLUE_POOL: 6,
    ROLLBACK_STARTED: 7,
    WAITING_TO_DRAIN_BLUE_POOL: 8,
  },
  'google.container.v1beta1.NodePool.UpdateInfo.BlueGreenInfo.Phase',
);

/** `NodePoolUpgradeInfo.AutoUpgradeStatus`. */
export const AutoUpgradeStatus = protoEnum(
  {
    UNKNOWN: 0,
    ACTIVE: 1,
    MINOR_UPGRADE_PAUSED: 2,
    UPGRADE_PAUSED: 3,
  },
  'google.container.v1beta1.NodePoolUpgradeInfo.AutoUpgradeStatus',
);

/** `NodePoolUpgradeInfo.AutoUpgradePausedReason`. */
export const AutoUpgradePausedReason = protoEnum(
  {
    AUTO_UPGRADE_PAUSED_REASON_UNSPECIFIED: 0,
    MAINTENANCE_WINDOW: 1,
    MAINTENANCE_EXCLUSION_NO_UPGRADES: 2,
    MAINTENANCE_EXCLUSION_NO_MINOR_UPGRADES: 3,
    SYSTEM_CONFIG: 4,
  },
  'google.container.v1beta1.NodePoolUpgradeInfo.AutoUpgradePausedReason',
);

/** `UpgradeDetails.State`. */
export const UpgradeDetailsState = protoEnum(
  {
    UNKNOWN: 0,
    FAILED: 1,
    SUCCEEDED: 2,
    CANCELED: 3,
    RUNNING: 4,
  },
  'google.container.v1beta1.UpgradeDetails.State',
);

/** `UpgradeDetails.StartType`. */
export const UpgradeStartType = protoEnum(
  { START_TYPE_UNSPECIFIED: 0, AUTOMATIC: 1, MANUAL: 2 },
  'google.container.v1beta1.UpgradeDetails.StartType',
);

/** `StatusCondition.Code` (deprecated in favour of canonicalCode). */
export const StatusConditionCode = protoEnum(
  {
    UNKNOWN: 0,
    GCE_STOCKOUT: 1,
    GKE_SERVICE_ACCOUNT_DELETED: 2,
    GCE_QUOTA_EXCEEDED: 3,
    SET_BY_OPERATOR: 4,
    CLOUD_KMS_KEY_ERROR: 7,
    CA_EXPIRING: 9,
    NODE_SERVICE_ACCOUNT_MISSING_PERMISSIONS: 10,
    CLOUD_KMS_KEY_DESTROYED: 11,
  },
  'google.container.v1beta1.StatusCondition.Code',
);

/** `google.rpc.Code`, with the numbers used in `Operation.error.code`. */
export const RpcCode = protoEnum(
  {
    OK: 0,
    CANCELLED: 1,
    UNKNOWN: 2,
    INVALID_ARGUMENT: 3,
    DEADLINE_EXCEEDED: 4,
    NOT_FOUND: 5,
    ALREADY_EXISTS: 6,
    PERMISSION_DENIED: 7,
    RESOURCE_EXHAUSTED: 8,
    FAILED_PRECONDITION: 9,
    ABORTED: 10,
    OUT_OF_RANGE: 11,
    UNIMPLEMENTED: 12,
    INTERNAL: 13,
    UNAVAILABLE: 14,
    DATA_LOSS: 15,
    UNAUTHENTICATED: 16,
  },
  'google.rpc.Code',
);
