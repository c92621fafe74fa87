/**
 * The route row: the one registry of an emulated API. Each app declares its rows once (what it answers,
 * under which operation name, with which body and auth) and registers them, builds its OpenAPI document
 * from them and checks them in a shared conformance test. The type is the same in every app; what an
 * app's edge adds (cluster-sim's RPC and permission level, annotation-sim's journal resource) is its
 * `Extra`, its handler's signature `Handler`, its body schema's form `Body`.
 */

/** The HTTP methods a row answers (Hono's method names). */
export type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Where a row is mounted: one path pattern or several (when the API routes more than one form to it). */
export type RoutePath = string | readonly string[];

/**
 * What a route does, apart from where it is mounted: the operation name, the body, the auth and the
 * handler. A row served on paths another table decides (cluster-sim's discovery methods, its custom
 * verbs) is one of these; a row mounted on its own paths is a {@link RouteRow}.
 */
export type RouteAction<Handler, Body = unknown, Extra = object> = {
  /** The name the journal records and fault rules match on, e.g. `nodePools.update`, `projects.create`. */
  operation: string;
  /** The request body's schema, checked at the edge with the API's own errors before the handler runs. */
  body?: Body;
  /** No authentication before the handler (the handler authenticates itself, if at all). */
  anonymous?: boolean;
  /** The permission the caller needs, for an API whose edge checks one (GKE's IAM permission). */
  permission?: string;
  /** The handler, with the app's own request argument. */
  handle: Handler;
} & Extra;

/**
 * One row of a route table: a {@link RouteAction} with its method and path(s). `Path` is the app's form
 * of a path (annotation-sim: Hono patterns; cluster-sim: a suffix per path form, under both versions).
 */
export type RouteRow<Handler, Body = unknown, Extra = object, Path = RoutePath> = RouteAction<
  Handler,
  Body,
  Extra
> & {
  method: RouteMethod;
  path: Path;
};

/**
 * One (method, path) a row answers, as the OpenAPI document and the conformance test read it: the path
 * in OpenAPI's form (`/api/tasks/{id}`), the operation name, and the document's operationId when it is
 * not the operation name.
 */
export interface RouteEntry {
  method: RouteMethod;
  path: string;
  operation: string;
  operationId?: string;
}

/** A path a row answers, as {@link routeEntries}' `expand` gives it. */
export type ExpandedPath = string | { path: string; operation?: string; operationId?: string };

/** `:name` and `:name{regex}` in a Hono pattern are the OpenAPI path parameter `{name}`. */
export function openApiPathOf(pattern: string): string {
  return pattern.replace(/:([A-Za-z_]+)(\{(?:[^{}]|\{[^{}]*\})*\})?/g, '{$1}');
}

/**
 * The rows flattened into one entry per (method, path), in row order. By default a row's `path` (one
 * pattern or several) is read as Hono patterns; an app whose rows hold paths in another form passes
 * `expand`, which may also give a path its own operation name or operationId.
 *
 * @example routeEntries(rows) // [{ method: 'get', path: '/api/tasks/{id}', operation: 'tasks.retrieve' }, …]
 */
export function routeEntries<Row extends { method: RouteMethod; operation: string; path?: unknown }>(
  rows: readonly Row[],
  expand: (row: Row) => readonly ExpandedPath[] = (row) =>
    (typeof row.path === 'string' ? [row.path] : (row.path as readonly string[])).map(openApiPathOf),
): RouteEntry[] {
  return rows.flatMap((row) =>
    expand(row).map((p) =>
      typeof p === 'string'
        ? { method: row.method, path: p, operation: row.operation }
        : {
            method: row.method,
            path: p.path,
            operation: p.operation ?? row.operation,
            ...(p.operationId === undefined ? {} : { operationId: p.operationId }),
          },
    ),
  );
}
