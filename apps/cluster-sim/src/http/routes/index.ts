import type { SimKernel } from '@sims/sim-core';
import { fail, type Result } from '../../domain/errors';
import { type ApiVersion, canonicalProject, clusterName, nodePoolName } from '../../domain/names';
import type { ClusterState } from '../../domain/state';
import { authorize } from '../auth';
import { encodeEnumsAsNumbers, wantsNumericEnums } from '../encode';
import { googleHeaders, type HttpError, renderError } from '../errors';
import { createParseCache } from '../parse';
import { checkQuery } from '../query-params';
import {
  type Ctx,
  type RouteAction,
  type RoutePaths,
  type RouteRow,
  type RouteVariant,
  withoutVerb,
} from '../route-support';
import { clusterRoutes } from './clusters';
import { type DiscoveryTarget, discoveryTargets, matchDiscovery } from './discovery';
import { nodePoolRoutes, POOL_PATH, poolVerbs } from './node-pools';
import { operationRoutes } from './operations';
import { serverConfigRoutes } from './server-config';

/**
 * The emulated API's routes, registered in this order after the pool methods' custom verbs (Hono runs the
 * handlers whose patterns match a request in the order they were registered).
 */
export const API_ROUTES: readonly RouteRow[] = [
  ...nodePoolRoutes,
  ...clusterRoutes,
  ...operationRoutes,
  ...serverConfigRoutes,
];

const ROOT = { loc: '/projects/:project/locations/:location', zone: '/projects/:project/zones/:location' };

/**
 * JSON texts of frozen (shared, unchanging) renderings, such as a stored pool's: made once each. One per
 * simulator (on its edge), weakly keyed by the rendering, so nothing is kept at module level.
 */
function createJsonTexts(): (body: unknown) => string {
  const texts = new WeakMap<object, string>();
  return (body) => {
    if (body === null || typeof body !== 'object' || !Object.isFrozen(body)) return JSON.stringify(body);
    let text = texts.get(body);
    if (text === undefined) {
      text = JSON.stringify(body);
      texts.set(body, text);
    }
    return text;
  };
}

/** The resource a request is journaled under. */
function resourceOf(c: Ctx): string {
  const p = c.req.param() as Record<string, string>;
  const project = p.project ?? '';
  const location = p.location ?? '';
  if (p.pool) return nodePoolName(project, location, p.cluster ?? '', withoutVerb(p.pool));
  if (p.cluster) return clusterName(project, location, p.cluster);
  if (p.operation)
    return `projects/${project}/locations/${location}/operations/${p.operation.replace(/:cancel$/, '')}`;
  return `projects/${project}/locations/${location}`;
}

/** The variant a row's `:pool` asks for (`np1:fetchNodePoolUpgradeInfo`), if any. */
function variantOf(variant: RouteVariant | undefined, pool: string): RouteVariant | undefined {
  return variant && pool.endsWith(`:${variant.verb}`) ? variant : undefined;
}

/** What the wrapper of every route shares, per simulator. */
interface Edge {
  kernel: SimKernel<ClusterState>;
  /** Request bodies parsed once per distinct body text (see createParseCache). */
  parseBody: ReturnType<typeof createParseCache>;
  /** An answer's JSON text (see createJsonTexts). */
  jsonText: (body: unknown) => string;
}

/**
 * Everything common to a route: query check, auth, body parsing, then the handler; errors rendered once.
 * The path's parameters are the route pattern's, or `params` for a request matched another way.
 */
function handler<B>(
  edge: Edge,
  spec: RouteAction<B>,
  version: ApiVersion,
  viaZones: boolean,
  params?: (c: Ctx) => Record<string, string>,
) {
  const { parseBody } = edge;
  return (c: Ctx) => {
    const sim = c.var.sim;
    const world = sim.world;
    const state = world.state;
    const p = params ? params(c) : (c.req.param() as Record<string, string>);
    const variant = variantOf(spec.variant, p.pool ?? '');
    const errorCtx = {
      requestId: sim.requestId,
      method: `google.container.${version}.ClusterManager.${variant?.rpc ?? spec.rpc}`,
      etagMessage: state.settings.etagMismatchMessage,
    };
    const project = p.project ?? '';
    const location = p.location ?? '';
    const query = c.req.query();
    const run = (): Result<unknown, HttpError> => {
      const q = checkQuery(
        query,
        state.settings.strictUnknownFields,
        variant?.query ?? spec.query,
        c.req.url,
      );
      if (!q.ok) return q;
      const seg = viaZones ? 'zones' : 'locations';
      const resource =
        spec.level === 'cluster' && p.cluster
          ? `projects/${project}/${seg}/${location}/clusters/${p.cluster}`
          : location
            ? `projects/${project}/${seg}/${location}`
            : `projects/${project}`;
      const auth = authorize(
        {
          authorization: c.req.header('authorization'),
          accessToken: query.access_token,
          apiKey: query.key,
        },
        { permission: spec.permission, resource, readOnly: spec.readOnly },
        state.settings.auth,
      );
      if (!auth.ok) return auth;
      let body = {} as B;
      if (spec.body) {
        if (sim.jsonError !== undefined) {
          return fail({
            code: 'BAD_PAYLOAD',
            violations: [{ description: `Invalid JSON payload received. ${sim.jsonError}` }],
          });
        }
        const parsed = parseBody(
          spec.body,
          sim.rawBody ?? '',
          sim.json,
          state.settings.strictUnknownFields,
          version,
        );
        if (!parsed.ok) return parsed;
        body = parsed.value as B;
      }
      return spec.handle({
        c,
        world,
        state,
        version,
        project,
        projectId: canonicalProject(state, project),
        location,
        viaZones,
        cluster: p.cluster ?? '',
        pool: p.pool ?? '',
        operation: (p.operation ?? '').replace(/:cancel$/, ''),
        body,
        now: world.clock.now(),
      });
    };
    const result = run();
    if (!result.ok) return renderError(result.error, errorCtx);
    const body = wantsNumericEnums(query)
      ? encodeEnumsAsNumbers(variant?.response ?? spec.response, result.value)
      : result.value;
    return new Response(edge.jsonText(body), { status: 200, headers: googleHeaders(sim.requestId) });
  };
}

/** A route under both API versions and the forms it has (`locations`, legacy `zones`). */
function route(edge: Edge, { method, path: paths, ...spec }: RouteRow) {
  const { app } = edge.kernel;
  for (const version of ['v1beta1', 'v1'] as const) {
    for (const form of ['loc', 'zone'] as const) {
      const suffix = paths[form];
      if (suffix === undefined) continue;
      const variant = spec.variant;
      const name = variant
        ? (c: Ctx) => variantOf(variant, c.req.param('pool') ?? '')?.operation ?? spec.operation
        : spec.operation;
      app[method](
        `/${version}${ROOT[form]}${suffix}`,
        edge.kernel.operation(name, resourceOf),
        handler(edge, spec, version, form === 'zone'),
      );
    }
  }
}

type Named = ReturnType<SimKernel<ClusterState>['operation']>;

/** A custom verb's chain: its fault rules and journal name, then its handler. */
async function runVerb(c: Ctx, chain: { named: Named; handle: (c: Ctx) => Response }): Promise<Response> {
  const early = await chain.named(c, async () => {
    c.res = chain.handle(c);
  });
  return early ?? c.res;
}

/**
 * Custom verbs on a resource path (`…/nodePools/np1:setSize`): one handler per version, registered before
 * the path's own routes, runs the spec of a verb it knows and hands every other request to them.
 */
function verbHandlers(
  edge: Edge,
  method: 'post',
  form: keyof RoutePaths,
  suffix: string,
  byVerb: ReadonlyMap<string, RouteAction<unknown>>,
) {
  const { app } = edge.kernel;
  for (const version of ['v1beta1', 'v1'] as const) {
    const chains = new Map(
      [...byVerb].map(([verb, spec]) => {
        const named = edge.kernel.operation(spec.operation, resourceOf);
        const handle = handler(edge, spec, version, form === 'zone');
        return [verb, { named, handle }] as const;
      }),
    );
    // Not async: a request without a known verb goes on to the path's own routes with no promise of its own.
    app[method](`/${version}${ROOT[form]}${suffix}`, (c, next) => {
      const pool = c.req.param('pool') ?? '';
      const colon = pool.lastIndexOf(':');
      const chain = colon < 0 ? undefined : chains.get(pool.slice(colon + 1));
      return chain ? runVerb(c, chain) : next();
    });
  }
}

/**
 * The methods of the discovery table that the route tables below do not serve (routes/discovery.ts): a
 * middleware before every route answers them by the shape of their path, a spec's handler or the 501.
 */
function discoveryMethods(edge: Edge): void {
  const targets = discoveryTargets();
  const chains = new Map<DiscoveryTarget, { named: Named; handle: (c: Ctx) => Response }>();
  const matched = new WeakMap<Ctx, Record<string, string>>();
  const paramsOf = (c: Ctx) => matched.get(c) ?? {};
  const resource = (c: Ctx) => {
    const p = paramsOf(c);
    return p.cluster
      ? clusterName(p.project ?? '', p.location ?? '', p.cluster)
      : `projects/${p.project ?? ''}/locations/${p.location ?? ''}`;
  };
  for (const target of new Set(targets.values())) {
    const { version } = target.method;
    if (target.kind === 'spec') {
      chains.set(target, {
        named: edge.kernel.operation(target.spec.operation, resource),
        handle: handler(edge, target.spec, version, target.viaZones, paramsOf),
      });
    } else {
      const rpc = `google.container.${version}.ClusterManager.${target.method.rpc}`;
      const refusal: HttpError = {
        code: 'METHOD_NOT_SIMULATED',
        rpc,
        id: target.method.id,
        reason: target.reason,
      };
      // Credentials and permission first, as for any method (a read needs `get`, a change `update`);
      // the request's query and body are not looked at.
      const readOnly = target.method.httpMethod === 'GET';
      const permission = readOnly ? 'container.clusters.get' : 'container.clusters.update';
      chains.set(target, {
        named: edge.kernel.operation(target.name, resource),
        handle: (c) => {
          const query = c.req.query();
          const auth = authorize(
            {
              authorization: c.req.header('authorization'),
              accessToken: query.access_token,
              apiKey: query.key,
            },
            { permission, resource: resource(c), readOnly },
            c.var.sim.world.state.settings.auth,
          );
          return renderError(auth.ok ? refusal : auth.error, { requestId: c.var.sim.requestId, method: rpc });
        },
      });
    }
  }
  for (const version of ['v1beta1', 'v1'] as const) {
    edge.kernel.app.use(`/${version}/*`, (c, next) => {
      const match = matchDiscovery(targets, c.req.method, c.req.path);
      const chain = match && chains.get(match.target);
      if (!match || !chain) return next();
      matched.set(c, match.params);
      return runVerb(c, chain);
    });
  }
}

/** Registers the emulated API (v1beta1, and the same surface under v1) on the kernel's app. */
export function registerApiRoutes(kernel: SimKernel<ClusterState>): void {
  const edge: Edge = { kernel, parseBody: createParseCache(), jsonText: createJsonTexts() };
  discoveryMethods(edge);
  // The pool methods' custom verbs first: their handlers pass what they do not take to the pool routes.
  for (const form of ['loc', 'zone'] as const) {
    verbHandlers(edge, 'post', form, POOL_PATH[form], poolVerbs(form));
  }
  for (const r of API_ROUTES) route(edge, r);
}
