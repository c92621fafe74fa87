import type { EventQuery } from './record';

/**
 * An events export job's record and status: what the export lifecycle (export.ts), the events state that
 * holds the jobs (state.ts) and the budget that counts them (export-budget.ts) all speak of, kept apart
 * from the lifecycle so none of them needs another to name a job.
 */

export type ExportStatus = 'queued' | 'started' | 'finished' | 'failed';

/** What CVAT's RQ job keeps (meta, timings, result). All times epoch ms of the world clock. */
export interface ExportJob {
  /** `action=export&target=events&id=<uuid>&user_id=<id>` */
  rqId: string;
  queryId: string;
  owner: { id: number; username: string };
  /** The organization context of the request that started it (RequestDataOperation.org_id). */
  orgId: number | null;
  query: EventQuery;
  /** `filename` as asked; null: `logs_<enqueue time>.csv`. */
  filename: string | null;
  /** Exported to cloud storage: no local file, `result_url` null. */
  cloud: boolean;
  createdAt: number;
  startAt: number;
  /** When the outcome timer fires; null in "N polls" mode. */
  finishAt: number | null;
  /** "N polls" mode: polls still answered as running. */
  pollsLeft: number | null;
  /** A planned failure (fault rule): the job fails with this message instead of finishing. */
  failWith: string | null;
  /** The analytics store was unreachable for this job (fault rule): it fails with CVAT's message. */
  storeDown: boolean;
  /**
   * A finished export's `rowLimit` is the store's `appended` then: its rows are those numbered below
   * it that match (rows evicted before or while it downloads are gone, as ClickHouse's TTL would do).
   */
  outcome:
    | null
    | { status: 'finished'; at: number; rowLimit: number }
    | { status: 'failed'; at: number; message: string };
  /** The file was removed before the job expired (control plane): download answers 404. */
  fileExpired: boolean;
}
