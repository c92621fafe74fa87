import type { ResourceChange } from './changes';

/** A webhook payload as a JSON value with CVAT's key order. */
export type Payload = Record<string, unknown>;

/** `sender` of a payload: BasicUser for API changes, `{id, username, email}` for worker changes. */
export function senderOf(
  change: ResourceChange,
  basicUser: (id: number) => Record<string, unknown> | null,
): unknown {
  const a = change.actor;
  if (a === null) return null;
  if (a.kind === 'worker') return { id: a.id, username: a.username, email: a.email };
  return basicUser(a.id);
}

/**
 * The payload for one webhook, CVAT 2.73 key order:
 * create `event, webhook_id, <resource>, sender`; update the same + `before_update`, `changes`;
 * delete `event, <resource>, sender, webhook_id`.
 *
 * @example createEventPayload(change, 7, { id: 1, username: 'admin', ... })
 */
export function createEventPayload(
  change: ResourceChange,
  webhookId: number,
  sender: unknown,
  event: string = change.scope,
): Payload {
  const key = change.kind;
  switch (eventAction(event)) {
    case 'create':
      return { event, webhook_id: webhookId, [key]: change.resource, sender };
    case 'update':
      return {
        event,
        webhook_id: webhookId,
        [key]: change.resource,
        sender,
        before_update: change.beforeUpdate ?? {},
        changes: change.changes ?? {},
      };
    default:
      return { event, [key]: change.resource, sender, webhook_id: webhookId };
  }
}

function eventAction(event: string): string {
  return event.slice(0, event.indexOf(':'));
}

/** The ping payload: `event, webhook, sender` and no `webhook_id`. */
export function createPingPayload(webhook: Record<string, unknown>, sender: unknown): Payload {
  return { event: 'ping', webhook, sender };
}

/** `changed_fields` of a delivery row: the `before_update` keys joined with commas ("" otherwise). */
export function changedFieldsOf(payload: Payload): string {
  const before = payload.before_update;
  return before && typeof before === 'object' ? Object.keys(before).join(',') : '';
}
