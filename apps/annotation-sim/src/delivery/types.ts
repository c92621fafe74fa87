// The delivery engine's public shapes: its options, its outbound journal's entries and what it offers.
import type { DeliveryRec } from '../domain/model';
import type { Payload } from '../domain/payloads';
import type { EgressResolver, EgressSettings } from './egress';

/** CVAT's `SEND_WEBHOOK_TASK_RETRIES` default, in seconds: 8 retries, 9 attempts in all. */
export const CVAT_RETRY_DELAYS_S = [5, 300, 1800, 10800, 86400, 86400, 86400, 86400];

/** The RQ job time-out of CVAT's `webhooks` queue (`DEFAULT_TIMEOUT: "25s"`), in ms. */
export const CVAT_JOB_TIMEOUT_MS = 25_000;

export interface DeliveryOptions {
  /** Retry delays in seconds (default CVAT's). */
  retryDelays?: number[];
  /** Multiplies every retry delay (e.g. 0.001 to compress 4.3 days into minutes of clock time). */
  retryScale?: number;
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
  /**
   * The deadline of one attempt as a whole (connect, write, and the complete answer), ms: CVAT's RQ job
   * time-out (default 25,000). A receiver still answering then is cut off. Such an attempt writes no
   * delivery row, as CVAT's job is killed before it writes one: the outbound journal records it
   * (`outcome: 'timeout'`, `statusCode: null`, `error`) and it is retried like any failed job. A ping
   * cut off answers with a 504 row. `0` or `Infinity`: no deadline. The simulator's senders keep it; an
   * injected `sender` is given it as the request's `deadlineMs`.
   */
  jobTimeoutMs?: number;
  userAgent?: string;
  /** Outbound journal capacity (ring buffer). */
  journalCapacity?: number;
  /**
   * Delivery rows kept per webhook (`GET /api/webhooks/{id}/deliveries`): past it the oldest go, so a
   * long-lived simulator's memory stays bounded (CVAT keeps them all). Default 1,000.
   */
  maxDeliveriesPerWebhook?: number;
  /**
   * Wall clock for `request_duration` (ms), injectable. When it is given, every delivery is timed by it on
   * the calling thread, so none is handed to the delivery thread ahead of its turn.
   */
  wallNow?: () => number;
  /**
   * Where the real sender opens, writes, reads and closes each connection: `'worker'` (default), a
   * thread of its own shared by the process's simulators, as CVAT sends from a worker process and not
   * from its API server; `'main'`, the thread that serves the API. No effect with an injected `sender`.
   */
  thread?: 'worker' | 'main';
  /**
   * Where deliveries may go, for every new world (`PATCH /_sim/deliveries/settings` changes one world's):
   * `{ policy: 'metadata-only' | 'cvat-proxy', allow: ['127.0.0.1', '10.0.0.0/8', 'receiver.test'] }`.
   * Default `metadata-only` with nothing allowed (src/delivery/egress.ts, FIDELITY.md).
   */
  egress?: Partial<EgressSettings>;
  /**
   * Resolves a target's host name before the egress policy decides (default: the system's getaddrinfo;
   * with an injected `sender`, `false`). The connection then goes to the addresses it returned; the name
   * is not resolved again. `false`: names are not resolved, only judged by name (the metadata names are
   * refused), and the sender gets the name.
   */
  resolve?: EgressResolver | false;
}

/** One entry of the outbound journal: what went (or would have gone) on the wire. */
export interface OutboundEntry {
  seq: number;
  time: string;
  webhookId: number;
  deliveryId: number | null;
  event: string;
  attempt: number;
  redelivery: boolean;
  url: string;
  method: 'POST';
  headers: [string, string][];
  /** The exact body bytes as UTF-8 text (always ASCII: Python escapes everything else). */
  body: string;
  /**
   * What happened: sent (a response came), refused, timeout (real or injected; with `statusCode` null
   * and `error`, the attempt's deadline passed and no row was written), dropped (a fault), refused by
   * the egress policy before any connection was opened (`egress-refused`; `statusCode` is what the
   * delivery row records: 407, or 502 for an HTTPS target).
   */
  outcome: 'response' | 'connection-error' | 'timeout' | 'dropped' | 'egress-refused';
  statusCode: number | null;
  /** Ids of the fault rules that fired for this delivery. */
  faults: string[];
  /**
   * Only on an attempt that ended without a row because its deadline passed: what RQ records for the
   * job (`rq.timeouts.JobTimeoutException: Task exceeded maximum timeout value (25 seconds)`).
   */
  error?: string;
}

export interface DeliveryEngine {
  /** Queues a delivery of `payload` to a webhook (asynchronous, per-webhook FIFO). */
  enqueue(webhookId: number, payload: Payload, options?: { redelivery?: boolean }): void;
  /** Sends right away, ignores `is_active`, never retries (ping). Resolves with the delivery row. */
  sendNow(webhookId: number, payload: Payload): Promise<DeliveryRec>;
  /** Resolves when nothing is queued or in flight (scheduled retries wait for the clock). */
  idle(): Promise<void>;
  stats(): { queued: number; inFlight: number; scheduledRetries: number };
  journal(): { entries: OutboundEntry[]; dropped: number };
  clearJournal(): void;
  /** Resolves with the first journal entry matching `pred` (existing or future), or undefined on timeout (wall ms). */
  waitFor(pred: (e: OutboundEntry) => boolean, timeoutMs: number): Promise<OutboundEntry | undefined>;
  /** This world's egress policy. */
  egress(): EgressSettings;
  /**
   * Changes this world's egress policy (`{policy?, allow?}`, validated: throws SimInputError). Deliveries
   * already prepared ahead and not yet started go back to be prepared again under it.
   */
  configureEgress(input: unknown): EgressSettings;
  dispose(): void;
}
