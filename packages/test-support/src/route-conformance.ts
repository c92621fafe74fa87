import type { Send } from './control-dialect';

/**
 * The route rows' conformance (issue 34: the route row is the one registry of each app), checked over
 * the (method, path, operation) entries sim-core's `routeEntries` gives for an app's rows. Each app's
 * `test/route-conformance.test.ts` calls `checkRouteRows` and expects no violations; the report also
 * says how many entries were called, so that a test can tell a walk that checked nothing from one that
 * found nothing wrong.
 */

/** One (method, path) a row answers, as sim-core's `routeEntries` gives it (OpenAPI path form). */
export interface RouteRowEntry {
  method: string;
  path: string;
  operation: string;
  operationId?: string;
}

/** The part of an OpenAPI document the check reads. */
export interface RouteDocument {
  paths: Record<string, Record<string, { operationId?: string } | undefined>>;
}

export interface RouteRowsOptions {
  entries: readonly RouteRowEntry[];
  /** The app's `/openapi.json`. */
  document: RouteDocument;
  /** Sends to a fresh simulator in process (`appSender(sim.app)`), authenticated as the app needs. */
  send: Send;
  /** A path parameter's value naming nothing there (default `sim-missing-id`). */
  fill?: (name: string) => string;
  /**
   * Whether an answer is the framework's unmatched-route one (no row took the request), as opposed to
   * the API's own answer, a "not found" for the missing resource included.
   */
  unmatched: (res: Response, text: string) => boolean;
  /** The operation name the journal recorded for the last request. */
  lastOperation: () => string | undefined;
}

export interface RouteRowsReport {
  violations: string[];
  /** `"METHOD path"` of every entry called. */
  called: string[];
}

const key = (e: { method: string; path: string }) => `${e.method.toUpperCase()} ${e.path}`;

/** The shape of the rows alone: (method, path) once, a non-empty operation. */
function shapeViolations(entries: readonly RouteRowEntry[]): string[] {
  const violations: string[] = [];
  const seen = new Map<string, string>();
  for (const e of entries) {
    if (e.operation.trim() === '') violations.push(`${key(e)}: the row has no operation name`);
    const before = seen.get(key(e));
    if (before !== undefined) violations.push(`${key(e)}: two rows (${before}, ${e.operation})`);
    seen.set(key(e), e.operation);
  }
  return violations;
}

/** The document against the rows: the same (method, path) set, each with the row's operationId. */
function documentViolations(entries: readonly RouteRowEntry[], doc: RouteDocument): string[] {
  const violations: string[] = [];
  const listed = new Map<string, string | undefined>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) listed.set(key({ method, path }), op?.operationId);
  }
  const rows = new Set(entries.map(key));
  for (const e of entries) {
    if (!listed.has(key(e))) violations.push(`${key(e)}: a row the OpenAPI document does not list`);
    else if (listed.get(key(e)) !== (e.operationId ?? e.operation))
      violations.push(
        `${key(e)}: operationId ${String(listed.get(key(e)))}, the row's ${e.operationId ?? e.operation}`,
      );
  }
  for (const k of listed.keys()) if (!rows.has(k)) violations.push(`${k}: listed by the document, no row`);
  return violations;
}

/**
 * Checks an app's route rows: no two rows share (method, path); every row has an operation name; the
 * OpenAPI document lists exactly the rows' (method, path) with their operationId (or operation name);
 * each row's path, its parameters filled with an id that names nothing, is answered by the row (never
 * the framework's unmatched-route answer) and journaled under the row's operation name.
 *
 * @example
 * const report = await checkRouteRows({ entries, document, send, unmatched, lastOperation });
 * expect(report.violations).toEqual([]);
 */
export async function checkRouteRows(options: RouteRowsOptions): Promise<RouteRowsReport> {
  const { entries, send, unmatched, lastOperation } = options;
  const fill = options.fill ?? (() => 'sim-missing-id');
  const violations = [...shapeViolations(entries), ...documentViolations(entries, options.document)];
  const called: string[] = [];
  for (const e of entries) {
    const path = e.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(fill(name)));
    const method = e.method.toUpperCase();
    const hasBody = method !== 'GET' && method !== 'DELETE';
    const res = await send(method, path, hasBody ? { body: '{}', contentType: 'application/json' } : {});
    const text = await res.text();
    called.push(key(e));
    if (unmatched(res, text)) {
      violations.push(`${key(e)}: answered as no route (${res.status}) at ${method} ${path}`);
      continue;
    }
    const journaled = lastOperation();
    if (journaled !== e.operation)
      violations.push(`${key(e)}: journaled as ${String(journaled)}, the row's operation is ${e.operation}`);
  }
  return { violations, called };
}
