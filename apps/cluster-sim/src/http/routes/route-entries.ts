import { type RouteEntry, routeEntries } from '@sims/sim-core';
import type { RouteAction, RouteRow } from '../route-support';
import { type DiscoveryTarget, discoveryTargets } from './discovery';
import { API_ROUTES } from './index';
import { POOL_PATH, poolMethods } from './node-pools';

/**
 * Every (method, path) the emulated API answers, from the rows: the family tables' rows under both
 * versions and both path forms, the pool methods' custom verbs, the GET verb a row takes as its variant,
 * and the discovery table's methods (a row of `discoverySpecs`, or the 501 of a refused RPC). The OpenAPI
 * document is built from these, and the conformance test calls each one.
 */

/** One entry with what answers it: a row's action, or a discovery target (a row or a refusal). */
export interface ClusterRouteEntry extends RouteEntry {
  operationId: string;
  action?: RouteAction<unknown>;
  target?: DiscoveryTarget;
}

const VERSIONS = ['v1beta1', 'v1'] as const;

/** The discovery flat path's parameters as the OpenAPI document names them. */
const PARAM_NAMES: Readonly<Record<string, string>> = {
  projectsId: 'projectId',
  locationsId: 'location',
  zonesId: 'zone',
  clustersId: 'clusterId',
  nodePoolsId: 'nodePoolId',
  operationsId: 'operationId',
};

/** A discovery method's path in the OpenAPI document: `/v1/projects/{projectId}/locations/{location}/…`. */
export function openApiPath(method: { version: string; path: string }): string {
  return `/${method.version}/${method.path.replace(/\{(\w+)\}/g, (_, n: string) => `{${PARAM_NAMES[n] ?? n}}`)}`;
}

/** The path forms' roots in the OpenAPI document's names. */
const DOC_ROOT = {
  loc: '/projects/{projectId}/locations/{location}',
  zone: '/projects/{projectId}/zones/{zone}',
};

/** The Hono pattern's parameters by the document's names. */
const DOC_PARAMS: Readonly<Record<string, string>> = {
  cluster: 'clusterId',
  pool: 'nodePoolId',
  operation: 'operationId',
};

/** The document's operationIds that are not `[zones.]<operation>` (the discovery document's names). */
const OPERATION_IDS: Readonly<Record<string, string>> = {
  'loc get projects.locations.getServerConfig': 'getServerConfig',
  'zone get projects.locations.getServerConfig': 'zones.getServerconfig',
  'zone post nodePools.setAutoscaling': 'zones.nodePools.autoscaling',
};

function operationIdOf(form: 'loc' | 'zone', row: RouteRow): string {
  const id = OPERATION_IDS[`${form} ${row.method} ${row.operation}`];
  return id ?? `${form === 'zone' ? 'zones.' : ''}${row.operation}`;
}

/** A row's paths in the document, per version and form: its custom verb (`:cancel`) on the last segment. */
function expand(row: RouteRow) {
  return VERSIONS.flatMap((version) =>
    (['loc', 'zone'] as const).flatMap((form) => {
      const suffix = row.path[form];
      if (suffix === undefined) return [];
      const path = suffix.replace(/:([a-z]+)/g, (_, name: string) => `{${DOC_PARAMS[name] ?? name}}`);
      return [
        {
          path: `/${version}${DOC_ROOT[form]}${path}${row.verb ? `:${row.verb}` : ''}`,
          operationId: `${version}.${operationIdOf(form, row)}`,
        },
      ];
    }),
  );
}

/**
 * The rows the document lists, in its order: each pool method's custom verb and the GET variant as rows
 * of their own (they share a path pattern with the pool's routes, and are served by the verb handlers
 * and the variant), then the family tables.
 */
function documentedRows(): RouteRow[] {
  const verbs: RouteRow[] = poolMethods.flatMap((m) => {
    const zoneVerb = 'zone' in m && m.zone === `:${m.verb}`;
    return [
      { ...m.spec, method: 'post' as const, path: { loc: POOL_PATH.loc }, verb: m.verb },
      ...(zoneVerb
        ? [{ ...m.spec, method: 'post' as const, path: { zone: POOL_PATH.zone }, verb: m.verb }]
        : []),
    ];
  });
  const variants: RouteRow[] = API_ROUTES.flatMap((row) =>
    row.variant
      ? [{ ...row, ...row.variant, method: row.method, variant: undefined, verb: row.variant.verb }]
      : [],
  );
  return [...verbs, ...variants, ...API_ROUTES];
}

/** Every (method, path) the emulated API answers, with its operation name and operationId. */
export function clusterRouteEntries(): ClusterRouteEntry[] {
  const entries: ClusterRouteEntry[] = documentedRows().flatMap((row) =>
    routeEntries([row], expand).map((e) => ({
      ...e,
      operationId: e.operationId ?? e.operation,
      action: row,
    })),
  );
  const listed = new Set(entries.map((e) => `${e.method} ${e.path}`));
  for (const target of new Set(discoveryTargets().values())) {
    const { method } = target;
    const entry = {
      method: method.httpMethod.toLowerCase() as 'get' | 'post' | 'put' | 'delete',
      path: openApiPath(method),
      operation: target.kind === 'spec' ? target.spec.operation : target.name,
      operationId: `${method.version}.${method.id.replace(/^container\.projects\./, '')}`,
      target,
      ...(target.kind === 'spec' ? { action: target.spec } : {}),
    };
    if (listed.has(`${entry.method} ${entry.path}`)) continue;
    entries.push(entry);
  }
  return entries;
}
