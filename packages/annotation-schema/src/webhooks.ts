import * as z from 'zod';
import { EventsEnum, WebhookContentType, WebhookType } from './choices';
import { BasicUser, DateTime, paginated, WorkerSender } from './common';

/** `WebhookRead`. `last_status`/`last_delivery_date` are absent (not null) until the first delivery. */
export const WebhookRead = z.object({
  id: z.number().int(),
  url: z.string(),
  target_url: z.string(),
  description: z.string(),
  type: WebhookType,
  content_type: WebhookContentType,
  is_active: z.boolean(),
  enable_ssl: z.boolean(),
  created_date: DateTime,
  updated_date: DateTime,
  owner: BasicUser.nullable(),
  project_id: z.number().int().nullable(),
  organization: z.number().int().nullable(),
  events: z.array(EventsEnum),
  last_status: z.number().int().optional(),
  last_delivery_date: DateTime.optional(),
});
export type WebhookRead = z.infer<typeof WebhookRead>;

/** `WebhookDeliveryRead`. */
export const WebhookDeliveryRead = z.object({
  id: z.number().int(),
  webhook_id: z.number().int(),
  event: z.string(),
  status_code: z.number().int().nullable(),
  redelivery: z.boolean(),
  attempt: z.number().int().nullable(),
  request_duration: z.number().int().nullable(),
  created_date: DateTime,
  updated_date: DateTime,
  changed_fields: z.string(),
  request: z.unknown(),
  response: z.unknown(),
});
export type WebhookDeliveryRead = z.infer<typeof WebhookDeliveryRead>;

/** `Events`: the answer of `GET /api/webhooks/events`. */
export const WebhookEvents = z.object({
  webhook_type: z.enum(['all', 'project', 'organization']),
  events: z.array(z.object({ key: z.string(), group: z.object({ display_name: z.string() }) })),
});
export type WebhookEvents = z.infer<typeof WebhookEvents>;

export const PaginatedWebhookReadList = paginated(WebhookRead);
export const PaginatedWebhookDeliveryReadList = paginated(WebhookDeliveryRead);

const Sender = z.union([BasicUser, WorkerSender]).nullable();
const ChangeMap = z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }));

/** Payload of `create:<resource>`: keys `event, webhook_id, <resource>, sender`. */
export const CreateEventPayload = z.looseObject({
  event: z.string(),
  webhook_id: z.number().int(),
  sender: Sender,
});
/** Payload of `update:<resource>`: the create keys plus `before_update` and `changes`. */
export const UpdateEventPayload = z.looseObject({
  event: z.string(),
  webhook_id: z.number().int(),
  sender: Sender,
  before_update: z.record(z.string(), z.unknown()),
  changes: ChangeMap,
});
/**
 * Payload of `delete:<resource>`: keys `event, <resource>, sender, webhook_id`, the same shape as create's.
 * @alias CreateEventPayload
 */
export const DeleteEventPayload = CreateEventPayload;
/** Payload of `ping`: `event, webhook, sender`, no `webhook_id`. */
export const PingPayload = z.object({ event: z.literal('ping'), webhook: WebhookRead, sender: BasicUser });
export type PingPayload = z.infer<typeof PingPayload>;
