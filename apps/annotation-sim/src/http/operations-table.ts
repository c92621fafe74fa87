import { CVAT_OPERATIONS, CVAT_SCHEMA_VERSION } from '@sims/annotation-schema';
import { type RouteEntry, routeEntries } from '@sims/sim-core';
import { deliveryOf } from '../definition';
import { EXPORT_FORMATS } from '../domain/exports/dataset';
import { apiRoutes } from './api-routes';
import { rowOperations } from './cvat-operations';
import type { AppDeps } from './deps';

/**
 * FIDELITY.md's table of CVAT's operations: each one simulated (a route row answers it as CVAT does),
 * chosen (a row answers it, departing from CVAT on purpose) or refused (no row: the 501 of
 * `unsimulated.ts`). Computed from the operations list and the rows, so a new row changes the table;
 * `scripts/write-operations-table.ts` writes it and test/operations-table.test.ts checks it.
 */

/** A project's dataset import: the formats with an importer and a dataset layout, a subset's items its images. */
const DATASET_IMPORT_CHOICE =
  "reads only the formats with an importer and a dataset layout (any other format is unknown to it), a subset's items its image files; no cloud storage source";

const EXPORT_CHOICE = `writes ${EXPORT_FORMATS.map((f) => `"${f}"`).join(', ')} only, with the annotations (any other format is unknown to it), frames as placeholder images`;

/** The operations a row answers with a deliberate difference from CVAT (FIDELITY.md says more). */
/** The annotation imports' departure: formats the simulator does not read are unknown to it. */
const IMPORT_CHOICE =
  'reads only the importers `/api/server/annotation/formats` lists (any other format is unknown to it); no cloud storage source';

const CHOSEN: Readonly<Record<string, string>> = {
  server_list_share: 'the share is empty: its root lists nothing, any other directory is 400',
  server_retrieve_annotation_formats: 'lists only the importers and exporters the simulator reads and writes',
  server_retrieve_plugins: 'a plain CVAT: `ANALYTICS` and `MODELS` false',
  projects_create_dataset_export: EXPORT_CHOICE,
  tasks_create_dataset_export: EXPORT_CHOICE,
  jobs_create_dataset_export: EXPORT_CHOICE,
  tasks_create_annotations: IMPORT_CHOICE,
  jobs_create_annotations: IMPORT_CHOICE,
  projects_create_dataset: DATASET_IMPORT_CHOICE,
};

/**
 * The (method, path, operation) of every row as an app with default options lists them (signed URLs off:
 * the signing route is CVAT <= 2.45's, in no 2.73 operation). The rows read no other dependency while
 * they are listed.
 */
export function listedRowEntries(): RouteEntry[] {
  const deps = {
    auth: { signedUrls: false, secretKey: 'unused', trustedOrigins: [] },
    strictAccept: true,
    quirks: { webhookConstraint500: true, unknownDelivery500: true },
    delivery: deliveryOf,
  } as Partial<AppDeps> as AppDeps;
  return routeEntries(apiRoutes(deps));
}

/** Where the table is in FIDELITY.md: between these two lines. */
export const TABLE_START = '<!-- operations-table: generated, do not edit -->';
export const TABLE_END = '<!-- /operations-table -->';

type OperationState = 'simulated' | 'chosen' | 'refused';

/** The state of every operation of CVAT's schema, in its order, with the chosen ones' reason. */
export function operationStates(
  entries: readonly RouteEntry[],
): { operationId: string; method: string; path: string; state: OperationState; note: string }[] {
  const routed = rowOperations(entries);
  return CVAT_OPERATIONS.map((op) => {
    const chosen = CHOSEN[op.operationId];
    const state: OperationState = !routed.has(op.operationId) ? 'refused' : chosen ? 'chosen' : 'simulated';
    return { operationId: op.operationId, method: op.method, path: op.path, state, note: chosen ?? '' };
  });
}

/** The operationIds in {@link CHOSEN} that no row answers: a stale entry. */
export function chosenWithoutRow(entries: readonly RouteEntry[]): string[] {
  const routed = rowOperations(entries);
  return Object.keys(CHOSEN).filter((id) => !routed.has(id));
}

/** The table as FIDELITY.md holds it, its start and end lines included. */
export function operationsTable(entries: readonly RouteEntry[]): string {
  const states = operationStates(entries);
  const count = (s: OperationState) => states.filter((o) => o.state === s).length;
  const status = (o: (typeof states)[number]) =>
    o.state === 'refused' ? 'refused: 501' : o.state === 'chosen' ? `chosen: ${o.note}` : 'simulated';
  return [
    TABLE_START,
    `CVAT ${CVAT_SCHEMA_VERSION}'s ${states.length} operations: ${count('simulated')} simulated, ` +
      `${count('chosen')} chosen, ${count('refused')} refused with the 501.`,
    '',
    '| operationId | method | path | status |',
    '|---|---|---|---|',
    ...states.map(
      (o) => `| \`${o.operationId}\` | ${o.method.toUpperCase()} | \`${o.path}\` | ${status(o)} |`,
    ),
    TABLE_END,
  ].join('\n');
}

/** `fidelity` with its table replaced by `table` (the text between the markers, markers included). */
export function withOperationsTable(fidelity: string, table: string): string {
  const start = fidelity.indexOf(TABLE_START);
  const end = fidelity.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error('FIDELITY.md has no operations table markers');
  return fidelity.slice(0, start) + table + fidelity.slice(end + TABLE_END.length);
}
