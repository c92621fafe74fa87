import { EVENT_LOG_CSV_COLUMNS } from '@sims/annotation-schema/event-log';

/** A row of the event log: CVAT's ClickHouse `events` table, and the queries an export runs on it. */

/** One row of the event log as CVAT stores it (timestamp in epoch milliseconds, `DateTime64(3)`). */
export interface EventRecord {
  scope: string;
  obj_name: string | null;
  obj_id: number | null;
  obj_val: string | null;
  source: string | null;
  timestamp: number;
  count: number | null;
  duration: number;
  project_id: number | null;
  task_id: number | null;
  job_id: number | null;
  user_id: number | null;
  user_name: string | null;
  user_email: string | null;
  org_id: number | null;
  org_slug: string | null;
  payload: string | null;
  access_token_id: number | null;
}

/** The id columns an export can filter on (equality; a falsy value means "no filter"). */
export const ID_FILTERS = ['org_id', 'project_id', 'task_id', 'job_id', 'user_id'] as const;
export type IdFilter = (typeof ID_FILTERS)[number];

/** An export query: `timestamp` in [from, to] (ms, inclusive) plus id equalities. */
export interface EventQuery {
  from: number;
  to: number;
  ids: Partial<Record<IdFilter, number>>;
}

/**
 * The columns an export writes, in the order of CVAT's CSV: the header, `renderCsvRow` and the stored
 * lines follow it.
 */
export const EVENT_COLUMNS = EVENT_LOG_CSV_COLUMNS satisfies readonly (keyof EventRecord)[];
