import { fail, inputRefusal, joinPath, ok, type Result, SimInputError } from '@sims/sim-core';
import type * as z from 'zod';
import { checkAnnotationsSnapshot } from './annotations/snapshot-check';
import { type EventsSnapshot, eventsSnapshotSchema } from './events/state';
import { type RequestsSnapshot, requestsSnapshotSchema } from './requests/state';
import { type DataSnapshot, dataSnapshotSchema } from './snapshot-schema';
import { TABLE_FACTS, TABLES, type TableName } from './state-tables';

/**
 * A state snapshot checked whole before anything of a world is replaced (`PUT /_sim/state`,
 * `--state-file`): its shape (snapshot-schema.ts), that every row's key is its record's, that no id is
 * there twice, that every id a record names is in its table, and that the id counters are past every id
 * in use. A refusal is a SimInputError with the path of the first problem (`state.jobs[0][1].task_id: …`).
 * Every check is one pass over the rows with Maps and Sets: linear in the snapshot's size.
 */

type Segments = (string | number)[];

/**
 * Parses a part of a snapshot with `schema`; a refusal names the part's path under `prefix`
 * (`state.extensions.events.events[3].scope: …`).
 */
function parseSnapshotPart<T extends z.ZodType>(schema: T, input: unknown, prefix: Segments): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const refusal = inputRefusal(result.error, prefix);
  throw new SimInputError(refusal.message, refusal.path);
}

/** Why a snapshot was refused, as cluster-sim's: the path of the first problem and the message. */
export interface SnapshotRefusal {
  path: Segments;
  message: string;
}

/**
 * Runs the checks of a whole snapshot (`read`) and answers their result or the refusal, as cluster-sim's
 * `importClusterState` does: the definition turns a refusal into the control plane's 400. The checks
 * below are nested walks that stop at the first problem by throwing (a Result threaded through each
 * callback would be all plumbing); this is the one place that catches them.
 */
export function readSnapshot<T>(read: () => T): Result<T, SnapshotRefusal> {
  try {
    return ok(read());
  } catch (err) {
    if (!(err instanceof SimInputError)) throw err;
    return fail({ path: err.segments, message: err.message });
  }
}

/**
 * Runs `read` with its SimInputError's path put under `prefix` (`egress.allow[0]` read in a snapshot is
 * `state.delivery.egress.allow[0]`).
 */
export function within<T>(prefix: Segments, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof SimInputError)) throw err;
    const segments = [...prefix, ...err.segments];
    const own = err.path !== undefined && err.message.startsWith(`${err.path}: `);
    const text = own ? err.message.slice((err.path as string).length + 2) : err.message;
    throw new SimInputError(`${joinPath(segments)}: ${text}`, segments);
  }
}

/** The ids each table's records name, in refusal order (state-tables.ts declares them per table). */
const REFERENCES = TABLES.flatMap((table) =>
  (TABLE_FACTS[table].references ?? []).map(({ field, target }) => ({ table, field, target })),
);
/** Tables whose records take their ids from the `seq` counter of the same name. */
const COUNTED = TABLES.filter((table) => TABLE_FACTS[table].counted);
const singular = (table: TableName) => TABLE_FACTS[table].singular;

type Row = [string | number, Record<string, unknown>];

function refuse(path: Segments, message: string): never {
  throw new SimInputError(`${joinPath(path)}: ${message}`, path);
}

/**
 * Reads a snapshot's `state`: its data, and the raw parts other modules check (`extensions` by name, the
 * delivery engine's `egress`). `extensionNames` are the parts this simulator has; another is refused.
 * Throws SimInputError; changes nothing.
 */
export function checkDataSnapshot(snapshot: unknown, extensionNames: readonly string[]): DataSnapshot {
  const data = parseSnapshotPart(dataSnapshotSchema(), snapshot, ['state']);
  for (const name of Object.keys(data.extensions ?? {}))
    if (!extensionNames.includes(name))
      refuse(
        ['state', 'extensions', name],
        `unknown part (this simulator keeps ${extensionNames.join(', ')})`,
      );

  // Row keys against their records, and each key once; numeric ids kept for the references below.
  const ids = new Map<TableName, Set<unknown>>();
  for (const table of TABLES) {
    const rows = (data[table] ?? []) as Row[] | [string, number][];
    const seen = new Map<unknown, number>();
    rows.forEach((row, i) => {
      const key = row[0];
      const field = TABLE_FACTS[table].key;
      if (field !== undefined) {
        const own = (row[1] as Record<string, unknown>)[field];
        if (own !== key) refuse(['state', table, i, 1, field], `${String(own)} is not its row's key ${key}`);
      }
      const first = seen.get(key);
      if (first !== undefined)
        refuse(
          ['state', table, i, 0],
          `${singular(table)} ${key} is there twice (also state.${table}[${first}])`,
        );
      seen.set(key, i);
    });
    ids.set(table, new Set(seen.keys()));
  }
  // Access tokens are keyed by their key; their numeric ids must be unique as well.
  const tokenIds = new Map<number, number>();
  (data.accessTokens ?? []).forEach(([, token], i) => {
    const first = tokenIds.get(token.id);
    if (first !== undefined)
      refuse(
        ['state', 'accessTokens', i, 1, 'id'],
        `access token ${token.id} is there twice (also state.accessTokens[${first}])`,
      );
    tokenIds.set(token.id, i);
  });

  const users = ids.get('users') as Set<unknown>;
  (data.tokens ?? []).forEach(([, userId], i) => {
    if (!users.has(userId)) refuse(['state', 'tokens', i, 1], `no user ${userId} in state.users`);
  });
  for (const { table, field, target } of REFERENCES) {
    const targets = ids.get(target) as Set<unknown>;
    ((data[table] ?? []) as Row[]).forEach(([, record], i) => {
      const value = record[field];
      if (value !== null && !targets.has(value))
        refuse(['state', table, i, 1, field], `no ${singular(target)} ${value} in state.${target}`);
    });
  }
  (data.webhooks ?? []).forEach(([, w], i) => {
    const field = w.type === 'project' ? 'project_id' : 'organization_id';
    if (w[field] === null) refuse(['state', 'webhooks', i, 1, field], `a ${w.type} webhook needs one`);
  });

  checkLabels(data);
  checkCounters(data, tokenIds);
  checkAnnotationsSnapshot(data.annotations ?? [], data.seq ?? {});
  return data;
}

/**
 * A label is a project's or a task's (one of the two), a sublabel under a label of the same one that is
 * not a sublabel itself; each attribute id is used once.
 */
function checkLabels(data: DataSnapshot): void {
  const labels = new Map((data.labels ?? []).map(([id, l]) => [id, l]));
  const attributeIds = new Map<number, string>();
  (data.labels ?? []).forEach(([, l], i) => {
    const at = ['state', 'labels', i, 1];
    if ((l.project_id === null) === (l.task_id === null))
      refuse([...at, 'project_id'], 'a label is of a project or of a task (one of project_id and task_id)');
    if (l.parent_id !== null) {
      const parent = labels.get(l.parent_id);
      if (
        parent &&
        (parent.parent_id !== null || parent.project_id !== l.project_id || parent.task_id !== l.task_id)
      )
        refuse([...at, 'parent_id'], `label ${l.parent_id} is not a label of the same project or task`);
    }
    l.attributes.forEach((a, j) => {
      const first = attributeIds.get(a.id);
      if (first !== undefined)
        refuse([...at, 'attributes', j, 'id'], `attribute ${a.id} is there twice (also ${first})`);
      attributeIds.set(a.id, joinPath([...at, 'attributes', j]));
    });
  });
}

/**
 * The id counters must be past every id in use: the next record would otherwise take (and replace) one.
 * Label attributes and task data count in `seq.attributes` and `seq.data`.
 */
function checkCounters(data: DataSnapshot, tokenIds: Map<number, number>): void {
  const seq = data.seq ?? {};
  const need = (counter: string, largest: number, where: string) => {
    if (largest > (seq[counter] ?? 0))
      refuse(
        ['state', 'seq', counter],
        `${seq[counter] ?? 'none'}, below ${largest}, the largest id in ${where} (the next one would reuse an id)`,
      );
  };
  for (const table of COUNTED) {
    let largest = 0;
    if (table === 'accessTokens') for (const id of tokenIds.keys()) largest = Math.max(largest, id);
    else for (const [id] of (data[table] ?? []) as Row[]) largest = Math.max(largest, id as number);
    need(table, largest, `state.${table}`);
  }
  let attribute = 0;
  let dataId = 0;
  for (const [, l] of data.labels ?? []) for (const a of l.attributes) attribute = Math.max(attribute, a.id);
  for (const [, t] of data.tasks ?? []) if (t.data_id !== null) dataId = Math.max(dataId, t.data_id);
  need('attributes', attribute, 'the attributes of state.labels');
  need('data', dataId, 'the data_id of state.tasks');
}

/** Refuses a key given twice in `items` (`state.extensions.requests.requests[4].id: …`). */
function once<T>(
  items: readonly T[],
  keyOf: (item: T) => unknown,
  path: Segments,
  field: string | number,
): void {
  const seen = new Map<unknown, number>();
  items.forEach((item, i) => {
    const key = keyOf(item);
    const first = seen.get(key);
    if (first !== undefined)
      refuse(
        [...path, i, field],
        `${JSON.stringify(key)} is there twice (also ${joinPath([...path, first])})`,
      );
    seen.set(key, i);
  });
}

/** The events API's part of a snapshot, read at `path`: its shape, and each export job once. */
export function checkEventsPart(input: unknown, path: Segments): EventsSnapshot {
  const part = parseSnapshotPart(eventsSnapshotSchema(), input, path);
  once(part.jobs, (job) => job.rqId, [...path, 'jobs'], 'rqId');
  return part;
}

/** The background requests' part of a snapshot, read at `path`: its shape, each request and upload once. */
export function checkRequestsPart(input: unknown, path: Segments): RequestsSnapshot {
  const part = parseSnapshotPart(requestsSnapshotSchema(), input, path);
  once(part.requests, (r) => r.id, [...path, 'requests'], 'id');
  once(part.uploads, ([taskId]) => taskId, [...path, 'uploads'], 0);
  return part;
}
