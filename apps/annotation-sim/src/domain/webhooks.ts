// The subpath holds only the event lists, without zod.
import { PROJECT_WEBHOOK_EVENT_ORDER, WEBHOOK_EVENT_CATALOGUE } from '@sims/annotation-schema/webhook-events';
import type { ResourceChange } from './changes';
import { fail, invalid, ok, type Result } from './errors';
import type { WebhookRec } from './model';
import type { AnnotationData } from './state';

export const EVENT_KEYS: readonly string[] = WEBHOOK_EVENT_CATALOGUE.map((e) => e.key);
const PROJECT_KEYS = new Set(WEBHOOK_EVENT_CATALOGUE.filter((e) => e.project).map((e) => e.key));
const GROUP = new Map(WEBHOOK_EVENT_CATALOGUE.map((e) => [e.key, e.group]));

/** `GET /api/webhooks/events?type=`: the 2.73 lists in declaration order; a bad type is a bare 400 string. */
export function webhookEventsFor(
  type: string,
): Result<{ webhook_type: string; events: { key: string; group: { display_name: string } }[] }> {
  let keys: readonly string[];
  if (type === 'all' || type === 'organization') keys = EVENT_KEYS;
  else if (type === 'project') keys = PROJECT_WEBHOOK_EVENT_ORDER;
  else return fail({ code: 'INVALID_STRING', message: 'Incorrect value of type parameter' });
  return ok({
    webhook_type: type,
    events: keys.map((key) => ({ key, group: { display_name: GROUP.get(key) as string } })),
  });
}

function eventsAllowedFor(type: 'project' | 'organization', events: readonly string[]): boolean {
  return type === 'organization' || events.every((e) => PROJECT_KEYS.has(e));
}

export interface WebhookInput {
  target_url?: string;
  description?: string;
  type?: 'organization' | 'project';
  content_type?: 'application/json';
  secret?: string;
  is_active?: boolean;
  enable_ssl?: boolean;
  project_id?: number | null;
  events?: string[];
}

/**
 * `WebhookWriteSerializer`'s object-level check, after its field checks passed at the edge: the events
 * (sorted) must suit `type`, else `{"non_field_errors": ["Invalid events list for <type> webhook"]}`.
 * On create `type` is the body's; on update it is the stored webhook's (`type` and `project_id` are
 * write-once).
 */
export function webhookFields(f: WebhookInput, type: 'project' | 'organization'): Result<WebhookInput> {
  const value = { ...f };
  if (value.events) value.events = [...value.events].sort();
  if (value.events && !eventsAllowedFor(type, value.events)) {
    return fail(invalid({ non_field_errors: [`Invalid events list for ${type} webhook`] }));
  }
  return ok(value);
}

/** CVAT's exact-token event match (2.73): `events` holds `key` as one comma-separated token. */
function subscribes(w: WebhookRec, key: string): boolean {
  return w.events.includes(key);
}

/** `select_webhooks`: active webhooks of the resource's organization or project subscribed to `key`. */
export function selectWebhooks(
  data: AnnotationData,
  key: string,
  where: { orgId: number | null; projectId: number | null; org?: boolean; project?: boolean },
): WebhookRec[] {
  const out: WebhookRec[] = [];
  for (const w of data.webhooks.values()) {
    if (!w.is_active || !subscribes(w, key)) continue;
    const byOrg =
      where.org !== false &&
      w.type === 'organization' &&
      where.orgId !== null &&
      w.organization_id === where.orgId;
    const byProject =
      where.project !== false &&
      w.type === 'project' &&
      where.projectId !== null &&
      w.project_id === where.projectId;
    if (byOrg || byProject) out.push(w);
  }
  return out.sort((a, b) => a.id - b.id);
}

/**
 * Which webhooks get which event for one change. A project/task moved to another organization gives
 * `update` to the project webhooks only, `delete` to the old org's webhooks and `create` to the new's.
 */
export function routeChange(
  data: AnnotationData,
  change: ResourceChange,
): { webhook: WebhookRec; event: string }[] {
  const orgId = change.org?.id ?? null;
  const projectId = change.projectId;
  if (
    change.action === 'update' &&
    change.previousOrg !== undefined &&
    (change.kind === 'project' || change.kind === 'task')
  ) {
    const oldOrg = change.previousOrg?.id ?? null;
    return [
      ...selectWebhooks(data, change.scope, { orgId, projectId, org: false }).map((webhook) => ({
        webhook,
        event: change.scope,
      })),
      ...selectWebhooks(data, `delete:${change.kind}`, {
        orgId: oldOrg,
        projectId: null,
        project: false,
      }).map((webhook) => ({
        webhook,
        event: `delete:${change.kind}`,
      })),
      ...selectWebhooks(data, `create:${change.kind}`, { orgId, projectId: null, project: false }).map(
        (webhook) => ({
          webhook,
          event: `create:${change.kind}`,
        }),
      ),
    ];
  }
  return selectWebhooks(data, change.scope, { orgId, projectId }).map((webhook) => ({
    webhook,
    event: change.scope,
  }));
}
