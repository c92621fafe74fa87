import * as z from 'zod';
import { clusterIds, protoEnum, stringMap } from './proto';
import { Cluster } from './resources';

/**
 * The request and response messages of the cluster setters and of `locations.list` / `getJwks`, as the
 * proto of `@google-cloud/container` 6.10.0 has them (v1beta1; v1 has the same fields). Every setter
 * carries the deprecated ids beside `name`, which the path's name overrides.
 */

/** `SetLabelsRequest`: `resourceLabels` replace the cluster's; `labelFingerprint` must be the current one. */
export const SetLabelsRequest = z.object({
  ...clusterIds,
  resourceLabels: stringMap.optional(),
  labelFingerprint: z.string().optional(),
});

/** `SetLegacyAbacRequest`: `enabled` (required) turns legacy ABAC on or off. */
export const SetLegacyAbacRequest = z.object({ ...clusterIds, enabled: z.boolean().optional() });

/** `SetMaintenancePolicyRequest`: the policy (required) replaces the cluster's. */
export const SetMaintenancePolicyRequest = z.object({
  ...clusterIds,
  get maintenancePolicy() {
    return Cluster.shape.maintenancePolicy;
  },
});

/** `SetNetworkPolicyRequest`: the policy (required) replaces the cluster's. */
export const SetNetworkPolicyRequest = z.object({
  ...clusterIds,
  get networkPolicy() {
    return Cluster.shape.networkPolicy;
  },
});

/** `SetLoggingServiceRequest`: `loggingService` (required). */
export const SetLoggingServiceRequest = z.object({ ...clusterIds, loggingService: z.string().optional() });

/** `SetMonitoringServiceRequest`: `monitoringService` (required). */
export const SetMonitoringServiceRequest = z.object({
  ...clusterIds,
  monitoringService: z.string().optional(),
});

/** `SetAddonsConfigRequest`: `addonsConfig` (required) replaces the cluster's. */
export const SetAddonsConfigRequest = z.object({
  ...clusterIds,
  get addonsConfig() {
    return Cluster.shape.addonsConfig;
  },
});

/** `SetLocationsRequest` (deprecated for ClusterUpdate `desiredLocations`): the zones of the cluster's nodes. */
export const SetLocationsRequest = z.object({ ...clusterIds, locations: z.array(z.string()).optional() });

/** `UpdateMasterRequest`: `masterVersion` (required), with the same aliases as `desiredMasterVersion`. */
export const UpdateMasterRequest = z.object({ ...clusterIds, masterVersion: z.string().optional() });

/** `GetOpenIDConfigResponse`: the cluster's OIDC discovery document. */
export const GetOpenIDConfigResponse = z.object({
  issuer: z.string().optional(),
  jwks_uri: z.string().optional(),
  response_types_supported: z.array(z.string()).optional(),
  subject_types_supported: z.array(z.string()).optional(),
  id_token_signing_alg_values_supported: z.array(z.string()).optional(),
  claims_supported: z.array(z.string()).optional(),
  grant_types: z.array(z.string()).optional(),
});

/** `Location.LocationType`. */
const LocationType = protoEnum(
  { LOCATION_TYPE_UNSPECIFIED: 0, ZONE: 1, REGION: 2 },
  'google.container.v1beta1.Location.LocationType',
);

/** `ListLocationsResponse` (v1beta1 only). */
export const ListLocationsResponse = z.object({
  locations: z
    .array(z.object({ type: LocationType.optional(), name: z.string(), recommended: z.boolean().optional() }))
    .optional(),
  nextPageToken: z.string().optional(),
});

/** `Jwk`: a public key of the cluster's service account signer (RFC 7517). */
const Jwk = z.object({
  kty: z.string().optional(),
  alg: z.string().optional(),
  use: z.string().optional(),
  kid: z.string().optional(),
  n: z.string().optional(),
  e: z.string().optional(),
  x: z.string().optional(),
  y: z.string().optional(),
  crv: z.string().optional(),
});

/** `GetJSONWebKeysResponse`. */
export const GetJSONWebKeysResponse = z.object({ keys: z.array(Jwk).optional() });

export type SetLabelsRequestShape = z.infer<typeof SetLabelsRequest>;
export type SetLegacyAbacRequestShape = z.infer<typeof SetLegacyAbacRequest>;
export type SetMaintenancePolicyRequestShape = z.infer<typeof SetMaintenancePolicyRequest>;
export type SetNetworkPolicyRequestShape = z.infer<typeof SetNetworkPolicyRequest>;
export type SetLoggingServiceRequestShape = z.infer<typeof SetLoggingServiceRequest>;
export type SetMonitoringServiceRequestShape = z.infer<typeof SetMonitoringServiceRequest>;
export type SetLocationsRequestShape = z.infer<typeof SetLocationsRequest>;
export type UpdateMasterRequestShape = z.infer<typeof UpdateMasterRequest>;
export type SetAddonsConfigRequestShape = z.infer<typeof SetAddonsConfigRequest>;
