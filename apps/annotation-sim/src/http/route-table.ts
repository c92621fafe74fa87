import type { Context } from 'hono';
import type { ApiError } from '../domain/errors';
import { type ApiRequest, api, type RouteDeps } from './api';
import type { Kernel } from './deps';
import { renderApiError } from './respond';

/**
 * One route of the emulated API: what it matches, the operation it is journaled and fault-matched under,
 * and its handler. A resource family exports a table of these (`routes/projects.ts`, …); the tables
 * are registered in order by {@link registerRoutes}.
 */
export interface RouteSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Hono path patterns (several when CVAT routes more than one form to the view). */
  path: string | readonly string[];
  /** The operation name the journal records and fault rules match on, e.g. `projects.partial_update`. */
  operation: string;
  /** The resource the journal records and fault rules match on, e.g. `projects/3`. */
  resource?: (c: Context) => string;
  /** The view: answers the request, a refused decision rendered with {@link refused}. */
  handle: (r: ApiRequest) => Response | Promise<Response>;
  /** No authentication before the handler (the view authenticates itself, if at all). */
  anonymous?: boolean;
}

/** The journal's resource for a route with an `:id`: `<kind>/<id>`, e.g. `tasks/7`. */
export const byId =
  (kind: string) =>
  (c: Context): string =>
    `${kind}/${c.req.param('id')}`;

/** The answer to a refused decision: CVAT's body and status for its error. */
export function refused(r: ApiRequest, failure: { error: ApiError }): Response {
  return renderApiError(r.c, failure.error);
}

/**
 * Registers routes in table order (Hono tries matching routes in registration order), each behind the
 * kernel's operation middleware and the {@link api} wrapper.
 */
export function registerRoutes(kernel: Kernel, deps: RouteDeps, routes: readonly RouteSpec[]): void {
  const { app, operation } = kernel;
  for (const route of routes) {
    const paths = typeof route.path === 'string' ? [route.path] : route.path;
    const options = route.anonymous ? { anonymous: true } : {};
    for (const path of paths) {
      app[route.method](path, operation(route.operation, route.resource), api(deps, route.handle, options));
    }
  }
}
