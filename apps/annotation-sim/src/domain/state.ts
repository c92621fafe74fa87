import type { WebhookRec } from './model';
import { LazyTables, TABLES, type TableName, type Tables } from './state-tables';

/**
 * The serializable part of a world's state: its tables (state-tables.ts, where a new table is declared
 * once), the id counters, the base URL.
 */
export interface AnnotationData extends Tables {
  /** Last id handed out per table (ids start at 1 like a fresh database). */
  seq: Record<string, number>;
  /** Scheme+host the API was last reached at; used for absolute `url` fields. */
  baseUrl: string;
  /**
   * What `baseUrl` was derived from (origin and Host header), so the next request from the same place
   * reuses it without parsing its URL (http/api.ts); not in snapshots.
   */
  baseUrlFrom?: { origin: string; host: string | undefined };
  /** Compatibility switches of the read representations (simulator configuration, not in snapshots). */
  compat?: Compat;
}

/** Representations of older CVAT releases, each off by default (2.73 fidelity). */
export interface Compat {
  /**
   * Embed the 2022-era `segments` list (`{start_frame, stop_frame, jobs: [{url, id, assignee, status,
   * stage, state}]}`) in the task, as seed 2.4 documents the task of webhook payloads. CVAT 2.73's
   * TaskRead has no `segments`.
   */
  taskSegments: boolean;
}

export interface AnnotationState extends AnnotationData {
  /** Slots other modules (e.g. the events API) keep their own per-world state in. */
  extensions: Map<string, unknown>;
}

/** A table of `data` if it was made (an unmade one reads as empty), without making it. */
function tableIfMade(data: AnnotationData, t: TableName): ReadonlyMap<unknown, unknown> | undefined {
  return data instanceof LazyTables ? data.tableIfMade(t) : data[t];
}

/**
 * A world's state. Its tables are made on first use ({@link LazyTables}), so a namespace that was only
 * touched costs little more than this object.
 */
class WorldState extends LazyTables implements AnnotationState {
  seq: Record<string, number> = {};
  baseUrl: string;
  baseUrlFrom: AnnotationData['baseUrlFrom'] = undefined;
  compat: Compat | undefined = undefined;
  extensions = new Map<string, unknown>();

  constructor(baseUrl: string) {
    super();
    this.baseUrl = baseUrl;
  }
}

/**
 * Builds a world's state. It has no change listeners: the domain records its changes in its
 * MutationContext and the edge hands them on (`src/changes-dispatch.ts`).
 */
export function createAnnotationState(baseUrl: string): AnnotationState {
  return new WorldState(baseUrl);
}

/** Next id of a table. */
export function nextId(data: AnnotationData, table: string): number {
  const id = (data.seq[table] ?? 0) + 1;
  data.seq[table] = id;
  return id;
}

/**
 * A JSON snapshot of the data (maps as arrays of records). It makes no table: one never made is written
 * as the empty table it would be.
 */
export function exportData(data: AnnotationData): Record<string, unknown> {
  const out: Record<string, unknown> = { seq: { ...data.seq }, baseUrl: data.baseUrl };
  for (const t of TABLES) out[t] = [...(tableIfMade(data, t)?.entries() ?? [])];
  return out;
}

/** Replaces the data of `state` from a snapshot made by `exportData` (shape checked by the caller). */
export function importData(state: AnnotationState, snapshot: Record<string, unknown>): void {
  for (const t of TABLES) {
    const entries = (snapshot[t] ?? []) as [unknown, unknown][];
    // Nothing to put in a table never made: it stays unmade (read, it is the empty table it would be).
    if (Array.isArray(entries) && entries.length === 0 && tableIfMade(state, t) === undefined) continue;
    if (t === 'webhooks') {
      // The same table, refilled: its watchers (the delivery engine) must see the change.
      state.webhooks.clear();
      // Copies: the table freezes what it stores, and the snapshot's objects are the caller's.
      for (const [id, record] of entries as [number, WebhookRec][])
        state.webhooks.set(id, {
          ...record,
          events: Array.isArray(record.events) ? [...record.events] : record.events,
        });
    } else (state as unknown as Record<string, Map<unknown, unknown>>)[t] = new Map(entries);
  }
  state.seq = { ...((snapshot.seq as Record<string, number>) ?? {}) };
  if (typeof snapshot.baseUrl === 'string') state.baseUrl = snapshot.baseUrl;
}
