// Plain data, in a module of its own with no zod: the simulator's webhook domain imports these at
// startup, and with `"sideEffects": false` its bundle then leaves out the schema modules it does not
// use at startup (docs/decisions/0009).

/**
 * Every webhook event key of CVAT v2.73.0 with its group, in the declaration order that
 * `GET /api/webhooks/events?type=all` answers (not sorted).
 */
export const WEBHOOK_EVENT_CATALOGUE: readonly { key: string; group: string; project: boolean }[] = [
  { key: 'create:project', group: 'Project', project: false },
  { key: 'update:project', group: 'Project', project: true },
  { key: 'delete:project', group: 'Project', project: true },
  { key: 'create:task', group: 'Task', project: true },
  { key: 'update:task', group: 'Task', project: true },
  { key: 'delete:task', group: 'Task', project: true },
  { key: 'create:job', group: 'Job', project: true },
  { key: 'update:job', group: 'Job', project: true },
  { key: 'delete:job', group: 'Job', project: true },
  { key: 'create:issue', group: 'Issue', project: true },
  { key: 'update:issue', group: 'Issue', project: true },
  { key: 'delete:issue', group: 'Issue', project: true },
  { key: 'create:comment', group: 'Comment', project: true },
  { key: 'update:comment', group: 'Comment', project: true },
  { key: 'delete:comment', group: 'Comment', project: true },
  { key: 'update:organization', group: 'Organization', project: false },
  { key: 'create:invitation', group: 'Invitation', project: false },
  { key: 'delete:invitation', group: 'Invitation', project: false },
  { key: 'create:membership', group: 'Membership', project: false },
  { key: 'update:membership', group: 'Membership', project: false },
  { key: 'delete:membership', group: 'Membership', project: false },
  { key: 'completed:request[export:annotations]', group: 'Dataset export', project: true },
  { key: 'completed:request[export:dataset]', group: 'Dataset export', project: true },
  { key: 'completed:request[export:backup]', group: 'Backup export', project: true },
  { key: 'completed:request[create:task]', group: 'Task data creation', project: true },
  { key: 'completed:request[merge:task]', group: 'Consensus merge', project: true },
  { key: 'completed:request[merge:job]', group: 'Consensus merge', project: true },
  { key: 'completed:request[calculate:quality]', group: 'Quality report creation', project: true },
];

/**
 * The order of `GET /api/webhooks/events?type=project`: CVAT builds it from the project groups first
 * and appends the project's own update/delete events last.
 */
export const PROJECT_WEBHOOK_EVENT_ORDER: readonly string[] = [
  ...WEBHOOK_EVENT_CATALOGUE.filter((e) => e.project && e.group !== 'Project').map((e) => e.key),
  'update:project',
  'delete:project',
];
