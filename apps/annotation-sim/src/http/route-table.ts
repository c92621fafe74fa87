import type { RouteRow as CoreRouteRow } from '@sims/sim-core';
import type { Context } from 'hono';
import type * as z from 'zod';
import type { ApiError } from '../domain/errors';
import { type ApiRequest, api, type RouteDeps } from './api';
import type { Kernel } from './deps';
import type { RequestSchema } from './parse';
import { renderApiError } from './respond';

/**
 * A row's view: answers the request, a refused decision rendered with {@link refused}. Declared through
 * a method so that a row of a typed body is still a row of `unknown` in a table (TypeScript checks method
 * parameters bivariantly).
 */
type RouteHandler<B> = {
  bivarianceHack(r: ApiRequest<B>): Response | Promise<Response>;
}['bivarianceHack'];

/**
 * A row's body: a request schema of `@sims/annotation-schema` (a DRF serializer), built on its first
 * use. The edge checks the body against it with DRF's errors when the view reads it (`r.body()`); a
 * PATCH is partial, as DRF's `partial_update` is.
 */
export type RouteBody<B> = () => RequestSchema & z.ZodType<B>;

/**
 * One route of the emulated API, sim-core's route row: what it matches (Hono patterns, several when CVAT
 * routes more than one form to the view), the operation the journal records and fault rules match on
 * (e.g. `projects.partial_update`), the body it takes, `anonymous` for a view that authenticates itself,
 * and its handler; the journal's resource (e.g. `projects/3`) is annotation-sim's extra. A resource
 * family exports a table of these (`routes/projects.ts`, …); `http/api-routes.ts` lists the tables in
 * order and {@link registerRoutes} registers them. Write a row with a body through {@link withBody},
 * which checks that the handler takes what the schema gives.
 */
export type RouteRow<B = unknown> = CoreRouteRow<RouteHandler<B>, RouteBody<B>, RouteExtra>;

/** What annotation-sim's rows add to sim-core's. */
interface RouteExtra {
  /** The resource the journal records and fault rules match on, e.g. `projects/3`. */
  resource?: (c: Context) => string | undefined;
}

/**
 * A row with a body, checked: the handler takes what the schema gives (`r.body()`), so a row whose
 * schema does not give a field the handler needs does not compile.
 */
export function withBody<B>(
  row: Omit<RouteRow<B>, 'body' | 'handle'> & {
    body: RouteBody<B>;
    handle: (r: ApiRequest<B>) => Response | Promise<Response>;
  },
): RouteRow {
  return row as RouteRow;
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
 * Registers the emulated API's rows (every route it answers: `apiRoutes` in `http/api-routes.ts`) in
 * table order (Hono tries matching routes in registration order), each behind the kernel's operation
 * middleware and the {@link api} wrapper. The one place a route of the API is registered.
 */
export function registerRoutes(kernel: Kernel, deps: RouteDeps, routes: readonly RouteRow[]): void {
  const { app, operation } = kernel;
  for (const route of routes) {
    const paths = typeof route.path === 'string' ? [route.path] : route.path;
    const options = {
      ...(route.anonymous ? { anonymous: true } : {}),
      ...(route.body ? { body: { schema: route.body, partial: route.method === 'patch' } } : {}),
    };
    for (const path of paths) {
      app[route.method](path, operation(route.operation, route.resource), api(deps, route.handle, options));
    }
  }
}
