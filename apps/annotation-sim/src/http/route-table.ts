import type { Context } from 'hono';
import type * as z from 'zod';
import type { ApiError } from '../domain/errors';
import { type ApiRequest, api, type RouteDeps } from './api';
import type { Kernel } from './deps';
import type { RequestSchema } from './parse';
import { renderApiError } from './respond';

/**
 * One route of the emulated API: what it matches, the operation it is journaled and fault-matched under,
 * the body it takes, and its handler. A resource family exports a table of these (`routes/projects.ts`,
 * …); the tables are registered in order by {@link registerRoutes}. Write a row with a body through
 * {@link withBody}, which checks that the handler takes what the schema gives.
 */
export interface RouteSpec<B = unknown> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Hono path patterns (several when CVAT routes more than one form to the view). */
  path: string | readonly string[];
  /** The operation name the journal records and fault rules match on, e.g. `projects.partial_update`. */
  operation: string;
  /** The resource the journal records and fault rules match on, e.g. `projects/3`. */
  resource?: (c: Context) => string;
  /**
   * The body's fields: a request schema of `@sims/annotation-schema` (a DRF serializer), built on its
   * first use. The edge checks the body against it with DRF's errors when the view reads it
   * (`r.body()`); a PATCH is partial, as DRF's `partial_update` is.
   */
  body?: () => RequestSchema & z.ZodType<B>;
  /** The view: answers the request, a refused decision rendered with {@link refused}. */
  handle(r: ApiRequest<B>): Response | Promise<Response>;
  /** No authentication before the handler (the view authenticates itself, if at all). */
  anonymous?: boolean;
}

/**
 * A row with a body, checked: the handler takes what the schema gives (`r.body()`), so a row whose
 * schema does not give a field the handler needs does not compile.
 */
export function withBody<B>(
  row: Omit<RouteSpec<B>, 'body' | 'handle'> & {
    body: () => RequestSchema & z.ZodType<B>;
    handle: (r: ApiRequest<B>) => Response | Promise<Response>;
  },
): RouteSpec {
  return row as RouteSpec;
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
    const options = {
      ...(route.anonymous ? { anonymous: true } : {}),
      ...(route.body ? { body: { schema: route.body, partial: route.method === 'patch' } } : {}),
    };
    for (const path of paths) {
      app[route.method](path, operation(route.operation, route.resource), api(deps, route.handle, options));
    }
  }
}
