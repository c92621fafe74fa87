import * as z from 'zod';
import {
  ArchitectureTaintBehavior,
  CgroupMode,
  ConfidentialInstanceType,
  EffectiveCgroupMode,
  GpuDriverVersion,
  GpuSharingStrategy,
  HostCapability,
  KernelModuleLoadingPolicy,
  LoggingVariant,
  NetworkTier,
  NodeMetadata,
  NodePoolUpdateStrategy,
  TaintEffect,
  TransparentHugepageDefrag,
  TransparentHugepageEnabled,
  WindowsOsVersion,
  WorkloadMetadataMode,
} from './enums';
import { duration, int32, int64, markOneofs, stringMap, timestamp } from './proto';

/** Nested messages of UpdateNodePoolRequest and NodeConfig (v1beta1, JSON names). */

export const WorkloadMetadataConfig = z.object({
  mode: WorkloadMetadataMode.optional(),
  nodeMetadata: NodeMetadata.optional(),
});

export const StandardRolloutPolicy = z.object({
  batchPercentage: z.number().optional(),
  batchNodeCount: int32.optional(),
  batchSoakDuration: duration.optional(),
});
export const AutoscaledRolloutPolicy = z.object({ waitForDrainDuration: duration.optional() });
export const BlueGreenSettings = z.object({
  standardRolloutPolicy: StandardRolloutPolicy.optional(),
  autoscaledRolloutPolicy: AutoscaledRolloutPolicy.optional(),
  nodePoolSoakDuration: duration.optional(),
});
export const UpgradeSettings = z.object({
  maxSurge: int32.optional(),
  maxUnavailable: int32.optional(),
  strategy: NodePoolUpdateStrategy.optional(),
  blueGreenSettings: BlueGreenSettings.optional(),
});

export const NetworkTags = z.object({ tags: z.array(z.string()).optional() });
export const NodeTaint = z.object({
  key: z.string().optional(),
  value: z.string().optional(),
  effect: TaintEffect.optional(),
});
export const NodeTaints = z.object({ taints: z.array(NodeTaint).optional() });
export const NodeLabels = z.object({ labels: stringMap.optional() });
export const ResourceLabels = z.object({ labels: stringMap.optional() });
export const ResourceManagerTags = z.object({ tags: stringMap.optional() });

/** `SwapConfig.BootDiskProfile` / `EphemeralLocalSsdProfile`: the swap size in GiB or in percent. */
const swapSize = () =>
  markOneofs(z.object({ swapSizeGib: int64.optional(), swapSizePercent: int32.optional() }), {
    swap_size: ['swapSizeGib', 'swapSizePercent'],
  });

export const LinuxNodeConfig = z.object({
  sysctls: stringMap.optional(),
  cgroupMode: CgroupMode.optional(),
  hugepages: z.object({ hugepageSize2m: int32.optional(), hugepageSize1g: int32.optional() }).optional(),
  transparentHugepageEnabled: TransparentHugepageEnabled.optional(),
  transparentHugepageDefrag: TransparentHugepageDefrag.optional(),
  customNodeInit: z
    .object({
      initScript: z
        .object({
          gcsUri: z.string().optional(),
          gcsGeneration: int64.optional(),
          args: z.array(z.string()).optional(),
          gcpSecretManagerSecretUri: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  // The oneofs of SwapConfig and of its profiles (the proto's; BlueGreenSettings' are marked by the generator).
  swapConfig: markOneofs(
    z.object({
      enabled: z.boolean().optional(),
      encryptionConfig: z.object({ disabled: z.boolean().optional() }).optional(),
      bootDiskProfile: swapSize().optional(),
      ephemeralLocalSsdProfile: swapSize().optional(),
      dedicatedLocalSsdProfile: z.object({ diskCount: int64.optional() }).optional(),
    }),
    { performance_profile: ['bootDiskProfile', 'ephemeralLocalSsdProfile', 'dedicatedLocalSsdProfile'] },
  ).optional(),
  nodeKernelModuleLoading: z.object({ policy: KernelModuleLoadingPolicy.optional() }).optional(),
  accurateTimeConfig: z.object({ enablePtpKvmTimeSync: z.boolean().optional() }).optional(),
});

const EvictionSignals = z.object({
  memoryAvailable: z.string().optional(),
  nodefsAvailable: z.string().optional(),
  nodefsInodesFree: z.string().optional(),
  imagefsAvailable: z.string().optional(),
  imagefsInodesFree: z.string().optional(),
  pidAvailable: z.string().optional(),
});

export const NodeKubeletConfig = z.object({
  cpuManagerPolicy: z.string().optional(),
  topologyManager: z.object({ policy: z.string().optional(), scope: z.string().optional() }).optional(),
  memoryManager: z.object({ policy: z.string().optional() }).optional(),
  cpuCfsQuota: z.boolean().optional(),
  cpuCfsQuotaPeriod: z.string().optional(),
  podPidsLimit: int64.optional(),
  insecureKubeletReadonlyPortEnabled: z.boolean().optional(),
  imageGcLowThresholdPercent: int32.optional(),
  imageGcHighThresholdPercent: int32.optional(),
  imageMinimumGcAge: z.string().optional(),
  imageMaximumGcAge: z.string().optional(),
  containerLogMaxSize: z.string().optional(),
  containerLogMaxFiles: int32.optional(),
  allowedUnsafeSysctls: z.array(z.string()).optional(),
  evictionSoft: EvictionSignals.optional(),
  evictionSoftGracePeriod: EvictionSignals.optional(),
  evictionMinimumReclaim: EvictionSignals.optional(),
  evictionMaxPodGracePeriodSeconds: int32.optional(),
  maxParallelImagePulls: int32.optional(),
  singleProcessOomKill: z.boolean().optional(),
  crashLoopBackOff: z.object({ maxContainerRestartPeriod: z.string().optional() }).optional(),
  shutdownGracePeriodSeconds: int32.optional(),
  shutdownGracePeriodCriticalPodsSeconds: int32.optional(),
});

export const NodeNetworkConfig = z.object({
  createPodRange: z.boolean().optional(),
  podRange: z.string().optional(),
  podIpv4CidrBlock: z.string().optional(),
  enablePrivateNodes: z.boolean().optional(),
  networkPerformanceConfig: z
    .object({
      totalEgressBandwidthTier: NetworkTier.optional(),
      externalIpEgressBandwidthTier: NetworkTier.optional(),
    })
    .optional(),
  podCidrOverprovisionConfig: z.object({ disable: z.boolean().optional() }).optional(),
  additionalNodeNetworkConfigs: z
    .array(z.object({ network: z.string().optional(), subnetwork: z.string().optional() }))
    .optional(),
  additionalPodNetworkConfigs: z
    .array(
      z.object({
        subnetwork: z.string().optional(),
        secondaryPodRange: z.string().optional(),
        maxPodsPerNode: z.object({ maxPodsPerNode: int64.optional() }).optional(),
      }),
    )
    .optional(),
  podIpv4RangeUtilization: z.number().optional(),
  subnetwork: z.string().optional(),
  networkTierConfig: z.object({ networkTier: z.string().optional() }).optional(),
  acceleratorNetworkProfile: z.string().optional(),
});

export const GcfsConfig = z.object({ enabled: z.boolean().optional() });
export const ConfidentialNodes = z.object({
  enabled: z.boolean().optional(),
  confidentialInstanceType: ConfidentialInstanceType.optional(),
});
export const VirtualNIC = z.object({ enabled: z.boolean().optional() });
export const FastSocket = z.object({ enabled: z.boolean().optional() });
export const NodePoolLoggingConfig = z.object({
  variantConfig: z.object({ variant: LoggingVariant.optional() }).optional(),
});
export const WindowsNodeConfig = z.object({ osVersion: WindowsOsVersion.optional() });

export const AcceleratorConfig = z.object({
  acceleratorCount: int64.optional(),
  acceleratorType: z.string().optional(),
  gpuPartitionSize: z.string().optional(),
  maxTimeSharedClientsPerGpu: int64.optional(),
  gpuSharingConfig: z
    .object({ maxSharedClientsPerGpu: int64.optional(), gpuSharingStrategy: GpuSharingStrategy.optional() })
    .optional(),
  gpuDriverInstallationConfig: z.object({ gpuDriverVersion: GpuDriverVersion.optional() }).optional(),
});

const CertificateConfig = z.object({ gcpSecretManagerSecretUri: z.string().optional() });
export const ContainerdConfig = z.object({
  privateRegistryAccessConfig: z
    .object({
      enabled: z.boolean().optional(),
      certificateAuthorityDomainConfig: z
        .array(
          z.object({
            fqdns: z.array(z.string()).optional(),
            gcpSecretManagerCertificateConfig: z.object({ secretUri: z.string().optional() }).optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  writableCgroups: z.object({ enabled: z.boolean().optional() }).optional(),
  registryHosts: z
    .array(
      z.object({
        server: z.string().optional(),
        hosts: z
          .array(
            z.object({
              host: z.string().optional(),
              capabilities: z.array(HostCapability).optional(),
              overridePath: z.boolean().optional(),
              header: z
                .array(z.object({ key: z.string().optional(), value: z.array(z.string()).optional() }))
                .optional(),
              ca: z.array(CertificateConfig).optional(),
              client: z
                .array(z.object({ cert: CertificateConfig.optional(), key: CertificateConfig.optional() }))
                .optional(),
              dialTimeout: duration.optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
});

export const QueuedProvisioning = z.object({ enabled: z.boolean().optional() });
export const BootDisk = z.object({
  diskType: z.string().optional(),
  sizeGb: int64.optional(),
  provisionedIops: int64.optional(),
  provisionedThroughput: int64.optional(),
});
export const NodeDrainConfig = z.object({
  pdbTimeoutDuration: duration.optional(),
  graceTerminationDuration: duration.optional(),
  respectPdbDuringNodePoolDeletion: z.boolean().optional(),
});
export const TaintConfig = z.object({ architectureTaintBehavior: ArchitectureTaintBehavior.optional() });
export const NodePoolMaintenancePolicy = z.object({
  exclusionUntilEndOfSupport: z
    .object({
      enabled: z.boolean().optional(),
      startTime: timestamp.optional(),
      endTime: timestamp.optional(),
    })
    .optional(),
});
export const ShieldedInstanceConfig = z.object({
  enableSecureBoot: z.boolean().optional(),
  enableIntegrityMonitoring: z.boolean().optional(),
});

/** Messages the simulator stores and echoes without interpreting them. */
const opaque = z.looseObject({});

/** `NodeConfig`: the settings of every node of a pool. Note `resourceLabels` is a plain map here. */
export const NodeConfig = z.object({
  machineType: z.string().optional(),
  diskSizeGb: int32.optional(),
  oauthScopes: z.array(z.string()).optional(),
  serviceAccount: z.string().optional(),
  metadata: stringMap.optional(),
  imageType: z.string().optional(),
  labels: stringMap.optional(),
  localSsdCount: int32.optional(),
  tags: z.array(z.string()).optional(),
  preemptible: z.boolean().optional(),
  accelerators: z.array(AcceleratorConfig).optional(),
  sandboxConfig: opaque.optional(),
  nodeGroup: z.string().optional(),
  reservationAffinity: opaque.optional(),
  diskType: z.string().optional(),
  minCpuPlatform: z.string().optional(),
  workloadMetadataConfig: WorkloadMetadataConfig.optional(),
  taints: z.array(NodeTaint).optional(),
  bootDiskKmsKey: z.string().optional(),
  shieldedInstanceConfig: ShieldedInstanceConfig.optional(),
  linuxNodeConfig: LinuxNodeConfig.optional(),
  kubeletConfig: NodeKubeletConfig.optional(),
  ephemeralStorageConfig: opaque.optional(),
  gcfsConfig: GcfsConfig.optional(),
  advancedMachineFeatures: opaque.optional(),
  gvnic: VirtualNIC.optional(),
  spot: z.boolean().optional(),
  confidentialNodes: ConfidentialNodes.optional(),
  fastSocket: FastSocket.optional(),
  resourceLabels: stringMap.optional(),
  loggingConfig: NodePoolLoggingConfig.optional(),
  windowsNodeConfig: WindowsNodeConfig.optional(),
  localNvmeSsdBlockConfig: opaque.optional(),
  ephemeralStorageLocalSsdConfig: opaque.optional(),
  soleTenantConfig: opaque.optional(),
  containerdConfig: ContainerdConfig.optional(),
  hostMaintenancePolicy: opaque.optional(),
  resourceManagerTags: ResourceManagerTags.optional(),
  enableConfidentialStorage: z.boolean().optional(),
  secondaryBootDisks: z.array(opaque).optional(),
  storagePools: z.array(z.string()).optional(),
  secondaryBootDiskUpdateStrategy: opaque.optional(),
  gpuDirectConfig: opaque.optional(),
  maxRunDuration: duration.optional(),
  localSsdEncryptionMode: z.string().optional(),
  effectiveCgroupMode: EffectiveCgroupMode.optional(),
  flexStart: z.boolean().optional(),
  bootDisk: BootDisk.optional(),
  consolidationDelay: duration.optional(),
  taintConfig: TaintConfig.optional(),
});
