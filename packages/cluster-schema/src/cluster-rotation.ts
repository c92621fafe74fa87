import * as z from 'zod';
import { clusterIds, protoEnum } from './proto';
import { Cluster, UpgradeDetails } from './resources';

/**
 * The request and response messages of IP and credential rotation, setMasterAuth,
 * fetchClusterUpgradeInfo and aggregated.usableSubnetworks.list, as the proto of
 * `@google-cloud/container` 6.10.0 has them (v1beta1; v1 has the same fields).
 */

/** `StartIPRotationRequest`: `rotateCredentials` makes it a credential rotation. */
export const StartIPRotationRequest = z.object({ ...clusterIds, rotateCredentials: z.boolean().optional() });

/** `CompleteIPRotationRequest`: the cluster's ids only. */
export const CompleteIPRotationRequest = z.object({ ...clusterIds });

/** `SetMasterAuthRequest.Action`. */
const MasterAuthAction = protoEnum(
  { UNKNOWN: 0, SET_PASSWORD: 1, GENERATE_PASSWORD: 2, SET_USERNAME: 3 },
  'google.container.v1beta1.SetMasterAuthRequest.Action',
);

/** `SetMasterAuthRequest`: `action` and `update` (a MasterAuth) are required. */
export const SetMasterAuthRequest = z.object({
  ...clusterIds,
  action: MasterAuthAction.optional(),
  get update() {
    return Cluster.shape.masterAuth;
  },
});

/** `ClusterUpgradeInfo.AutoUpgradeStatus` (numbered unlike the node pool's). */
const ClusterAutoUpgradeStatus = protoEnum(
  { UNKNOWN: 0, ACTIVE: 1, MINOR_UPGRADE_PAUSED: 4, UPGRADE_PAUSED: 5 },
  'google.container.v1beta1.ClusterUpgradeInfo.AutoUpgradeStatus',
);

/** `ClusterUpgradeInfo.AutoUpgradePausedReason`. */
const ClusterAutoUpgradePausedReason = protoEnum(
  {
    AUTO_UPGRADE_PAUSED_REASON_UNSPECIFIED: 0,
    MAINTENANCE_WINDOW: 1,
    CLUSTER_DISRUPTION_BUDGET: 4,
    MAINTENANCE_EXCLUSION_NO_UPGRADES: 5,
    MAINTENANCE_EXCLUSION_NO_MINOR_UPGRADES: 6,
    CLUSTER_DISRUPTION_BUDGET_MINOR_UPGRADE: 7,
    SYSTEM_CONFIG: 8,
  },
  'google.container.v1beta1.ClusterUpgradeInfo.AutoUpgradePausedReason',
);

/** `ClusterUpgradeInfo` (clusters.fetchClusterUpgradeInfo). */
export const ClusterUpgradeInfo = z.object({
  minorTargetVersion: z.string().optional(),
  patchTargetVersion: z.string().optional(),
  autoUpgradeStatus: z.array(ClusterAutoUpgradeStatus).optional(),
  pausedReason: z.array(ClusterAutoUpgradePausedReason).optional(),
  upgradeDetails: z.array(UpgradeDetails).optional(),
  endOfStandardSupportTimestamp: z.string().optional(),
  endOfExtendedSupportTimestamp: z.string().optional(),
});

/** `UsableSubnetworkSecondaryRange.Status`. */
const SecondaryRangeStatus = protoEnum(
  { UNKNOWN: 0, UNUSED: 1, IN_USE_SERVICE: 2, IN_USE_SHAREABLE_POD: 3, IN_USE_MANAGED_POD: 4 },
  'google.container.v1beta1.UsableSubnetworkSecondaryRange.Status',
);

/** `ListUsableSubnetworksResponse`. */
export const ListUsableSubnetworksResponse = z.object({
  subnetworks: z
    .array(
      z.object({
        subnetwork: z.string().optional(),
        network: z.string().optional(),
        ipCidrRange: z.string().optional(),
        secondaryIpRanges: z
          .array(
            z.object({
              rangeName: z.string().optional(),
              ipCidrRange: z.string().optional(),
              status: SecondaryRangeStatus.optional(),
            }),
          )
          .optional(),
        statusMessage: z.string().optional(),
      }),
    )
    .optional(),
  nextPageToken: z.string().optional(),
});

export type StartIPRotationRequestShape = z.infer<typeof StartIPRotationRequest>;
export type SetMasterAuthRequestShape = z.infer<typeof SetMasterAuthRequest>;
