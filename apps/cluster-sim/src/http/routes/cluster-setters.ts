import {
  GetJSONWebKeysResponse,
  GetOpenIDConfigResponse,
  ListLocationsResponse,
  Operation,
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
import type { z } from 'zod';
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
import type { DomainContext } from '../../domain/context';
import { fail, ok, type Result } from '../../domain/errors';
import type { ClusterRecord, ClusterState, OperationRecord } from '../../domain/state';
import type { HttpError } from '../errors';
import { type Args, checkIds, clusterOf, domainContext, type RouteSpec, started } from '../route-support';

/**
 * The cluster setters, getJwks and locations.list, by the RPC they serve. They are reached through the
 * discovery table (`methods.generated.ts`, routes/discovery.ts) in every form the table has: the custom
 * verb on the cluster (`…/clusters/c1:setResourceLabels`), the legacy zonal path
 * (`…/zones/z/clusters/c1/resourceLabels`), both API versions.
 */

/** A body's deprecated ids and `name` must agree with the path (the path wins). */
function checkClusterIds(a: Args<unknown>, body: Record<string, unknown>): Result<void, HttpError> {
  const ids = checkIds(a, body, ['projectId', 'zone', 'clusterId']);
  if (!ids.ok) return ids;
  const name = body.name;
  if (typeof name !== 'string' || name === '') return ok(undefined);
  const names = [a.project, a.projectId].flatMap((p) =>
    ['locations', 'zones'].map((seg) => `projects/${p}/${seg}/${a.location}/clusters/${a.cluster}`),
  );
  if (names.includes(name)) return ok(undefined);
  return fail({
    code: 'INVALID_REQUEST',
    message: `Invalid value for field 'name': "${name}" does not match the resource in the request URL.`,
    field: 'name',
  });
}

type Setter<B> = (
  state: ClusterState,
  record: ClusterRecord,
  body: B,
  ctx: DomainContext,
) => Result<OperationRecord>;

/**
 * A setter's route spec: ids checked, the cluster found, the operation started. `verb` is the method's
 * name in the discovery document (`setResourceLabels` for SetLabels), the name fault rules match.
 */
function setter<B extends Record<string, unknown>>(
  rpc: string,
  verb: string,
  body: z.ZodType<B>,
  set: Setter<B>,
): RouteSpec<B> {
  return {
    name: `clusters.${verb}`,
    rpc,
    permission: 'container.clusters.update',
    level: 'cluster',
    readOnly: false,
    body,
    response: Operation,
    handle(a) {
      const ids = checkClusterIds(a, a.body);
      if (!ids.ok) return ids;
      const record = clusterOf(a);
      if (!record.ok) return record;
      return started(a, set(a.state, record.value, a.body, domainContext(a)));
    },
  };
}

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
export const discoverySpecs: ReadonlyMap<string, RouteSpec<never>> = new Map<string, RouteSpec<never>>(
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
        name: 'clusters.getJwks',
        rpc: 'GetJSONWebKeys',
        permission: 'container.clusters.get',
        level: 'cluster',
        readOnly: true,
        response: GetJSONWebKeysResponse,
        handle: handleGetJwks,
      },
      {
        name: 'clusters.well-known.getOpenid-configuration',
        rpc: 'GetOpenIDConfig',
        permission: 'container.clusters.get',
        level: 'cluster',
        readOnly: true,
        response: GetOpenIDConfigResponse,
        handle: handleGetOpenIdConfig,
      },
      {
        name: 'locations.list',
        rpc: 'ListLocations',
        permission: 'container.clusters.list',
        level: 'location',
        readOnly: true,
        response: ListLocationsResponse,
        handle: handleListLocations,
      },
    ] as RouteSpec<never>[]
  ).map((spec) => [spec.rpc, spec]),
);
