import type { ExportStatus } from '../domain/events/export-job';
import type { EventQuery } from '../domain/events/record';
import type { describeEventsSettings } from '../domain/events/state';
import type { DeliveryRec, WebhookRec } from '../domain/model';
import { deliveryRead, webhookRead } from '../domain/serializers';
import type { AnnotationData } from '../domain/state';

/**
 * The control plane's views of webhooks and their delivery rows (`GET /_sim/webhooks`), for a dashboard.
 * Built from the serializers of the emulated API (`webhookRead`, `deliveryRead`), so a view carries the
 * same fields with the same values as `GET /api/webhooks/{id}` and `GET /api/webhooks/{id}/deliveries`.
 */

/** A user as CVAT's `BasicUser` shows it (a webhook's `owner`). */
export interface BasicUserView {
  url: string;
  id: number;
  username: string;
  first_name: string;
  last_name: string;
}

/**
 * One delivery row, exactly as `GET /api/webhooks/{id}/deliveries` renders it. A row is written when its
 * attempt has finished (a response, a connection error or a time-out), as CVAT writes it: there is no
 * row of an attempt still in flight (`GET /_sim/deliveries/stats` counts those).
 */
export interface DeliveryView {
  id: number;
  webhook_id: number;
  /** e.g. `update:task`, `ping`. */
  event: string;
  /** The receiver's status; 502 for a connection error, 504 for a time-out. */
  status_code: number | null;
  /** Whether it was sent by a redelivery (`POST …/deliveries/{id}/redelivery` or the control route). */
  redelivery: boolean;
  /** 1 for the first attempt, then one more per retry. */
  attempt: number | null;
  /** Milliseconds. */
  request_duration: number | null;
  created_date: string;
  updated_date: string;
  /** Comma-joined names of the changed fields (`''` for a ping or a create). */
  changed_fields: string;
  /** The payload sent (a JSON value). */
  request: unknown;
  /**
   * The receiver's response body as text (as CVAT keeps it: `''` past 1 MiB), or the error message of
   * a connection error or time-out.
   */
  response: string;
}

/** One webhook, as `GET /api/webhooks/{id}` renders it, with its latest delivery rows. */
export interface WebhookView {
  id: number;
  url: string;
  target_url: string;
  description: string;
  type: 'project' | 'organization';
  content_type: 'application/json';
  is_active: boolean;
  enable_ssl: boolean;
  created_date: string;
  updated_date: string;
  owner: BasicUserView | null;
  /** The project of a `project` webhook, else null. */
  project_id: number | null;
  /** The organization id (a project webhook's is its project's; null in the sandbox). */
  organization: number | null;
  /** Sorted event names. */
  events: string[];
  /** The latest delivery's status (absent before the first delivery). */
  last_status?: number | null;
  /** The latest delivery's `updated_date` (absent before the first delivery). */
  last_delivery_date?: string;
  /** Its delivery rows, newest first (the API's order), at most `?limit=` (default 50). */
  deliveries: DeliveryView[];
  /** How many delivery rows the webhook has in all (before the limit). */
  delivery_count: number;
}

/** `GET /_sim/webhooks`. */
export interface WebhooksView {
  webhooks: WebhookView[];
}

/** `POST /_sim/webhooks/{id}/deliveries/{deliveryId}/redeliver` (200). */
export interface RedeliverResult {
  redelivered: true;
  /** The webhook's id. */
  webhook: number;
  /**
   * The id of the delivery row sent again. The redelivery is queued: its own row (`redelivery: true`)
   * appears when its attempt finishes (`POST /_sim/deliveries/idle` waits for it).
   */
  delivery: number;
}

export const DEFAULT_DELIVERY_LIMIT = 50;

/** One delivery row as the API renders it. */
function deliveryView(d: DeliveryRec): DeliveryView {
  return deliveryRead(d) as unknown as DeliveryView;
}

/** Newest first, as `GET /api/webhooks/{id}/deliveries` lists them: by `updated_date`, then by id. */
function newestFirst(a: DeliveryRec, b: DeliveryRec): number {
  return a.updated_date === b.updated_date ? b.id - a.id : a.updated_date < b.updated_date ? 1 : -1;
}

/** A webhook's view with `rows` (its delivery rows, in any order) cut to the newest `limit`. */
function webhookView(
  data: AnnotationData,
  w: WebhookRec,
  rows: DeliveryRec[],
  limit = DEFAULT_DELIVERY_LIMIT,
): WebhookView {
  const sorted = [...rows].sort(newestFirst);
  return {
    ...(webhookRead(data, w) as unknown as Omit<WebhookView, 'deliveries' | 'delivery_count'>),
    deliveries: sorted.slice(0, limit).map(deliveryView),
    delivery_count: sorted.length,
  };
}

/** Every webhook of a world (by id), each with its newest `limit` delivery rows. */
export function webhooksView(data: AnnotationData, limit = DEFAULT_DELIVERY_LIMIT): WebhooksView {
  const byWebhook = new Map<number, DeliveryRec[]>();
  for (const d of data.deliveries.values()) {
    const rows = byWebhook.get(d.webhook_id);
    if (rows) rows.push(d);
    else byWebhook.set(d.webhook_id, [d]);
  }
  const webhooks = [...data.webhooks.values()]
    .sort((a, b) => a.id - b.id)
    .map((w) => webhookView(data, w, byWebhook.get(w.id) ?? [], limit));
  return { webhooks };
}

/** An events export job as `GET /_sim/events` shows it (the dashboard's export jobs). */
export interface ExportJobView {
  rq_id: string;
  status: ExportStatus;
  owner: { id: number; username: string };
  query: EventQuery;
  pollsLeft: number | null;
  /** When the job's outcome is due on the world clock (null in "N polls" mode or once settled). */
  finishAt: string | null;
  rows: number | null;
  expired: boolean;
}

/** `GET /_sim/events`: the events API's settings, store size and export jobs. */
export interface EventsControlView {
  settings: ReturnType<typeof describeEventsSettings>;
  /** Rows the store holds. */
  stored: number;
  /** Rows dropped while the store was disconnected. */
  dropped: number;
  /** Oldest rows evicted to keep the store within `maxEvents`. */
  evicted: number;
  jobs: ExportJobView[];
}
