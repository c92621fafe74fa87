// Plain data, in a module of its own with no zod (like `webhook-events.ts`): the simulator's event log
// reads it at startup.

/**
 * The columns of CVAT's CSV event log, in order: its ClickHouse `events` table minus `remote_addr`.
 * The CSV header, every row and the simulator's stored lines follow this order.
 */
export const EVENT_LOG_CSV_COLUMNS = [
  'scope',
  'obj_name',
  'obj_id',
  'obj_val',
  'source',
  'timestamp',
  'count',
  'duration',
  'project_id',
  'task_id',
  'job_id',
  'user_id',
  'user_name',
  'user_email',
  'org_id',
  'org_slug',
  'payload',
  'access_token_id',
] as const;
