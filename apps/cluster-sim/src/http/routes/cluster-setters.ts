import {
  GetJSONWebKeysResponse,
  GetOpenIDConfigResponse,
  ListLocationsResponse,
  SetAddonsConfigRequest,
  SetLabelsRequest,
  SetLegacyAbacRequest,
  SetLocationsRequest,
  SetLoggingServiceRequest,
  SetMaintenancePolicyRequest,
  SetMonitoringServiceRequest,
  SetNetworkPolicyRequest,
  UpdateMasterRequest,
} from '@sims/cluster-schema';
import { clusterJwks, clusterOpenIdConfig, listLocations } from '../../domain/cluster-info';
import {
  setAddons,
  setLegacyAbac,
  setMaintenancePolicy,
  setNetworkPolicy,
  setResourceLabels,
  setService,
} from '../../domain/cluster-setters';
import { updateCluster } from '../../domain/cluster-update';
import { ok, type Result } from '../../domain/errors';
import type { HttpError } from '../errors';
import { type Args, clusterOf, type RouteAction } from '../route-support';
import { rotationSpecs } from './cluster-rotation';
import { setter } from './cluster-verb';

/**
 * The cluster setters, getJwks and locations.list (and, from cluster-rotation.ts, the rotations,
 * setMasterAuth, fetchClusterUpgradeInfo and usableSubnetworks), by the RPC they serve. They are reached through the
 * discovery table (`methods.generated.ts`, routes/discovery.ts) in every form the table has: the custom
 * verb on the cluster (`…/clusters/c1:setResourceLabels`), the legacy zonal path
 * (`…/zones/z/clusters/c1/resourceLabels`), both API versions.
 */

function handleGetJwks(a: Args<unknown>): Result<unknown, HttpError> {
  const record = clusterOf(a);
  return record.ok ? ok(clusterJwks(record.value)) : record;
}

function handleGetOpenIdConfig(a: Args<unknown>): Result<unknown, HttpError> {
  const record = clusterOf(a);
  return record.ok ? ok(clusterOpenIdConfig(record.value)) : record;
}

function handleListLocations(a: Args<unknown>): Result<unknown, HttpError> {
  return ok(listLocations(a.state, a.project));
}

/** The simulated RPCs served through the discovery table, by RPC name. */
export const discoverySpecs: ReadonlyMap<string, RouteAction<never>> = new Map<string, RouteAction<never>>(
  (
    [
      setter('SetLabels', 'setResourceLabels', SetLabelsRequest, setResourceLabels),
      setter('SetLegacyAbac', 'setLegacyAbac', SetLegacyAbacRequest, (s, r, b, ctx) =>
        setLegacyAbac(s, r, b.enabled, ctx),
      ),
      setter(
        'SetMaintenancePolicy',
        'setMaintenancePolicy',
        SetMaintenancePolicyRequest,
        setMaintenancePolicy,
      ),
      setter('SetNetworkPolicy', 'setNetworkPolicy', SetNetworkPolicyRequest, setNetworkPolicy),
      setter('SetLoggingService', 'setLogging', SetLoggingServiceRequest, (s, r, b, ctx) =>
        setService(s, r, 'logging', b.loggingService, ctx),
      ),
      setter('SetMonitoringService', 'setMonitoring', SetMonitoringServiceRequest, (s, r, b, ctx) =>
        setService(s, r, 'monitoring', b.monitoringService, ctx),
      ),
      setter('SetAddonsConfig', 'setAddons', SetAddonsConfigRequest, setAddons),
      // The deprecated twins of ClusterUpdate fields: the same rules and operations as clusters.update.
      setter('SetLocations', 'setLocations', SetLocationsRequest, (s, r, b, ctx) =>
        updateCluster(s, r, { desiredLocations: b.locations }, ctx),
      ),
      setter('UpdateMaster', 'updateMaster', UpdateMasterRequest, (s, r, b, ctx) =>
        updateCluster(s, r, { desiredMasterVersion: b.masterVersion }, ctx),
      ),
      {
        operation: 'clusters.getJwks',
        rpc: 'GetJSONWebKeys',
        permission: 'container.clusters.get',
        level: 'cluster',
        readOnly: true,
        response: GetJSONWebKeysResponse,
        handle: handleGetJwks,
      },
      {
        operation: 'clusters.well-known.getOpenid-configuration',
        rpc: 'GetOpenIDConfig',
        permission: 'container.clusters.get',
        level: 'cluster',
        readOnly: true,
        response: GetOpenIDConfigResponse,
        handle: handleGetOpenIdConfig,
      },
      {
        operation: 'locations.list',
        rpc: 'ListLocations',
        permission: 'container.clusters.list',
        level: 'location',
        readOnly: true,
        response: ListLocationsResponse,
        handle: handleListLocations,
      },
      ...rotationSpecs,
    ] as RouteAction<never>[]
  ).map((spec) => [spec.rpc, spec]),
);
