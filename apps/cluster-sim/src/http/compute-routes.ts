import { type RouteRow as CoreRouteRow, type RouteEntry, routeEntries, type SimKernel } from '@sims/sim-core';
import type { ComputeError } from '../compute/errors';
import type { ComputeTarget } from '../compute/reads';
import { fail, type Result } from '../domain/errors';
import { canonicalProject } from '../domain/names';
import type { ClusterState } from '../domain/state';
import { authorize } from './auth';
import { renderComputeError } from './compute-errors';
import { googleHeaders } from './errors';
import type { Ctx } from './route-support';

/**
 * Compute Engine v1's slice GKE's clients read (Terraform's node pool read, gcloud's instance-group
 * commands, the autoscaler's tooling): the node pools' managed instance groups, their instance groups
 * and instances, derived from the container state on each read (src/compute/). Every other Compute
 * path under `/compute/v1/` is refused with a 501 naming its method. The reads' module is loaded on
 * the first Compute request, not at start.
 */

type Reads = typeof import('../compute/reads');

type ComputeHandler = (
  target: ComputeTarget,
  reads: Reads,
  body: Record<string, unknown>,
) => Result<unknown, ComputeError>;

/**
 * What the OpenAPI document says of a Compute row: its response message by Compute's schema name, whether
 * it takes Compute's list parameters, its request message when it has a body.
 */
interface ComputeDoc {
  response: string;
  list?: true;
  request?: string;
}

/** A Compute route: sim-core's row, its path a Hono pattern under `/compute/v1`. */
type ComputeRow = CoreRouteRow<
  ComputeHandler,
  unknown,
  { rpc: string; permission: string; doc: ComputeDoc },
  string
>;

const ZONE = '/projects/:project/zones/:zone';

/** The Compute rows, in registration order. */
const COMPUTE_ROUTES: readonly ComputeRow[] = [
  {
    operation: 'compute.instanceGroupManagers.aggregatedList',
    doc: { response: 'InstanceGroupManagerAggregatedList', list: true },
    rpc: 'compute.v1.InstanceGroupManagersService.AggregatedList',
    permission: 'compute.instanceGroupManagers.list',
    method: 'get',
    path: '/projects/:project/aggregated/instanceGroupManagers',
    handle: (t, reads) => reads.aggregatedManagers(t),
  },
  {
    operation: 'compute.instanceGroupManagers.list',
    doc: { response: 'InstanceGroupManagerList', list: true },
    rpc: 'compute.v1.InstanceGroupManagersService.List',
    permission: 'compute.instanceGroupManagers.list',
    method: 'get',
    path: `${ZONE}/instanceGroupManagers`,
    handle: (t, reads) => reads.listManagers(t),
  },
  {
    operation: 'compute.instanceGroupManagers.get',
    doc: { response: 'InstanceGroupManager' },
    rpc: 'compute.v1.InstanceGroupManagersService.Get',
    permission: 'compute.instanceGroupManagers.get',
    method: 'get',
    path: `${ZONE}/instanceGroupManagers/:name`,
    handle: (t, reads) => reads.getManager(t),
  },
  {
    operation: 'compute.instanceGroupManagers.listManagedInstances',
    doc: { response: 'InstanceGroupManagersListManagedInstancesResponse', list: true },
    rpc: 'compute.v1.InstanceGroupManagersService.ListManagedInstances',
    permission: 'compute.instanceGroupManagers.get',
    method: 'post',
    path: `${ZONE}/instanceGroupManagers/:name/listManagedInstances`,
    handle: (t, reads) => reads.listManagedInstances(t),
  },
  {
    operation: 'compute.instanceGroups.get',
    doc: { response: 'InstanceGroup' },
    rpc: 'compute.v1.InstanceGroupsService.Get',
    permission: 'compute.instanceGroups.get',
    method: 'get',
    path: `${ZONE}/instanceGroups/:name`,
    handle: (t, reads) => reads.getInstanceGroup(t),
  },
  {
    operation: 'compute.instanceGroups.listInstances',
    doc: {
      response: 'InstanceGroupsListInstances',
      list: true,
      request: 'InstanceGroupsListInstancesRequest',
    },
    rpc: 'compute.v1.InstanceGroupsService.ListInstances',
    permission: 'compute.instanceGroups.list',
    method: 'post',
    path: `${ZONE}/instanceGroups/:name/listInstances`,
    handle: (t, reads, body) =>
      reads.listGroupInstances(t, typeof body.instanceState === 'string' ? body.instanceState : undefined),
  },
  {
    operation: 'compute.instances.list',
    doc: { response: 'InstanceList', list: true },
    rpc: 'compute.v1.InstancesService.List',
    permission: 'compute.instances.list',
    method: 'get',
    path: `${ZONE}/instances`,
    handle: (t, reads) => reads.listInstances(t),
  },
  {
    operation: 'compute.instances.get',
    doc: { response: 'Instance' },
    rpc: 'compute.v1.InstancesService.Get',
    permission: 'compute.instances.get',
    method: 'get',
    path: `${ZONE}/instances/:name`,
    handle: (t, reads) => reads.getInstance(t),
  },
];

const PREFIX = '/compute/v1';

/** A Compute row's entry: (method, path, operation), the path in OpenAPI's form, and what the document says. */
export type ComputeRouteEntry = RouteEntry & { doc: ComputeDoc };

/** The Compute rows as (method, path, operation) entries, paths in OpenAPI's form under `/compute/v1`. */
export function computeRouteEntries(): ComputeRouteEntry[] {
  return COMPUTE_ROUTES.flatMap((row) =>
    routeEntries([row], (r) => [`${PREFIX}${r.path}`.replace(/:([A-Za-z_]+)/g, '{$1}')]).map((e) => ({
      ...e,
      doc: row.doc,
    })),
  );
}

/** The Compute resource a request names (`projects/p/zones/z/instanceGroupManagers/x`), for the journal. */
function resourceOf(c: Ctx): string {
  return c.req.path.replace(/^.*?\/compute\/v1\//, '');
}

/** `instanceGroupManagers` → `InstanceGroupManagers`. */
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Collections whose method ids are not the path's collection name under `regions/` or `global/`. */
const REGIONAL_ONLY = new Set([
  'subnetworks',
  'addresses',
  'forwardingRules',
  'routers',
  'vpnTunnels',
  'targetPools',
  'vpnGateways',
  'targetVpnGateways',
  'interconnectAttachments',
  'resourcePolicies',
  'serviceAttachments',
  'networkAttachments',
  'packetMirrorings',
]);
const GLOBAL_NAMED = new Set([
  'addresses',
  'forwardingRules',
  'operations',
  'organizationOperations',
  'publicDelegatedPrefixes',
  'networkEndpointGroups',
]);

/**
 * The method a Compute path and HTTP method call, by Compute's naming (`compute.{collection}.{verb}`):
 * a collection's GET lists and POST inserts, a resource's GET gets, DELETE deletes, PATCH patches, PUT
 * updates, a segment after the resource is its verb; regional collections are `region…`, a zone's
 * operations `zoneOperations`, global addresses `globalAddresses`.
 */
function computeMethodOf(httpMethod: string, path: string): string {
  const segs = path
    .replace(/^.*?\/compute\/v1\/?/, '')
    .split('/')
    .filter(Boolean);
  if (segs[0] !== 'projects' || segs.length < 2)
    return `compute.${segs[0] ?? 'projects'}.${httpMethod === 'GET' ? 'get' : 'unknown'}`;
  let rest = segs.slice(2);
  let collectionOf = (c: string) => c;
  if (rest.length === 0) return httpMethod === 'GET' ? 'compute.projects.get' : 'compute.projects.unknown';
  if (
    rest.length === 1 &&
    rest[0] !== 'zones' &&
    rest[0] !== 'regions' &&
    rest[0] !== 'global' &&
    httpMethod === 'POST'
  )
    return `compute.projects.${rest[0]}`;
  const scope = rest[0];
  if (scope === 'aggregated' && rest[1]) return `compute.${rest[1]}.aggregatedList`;
  if ((scope === 'zones' || scope === 'regions') && rest.length <= 2) {
    return `compute.${scope}.${rest.length === 1 ? 'list' : 'get'}`;
  }
  if (scope === 'zones') {
    collectionOf = (c) => (c === 'operations' ? 'zoneOperations' : c);
    rest = rest.slice(2);
  } else if (scope === 'regions') {
    collectionOf = (c) =>
      c === 'operations' ? 'regionOperations' : REGIONAL_ONLY.has(c) ? c : `region${cap(c)}`;
    rest = rest.slice(2);
  } else if (scope === 'global') {
    collectionOf = (c) => (GLOBAL_NAMED.has(c) ? `global${cap(c)}` : c);
    rest = rest.slice(1);
  }
  const [collection, resource, verb] = rest;
  if (!collection) return 'compute.unknown';
  const id = `compute.${collectionOf(collection)}`;
  if (verb) return `${id}.${verb}`;
  if (resource === undefined)
    return `${id}.${httpMethod === 'GET' ? 'list' : httpMethod === 'POST' ? 'insert' : 'unknown'}`;
  const byMethod: Record<string, string> = {
    GET: 'get',
    DELETE: 'delete',
    PATCH: 'patch',
    PUT: 'update',
    POST: 'insert',
  };
  return `${id}.${byMethod[httpMethod] ?? 'unknown'}`;
}

function credentials(c: Ctx) {
  return {
    authorization: c.req.header('authorization'),
    accessToken: c.req.query('access_token'),
    apiKey: c.req.query('key'),
  };
}

/**
 * Credentials, scopes and permission, Compute's way: the scopes Compute's methods list (`compute`, a
 * read also `compute.readonly`), a missing permission Compute's own 403.
 */
function checkAuth(
  c: Ctx,
  permission: string,
  resource: string,
  readOnly: boolean,
): Result<unknown, ComputeError> {
  const auth = authorize(
    credentials(c),
    { permission, resource, readOnly, api: 'compute' },
    c.var.sim.world.state.settings.auth,
  );
  if (auth.ok) return auth;
  return fail(
    auth.error.code === 'PERMISSION_DENIED'
      ? { code: 'COMPUTE_FORBIDDEN', permission, resource }
      : { code: 'COMPUTE_AUTH', error: auth.error },
  );
}

/** Registers the Compute rows and the 501 for every other Compute path, through the kernel (journal, faults). */
export function registerComputeRoutes(kernel: SimKernel<ClusterState>): void {
  let reads: Promise<Reads> | undefined;
  for (const row of COMPUTE_ROUTES) {
    kernel.app[row.method](`${PREFIX}${row.path}`, kernel.operation(row.operation, resourceOf), async (c) => {
      const sim = c.var.sim;
      const p = c.req.param() as Record<string, string>;
      const state = sim.world.state;
      const project = canonicalProject(state, p.project ?? '');
      const resource = resourceOf(c).replace(/^projects\/[^/]+/, `projects/${project}`);
      const auth = checkAuth(c, row.permission, resource, true);
      if (!auth.ok) return renderComputeError(auth.error, row.rpc, sim.requestId);
      if (sim.jsonError !== undefined) {
        const error: ComputeError = {
          code: 'COMPUTE_INVALID',
          message: `Invalid JSON payload received. ${sim.jsonError}`,
        };
        return renderComputeError(error, row.rpc, sim.requestId);
      }
      reads ??= import('../compute/reads');
      const json = sim.json;
      const body =
        json !== null && typeof json === 'object' && !Array.isArray(json)
          ? (json as Record<string, unknown>)
          : {};
      const q = c.req.query();
      const target = { state, project, zone: p.zone ?? '', name: p.name ?? '', query: q };
      const result = row.handle(target, await reads, body);
      if (!result.ok) return renderComputeError(result.error, row.rpc, sim.requestId);
      return new Response(JSON.stringify(result.value), {
        status: 200,
        headers: googleHeaders(sim.requestId),
      });
    });
  }
  const named = (c: Ctx) => computeMethodOf(c.req.method, c.req.path);
  kernel.app.all(`${PREFIX}/*`, kernel.operation(named, resourceOf), (c) => {
    const method = named(c);
    // Compute's reads are its GETs (and the list verbs the rows serve); a refused GET is one too.
    const auth = checkAuth(c, method, resourceOf(c), c.req.method === 'GET');
    const error: ComputeError = auth.ok ? { code: 'COMPUTE_NOT_SIMULATED', method } : auth.error;
    return renderComputeError(error, method, c.var.sim.requestId);
  });
}
