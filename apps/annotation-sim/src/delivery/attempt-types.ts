// The shapes one delivery attempt is made of, shared by attempt.ts and its two halves.
import type { DeliveryRec, WebhookRec } from '../domain/model';
import type { Payload } from '../domain/payloads';

export interface Job {
  webhookId: number;
  payload: Payload;
  event: string;
  redelivery: boolean;
  attempt: number;
}

/** What a delivery to a webhook is prepared from. */
export type Target = Pick<WebhookRec, 'target_url' | 'secret' | 'enable_ssl'>;

/**
 * What one attempt left: its delivery row, or `'job-timeout'` when its deadline cut it off (no row: CVAT's
 * RQ job is killed before it writes one, and RQ retries the job).
 */
export type Finished = DeliveryRec | 'job-timeout';

export interface AttemptSettings {
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /** The deadline of one attempt as a whole (ms); 0 or not finite: none. */
  jobTimeoutMs: number;
  userAgent: string;
  /** Delivery rows kept per webhook. */
  maxRows: number;
  /** The wall clock `request_duration` is measured with (ms). */
  wallNow: () => number;
}
