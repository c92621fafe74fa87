import {
  asObject,
  type CvatRequest,
  type Json,
  num,
  numOrNull,
  readCvatRequest,
  str,
  strOrNull,
} from '../../cvat-http/src';

/** What the receiver makes of a delivery: the events its team acts on, and everything else as `other`. */
export type WebhookEvent =
  | {
      readonly kind: 'task-created';
      readonly webhookId: number;
      readonly task: { readonly id: number; readonly name: string; readonly projectId: number | null };
      readonly sender: string | null;
    }
  | {
      readonly kind: 'task-updated';
      readonly webhookId: number;
      readonly task: { readonly id: number; readonly name: string };
      /** From `before_update.name`, present only when the name changed. */
      readonly previousName: string | null;
      readonly sender: string | null;
    }
  | {
      readonly kind: 'task-deleted';
      readonly webhookId: number;
      readonly task: { readonly id: number; readonly name: string };
      readonly sender: string | null;
    }
  | {
      readonly kind: 'job-updated';
      readonly webhookId: number;
      readonly job: {
        readonly id: number;
        readonly taskId: number;
        readonly state: string;
        readonly stage: string;
      };
      /** From `before_update.state`, present only when the state changed. */
      readonly previousState: string | null;
      readonly sender: string | null;
    }
  | { readonly kind: 'ping'; readonly webhookId: number; readonly sender: string | null }
  | {
      readonly kind: 'membership-created';
      readonly webhookId: number;
      readonly organizationId: number;
      readonly username: string;
      readonly role: string;
    }
  | {
      /** `completed:request[<operation>]`: a background request ended, `finished` or `failed`. */
      readonly kind: 'request-completed';
      readonly webhookId: number;
      readonly request: CvatRequest;
    }
  | { readonly kind: 'other'; readonly event: string };

/**
 * `sender` is a BasicUser for changes made through the API, `{id, username, email}` for changes made by a
 * background worker, and null when neither applies (reference §2.4). All carry `username`.
 */
function senderName(payload: Json): string | null {
  const sender = payload['sender'];
  return sender === null || sender === undefined ? null : str(asObject(sender, 'sender'), 'username');
}

/**
 * `before_update` holds the old values of the fields that changed: model attribute names since CVAT 2.73,
 * serializer field names before (for `name` and `state` both are the same), omitted before 2.73 when
 * nothing differed. Reading it, rather than 2.73's `changes`, works with both.
 */
function previous(payload: Json, field: string): string | null {
  const before = payload['before_update'];
  return before === undefined || before === null ? null : strOrNull(asObject(before, 'before_update'), field);
}

/**
 * Reads a CVAT webhook payload (the parsed JSON body of a delivery).
 *
 * @example
 * parseWebhookEvent({ event: 'ping', webhook: { id: 7 }, sender: { username: 'admin1' } });
 * // { kind: 'ping', webhookId: 7, sender: 'admin1' }
 */
export function parseWebhookEvent(body: unknown): WebhookEvent {
  const payload = asObject(body, 'payload');
  const event = str(payload, 'event');
  switch (event) {
    case 'create:task': {
      const task = asObject(payload['task'], 'task');
      return {
        kind: 'task-created',
        webhookId: num(payload, 'webhook_id'),
        task: { id: num(task, 'id'), name: str(task, 'name'), projectId: numOrNull(task, 'project_id') },
        sender: senderName(payload),
      };
    }
    case 'update:task': {
      const task = asObject(payload['task'], 'task');
      return {
        kind: 'task-updated',
        webhookId: num(payload, 'webhook_id'),
        task: { id: num(task, 'id'), name: str(task, 'name') },
        previousName: previous(payload, 'name'),
        sender: senderName(payload),
      };
    }
    case 'delete:task': {
      const task = asObject(payload['task'], 'task');
      return {
        kind: 'task-deleted',
        webhookId: num(payload, 'webhook_id'),
        task: { id: num(task, 'id'), name: str(task, 'name') },
        sender: senderName(payload),
      };
    }
    case 'update:job': {
      const job = asObject(payload['job'], 'job');
      return {
        kind: 'job-updated',
        webhookId: num(payload, 'webhook_id'),
        job: {
          id: num(job, 'id'),
          taskId: num(job, 'task_id'),
          state: str(job, 'state'),
          stage: str(job, 'stage'),
        },
        previousState: previous(payload, 'state'),
        sender: senderName(payload),
      };
    }
    case 'ping':
      // A ping has no `webhook_id`; the webhook itself is in the payload.
      return {
        kind: 'ping',
        webhookId: num(asObject(payload['webhook'], 'webhook'), 'id'),
        sender: senderName(payload),
      };
    case 'create:membership': {
      const membership = asObject(payload['membership'], 'membership');
      return {
        kind: 'membership-created',
        webhookId: num(payload, 'webhook_id'),
        organizationId: num(membership, 'organization'),
        username: str(asObject(membership['user'], 'membership.user'), 'username'),
        role: str(membership, 'role'),
      };
    }
    default:
      // `completed:request[create:task]`, `…[export:dataset]`, …: no sender, the request as
      // `GET /api/requests/{id}` shows it (reference §2.4).
      if (/^completed:request\[[\w:]+\]$/.test(event)) {
        return {
          kind: 'request-completed',
          webhookId: num(payload, 'webhook_id'),
          request: readCvatRequest(payload['request']),
        };
      }
      return { kind: 'other', event };
  }
}
