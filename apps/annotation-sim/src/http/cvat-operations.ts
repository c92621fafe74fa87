import { CVAT_OPERATIONS } from '@sims/annotation-schema';
import type { RouteEntry } from '@sims/sim-core';

/**
 * CVAT's operations (its OpenAPI schema's, `@sims/annotation-schema`'s generated list) beside the route
 * rows: which row answers each, and the names the journal and the OpenAPI document give them.
 */

/**
 * A (method, path template) with its parameters' names and a trailing `/` left out: the same for an
 * operation (`/api/tasks/{id}/annotations/`) and a row's OpenAPI path (`/api/tasks/{id}/annotations`).
 * CVAT routes the schema's trailing-slash paths with `url_path=r'…/?$'`, so both forms are the one view.
 */
function shapeKey(method: string, path: string): string {
  return `${method.toLowerCase()} ${path.replace(/\{[^}]+\}/g, '{}').replace(/\/$/, '')}`;
}

/** The journal's and fault rules' name of an operation, as the rows spell theirs: `tasks.retrieve_annotations`. */
export function journalOperation(operationId: string): string {
  return operationId.replace('_', '.');
}

/** The row entry (of `entries`: the rows' methods and paths) that answers each operation, by operationId. */
export function rowOperations(entries: readonly RouteEntry[]): Map<string, RouteEntry> {
  const byShape = new Map(entries.map((e) => [shapeKey(e.method, e.path), e]));
  const out = new Map<string, RouteEntry>();
  for (const op of CVAT_OPERATIONS) {
    const entry = byShape.get(shapeKey(op.method, op.path));
    if (entry) out.set(op.operationId, entry);
  }
  return out;
}

/** The schema's operationIds by shape, built on first use. */
let idsByShape: Map<string, string> | undefined;

/** CVAT's operationId of a (method, path) its schema has (`get /api/server/about` → `server_retrieve_about`). */
export function schemaOperationId(method: string, path: string): string | undefined {
  idsByShape ??= new Map(CVAT_OPERATIONS.map((op) => [shapeKey(op.method, op.path), op.operationId]));
  return idsByShape.get(shapeKey(method, path));
}
