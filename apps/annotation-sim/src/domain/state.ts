import type { ChangeListener, ResourceChange } from './changes';
import type {
  AccessTokenRec,
  CommentRec,
  DeliveryRec,
  InvitationRec,
  IssueRec,
  JobRec,
  MembershipRec,
  OrganizationRec,
  ProjectRec,
  SessionRec,
  TaskRec,
  UserRec,
  WebhookRec,
} from './model';

/**
 * The webhooks table: a Map that freezes the records put in it and tells its watchers of every change.
 * The delivery engine hands a webhook's queued deliveries to the delivery thread ahead of their turn only
 * while no webhook has changed since (docs/decisions/0011), so a change has to be a `set` or a `delete`:
 * an edit in place would go unseen, and on a frozen record it throws instead.
 */
class WebhookTable extends Map<number, WebhookRec> {
  /** Undefined while Map's constructor runs (fields are set after `super()`). */
  #watchers: Set<() => void> | undefined = new Set();

  override set(id: number, record: WebhookRec): this {
    Object.freeze(record.events);
    super.set(id, Object.freeze(record));
    this.#changed();
    return this;
  }
  override delete(id: number): boolean {
    const had = super.delete(id);
    if (had) this.#changed();
    return had;
  }
  override clear(): void {
    super.clear();
    this.#changed();
  }
  /** Calls `listener` after every change; returns the unsubscribe function. */
  watch(listener: () => void): () => void {
    this.#watchers?.add(listener);
    return () => this.#watchers?.delete(listener);
  }
  #changed() {
    if (this.#watchers) for (const w of this.#watchers) w();
  }
}

/** The serializable part of a world's state. */
export interface AnnotationData {
  users: Map<number, UserRec>;
  /** DRF auth tokens (`Authorization: Token <key>`): key → user id. */
  tokens: Map<string, number>;
  sessions: Map<string, SessionRec>;
  accessTokens: Map<string, AccessTokenRec>;
  organizations: Map<number, OrganizationRec>;
  memberships: Map<number, MembershipRec>;
  invitations: Map<string, InvitationRec>;
  projects: Map<number, ProjectRec>;
  tasks: Map<number, TaskRec>;
  jobs: Map<number, JobRec>;
  issues: Map<number, IssueRec>;
  comments: Map<number, CommentRec>;
  webhooks: WebhookTable;
  deliveries: Map<number, DeliveryRec>;
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
  /** The one hook every mutation calls. Listeners must not throw (errors are caught and logged). */
  emit(change: ResourceChange): void;
  /** Subscribes to this world's changes; returns the unsubscribe function. */
  subscribe(listener: ChangeListener): () => void;
  /** Slots other modules (e.g. the events API) keep their own per-world state in. */
  extensions: Map<string, unknown>;
}

const TABLES = [
  'users',
  'tokens',
  'sessions',
  'accessTokens',
  'organizations',
  'memberships',
  'invitations',
  'projects',
  'tasks',
  'jobs',
  'issues',
  'comments',
  'webhooks',
  'deliveries',
] as const;

function createData(baseUrl: string): AnnotationData {
  return {
    users: new Map(),
    tokens: new Map(),
    sessions: new Map(),
    accessTokens: new Map(),
    organizations: new Map(),
    memberships: new Map(),
    invitations: new Map(),
    projects: new Map(),
    tasks: new Map(),
    jobs: new Map(),
    issues: new Map(),
    comments: new Map(),
    webhooks: new WebhookTable(),
    deliveries: new Map(),
    seq: {},
    baseUrl,
  };
}

/** Builds a state whose `emit` calls the per-world listeners and then `globalListeners`. */
export function createAnnotationState(
  baseUrl: string,
  globalListeners: () => Iterable<ChangeListener>,
): AnnotationState {
  const listeners = new Set<ChangeListener>();
  const state: AnnotationState = {
    ...createData(baseUrl),
    extensions: new Map(),
    emit(change) {
      for (const listener of [...listeners, ...globalListeners()]) {
        try {
          listener(change, state);
        } catch (err) {
          console.error('annotation-sim: a change listener failed', err);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return state;
}

/** Next id of a table. */
export function nextId(data: AnnotationData, table: string): number {
  const id = (data.seq[table] ?? 0) + 1;
  data.seq[table] = id;
  return id;
}

/** A JSON snapshot of the data (maps as arrays of records). */
export function exportData(data: AnnotationData): Record<string, unknown> {
  const out: Record<string, unknown> = { seq: { ...data.seq }, baseUrl: data.baseUrl };
  for (const t of TABLES) out[t] = [...(data[t] as Map<unknown, unknown>).entries()];
  return out;
}

/** Replaces the data of `state` from a snapshot made by `exportData` (shape checked by the caller). */
export function importData(state: AnnotationState, snapshot: Record<string, unknown>): void {
  for (const t of TABLES) {
    const entries = (snapshot[t] ?? []) as [unknown, unknown][];
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
