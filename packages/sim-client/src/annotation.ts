import { createSimClient, type SimClient, type SimClientOptions } from './client';
import { toMilliseconds } from './duration';
import { SimControlError, SimWaitTimeoutError } from './errors';
import type { Duration } from './types';

/**
 * One outbound webhook request in annotation-sim's delivery journal (`GET /_sim/deliveries`), with the
 * body and headers exactly as sent. Mirrored from the app (apps/annotation-sim `OutboundEntry`).
 */
export interface OutboundDelivery {
  seq: number;
  /** World-clock time of the attempt. */
  time: string;
  webhookId: number;
  /** The WebhookDelivery row id; `null` when a fault dropped the request before a row existed. */
  deliveryId: number | null;
  /** e.g. `create:task`, `ping`. */
  event: string;
  /** 1-based attempt number (retries are attempts 2..9). */
  attempt: number;
  redelivery: boolean;
  url: string;
  method: 'POST';
  /** Header pairs in the order they were sent. */
  headers: [string, string][];
  /** The exact body bytes as UTF-8 text (what `X-Signature-256` covers). */
  body: string;
  /** `response` (the target answered), `connection-error`, `timeout`, or `dropped` (a fault). */
  outcome: 'response' | 'connection-error' | 'timeout' | 'dropped' | 'egress-refused';
  statusCode: number | null;
  /** Ids of the fault rules that fired for this delivery. */
  faults: string[];
  /**
   * Only on an attempt cut off by its deadline (no delivery row, as CVAT's RQ job is killed before it
   * writes one): what RQ records, `rq.timeouts.JobTimeoutException: Task exceeded maximum timeout value (25 seconds)`.
   */
  error?: string;
}

/** Selects outbound deliveries; every given condition must hold. */
export interface OutboundDeliveryFilter {
  webhook?: number;
  event?: string;
}

export interface DeliveryQueueStats {
  queued: number;
  inFlight: number;
  /** Retries waiting for the world clock. */
  scheduledRetries: number;
}

/** The events API's behaviour knobs; durations in ms when read, any Duration when written. */
export interface EventsSettings {
  exportDuration: number;
  exportQueued: number;
  /** `false` simulates the analytics store being down: POST /api/events still answers 201. */
  storeConnected: boolean;
  resultTtl: number;
  /** Rows the store keeps at most: the newest; reaching it evicts the oldest quarter (counted in `evicted`). */
  maxEvents: number;
}

export interface ExportJobView {
  rq_id: string;
  status: 'queued' | 'started' | 'finished' | 'failed';
  owner: unknown;
  query: unknown;
  pollsLeft: number | null;
  finishAt: string | null;
  rows: number | null;
  expired: boolean;
}

export interface EventsControlState {
  settings: EventsSettings;
  /** Rows in the event log. */
  stored: number;
  /** Rows lost while the store was disconnected. */
  dropped: number;
  /** Rows evicted, oldest first, to keep the store within `maxEvents`. */
  evicted: number;
  jobs: ExportJobView[];
}

/**
 * A world's delivery settings (`GET /_sim/deliveries/settings`): the egress policy that refuses webhook
 * targets before any connection (`metadata-only` by default; `cvat-proxy` is CVAT's smokescreen), and
 * the targets allowed anyway (IPs, CIDR ranges, host names).
 */
export interface DeliverySettings {
  egress: { policy: 'metadata-only' | 'cvat-proxy'; allow: string[] };
}

/**
 * One delivery row of a webhook, exactly as `GET /api/webhooks/{id}/deliveries` renders it (a row is
 * written when its attempt has finished). Mirrored from the app (apps/annotation-sim `DeliveryView`).
 */
export interface WebhookDeliveryView {
  id: number;
  webhook_id: number;
  /** e.g. `update:task`, `ping`. */
  event: string;
  /** The receiver's status; 502 for a connection error, 504 for a time-out. */
  status_code: number | null;
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
  /** The receiver's response body as text, or the error message of a connection error or time-out. */
  response: string;
}

/**
 * A webhook as `GET /api/webhooks/{id}` renders it, with its newest delivery rows (`GET /_sim/webhooks`).
 * Mirrored from the app (apps/annotation-sim `WebhookView`).
 */
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
  owner: { url: string; id: number; username: string; first_name: string; last_name: string } | null;
  /** The project of a `project` webhook, else null. */
  project_id: number | null;
  organization: number | null;
  /** Sorted event names. */
  events: string[];
  /** The latest delivery's status (absent before the first delivery). */
  last_status?: number | null;
  /** The latest delivery's `updated_date` (absent before the first delivery). */
  last_delivery_date?: string;
  /** Its delivery rows, newest first, at most `limit` (default 50). */
  deliveries: WebhookDeliveryView[];
  /** How many delivery rows the webhook has in all (before the limit). */
  delivery_count: number;
}

/**
 * What `webhooks.redeliver` answers: the ids of the webhook and of the delivery row sent again. The
 * redelivery is queued: its own row (`redelivery: true`) appears when its attempt finishes
 * (`deliveries.idle()` waits for it).
 */
export interface RedeliverResult {
  redelivered: true;
  webhook: number;
  delivery: number;
}

/** annotation-sim's control plane: the shared one plus deliveries, webhooks and the events API's controls. */
export interface AnnotationSimClient extends SimClient {
  deliveries: {
    list(filter?: OutboundDeliveryFilter): Promise<{
      entries: OutboundDelivery[];
      dropped: number;
      stats: DeliveryQueueStats;
    }>;
    clear(): Promise<void>;
    stats(): Promise<DeliveryQueueStats>;
    /** One long-poll: the first matching delivery (existing or future), or `undefined` after `timeout` (default 3 s). */
    wait(
      filter?: OutboundDeliveryFilter & { deliveryId?: number },
      timeout?: Duration,
    ): Promise<OutboundDelivery | undefined>;
    /** Like `wait`, but throws a SimWaitTimeoutError listing the deliveries made so far. */
    waitFor(
      filter?: OutboundDeliveryFilter & { deliveryId?: number },
      options?: { timeout?: Duration },
    ): Promise<OutboundDelivery>;
    /** Resolves when nothing is queued or in flight (retries scheduled on the clock do not count). */
    idle(): Promise<DeliveryQueueStats>;
    /** This world's delivery settings (the egress policy). */
    settings(): Promise<DeliverySettings>;
    /** Changes the egress policy; `allow` replaces the list. Answers with all the settings. */
    configure(settings: { egress?: Partial<DeliverySettings['egress']> }): Promise<DeliverySettings>;
  };
  webhooks: {
    /** The world's webhooks by id, each with its newest `limit` (default 50) delivery rows. */
    list(options?: { limit?: number }): Promise<WebhookView[]>;
    /**
     * Sends a delivery row again, as `POST /api/webhooks/{id}/deliveries/{delivery_id}/redelivery` does
     * (no credentials); a SimControlError 404 when the webhook or its delivery does not exist.
     */
    redeliver(webhookId: number, deliveryId: number): Promise<RedeliverResult>;
  };
  events: {
    get(): Promise<EventsControlState>;
    configure(settings: {
      exportDuration?: Duration;
      exportQueued?: Duration;
      storeConnected?: boolean;
      resultTtl?: Duration;
    }): Promise<EventsSettings>;
    /** Writes rows to the event log directly (seeding); CSV column names, `timestamp` ISO or epoch ms. */
    record(events: Record<string, unknown>[]): Promise<{ stored: number }>;
    exports: {
      /**
       * Finishes an export job now; a SimControlError 404 when there is no such job, 409 when it has
       * already ended. `fail` is the older way to fail it: `exports.fail(rqId, message)` does the same.
       */
      complete(rqId: string, options?: { fail?: string }): Promise<ExportJobView>;
      /** Fails an export job now with `message` as its error text (404 and 409 as `complete`). */
      fail(rqId: string, message: string): Promise<ExportJobView>;
      /** Makes a finished export's file gone (the download then fails as CVAT's does). */
      expireFile(rqId: string): Promise<ExportJobView>;
    };
  };
  withNamespace(name: string): AnnotationSimClient;
}

function describeDelivery(d: OutboundDelivery): string {
  const answer = d.outcome === 'response' ? String(d.statusCode) : d.outcome;
  const faults = d.faults.length > 0 ? ` [faults: ${d.faults.join(', ')}]` : '';
  return `#${d.seq} webhook ${d.webhookId} ${d.event} attempt ${d.attempt} → ${answer}${faults}`;
}

/** An export job's control route: the job's rq_id in the path (docs/decisions/0020-control-plane-dialect.md). */
const exportPath = (rqId: string, action: string) =>
  `/_sim/events/exports/${encodeURIComponent(rqId)}/${action}`;

function extendForAnnotation(base: SimClient): AnnotationSimClient {
  const wait = async (
    filter: OutboundDeliveryFilter & { deliveryId?: number } = {},
    timeout: Duration = '3s',
  ) => {
    try {
      const res = await base.request<{ entry: OutboundDelivery }>('POST', '/_sim/deliveries/wait', {
        ...filter,
        timeoutMs: toMilliseconds(timeout),
      });
      return res.entry;
    } catch (err) {
      if (err instanceof SimControlError && err.status === 408) return undefined;
      throw err;
    }
  };
  const client: AnnotationSimClient = {
    ...base,
    deliveries: {
      list: (filter = {}) => base.request('GET', '/_sim/deliveries', undefined, { query: { ...filter } }),
      clear: async () => {
        await base.request('DELETE', '/_sim/deliveries');
      },
      stats: () => base.request('GET', '/_sim/deliveries/stats'),
      wait,
      waitFor: async (filter = {}, options = {}) => {
        const timeout = options.timeout ?? '3s';
        const entry = await wait(filter, timeout);
        if (entry) return entry;
        const { entries } = await client.deliveries.list();
        const made =
          entries.length === 0
            ? 'No deliveries were made.'
            : `Deliveries made:\n${entries
                .slice(-20)
                .map((d) => `  ${describeDelivery(d)}`)
                .join('\n')}`;
        throw new SimWaitTimeoutError(
          `no delivery matching ${JSON.stringify(filter)} within ${String(timeout)} (namespace "${base.namespace}"). ${made}`,
        );
      },
      idle: () => base.request('POST', '/_sim/deliveries/idle'),
      settings: () => base.request('GET', '/_sim/deliveries/settings'),
      configure: (settings) => base.request('PATCH', '/_sim/deliveries/settings', settings),
    },
    webhooks: {
      list: async (options = {}) =>
        (
          await base.request<{ webhooks: WebhookView[] }>('GET', '/_sim/webhooks', undefined, {
            query: { limit: options.limit },
          })
        ).webhooks,
      redeliver: (webhookId, deliveryId) =>
        base.request(
          'POST',
          `/_sim/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
        ),
    },
    events: {
      get: () => base.request('GET', '/_sim/events'),
      configure: (settings) => base.request('PATCH', '/_sim/events/settings', settings),
      record: (events) => base.request('POST', '/_sim/events/records', { events }),
      exports: {
        complete: (rqId, options = {}) =>
          options.fail === undefined
            ? base.request('POST', exportPath(rqId, 'complete'))
            : client.events.exports.fail(rqId, options.fail),
        fail: (rqId, message) => base.request('POST', exportPath(rqId, 'fail'), { message }),
        expireFile: (rqId) => base.request('POST', exportPath(rqId, 'expire-file')),
      },
    },
    withNamespace: (name) => extendForAnnotation(base.withNamespace(name)),
  };
  return client;
}

/**
 * A control-plane client for annotation-sim: everything `createSimClient` offers, plus the outbound
 * delivery journal (with a long-poll `waitFor`), the webhooks with their delivery rows (and redelivery),
 * and the events API's settings and export jobs.
 *
 * @example
 * const sim = createAnnotationSimClient({ baseUrl: 'http://127.0.0.1:8086' });
 * await sim.events.configure({ storeConnected: false }); // the analytics store is down
 * await createTask(); // the code under test
 * const delivery = await sim.deliveries.waitFor({ event: 'create:task' });
 * expect(delivery.statusCode).toBe(200);
 */
export function createAnnotationSimClient(options: SimClientOptions): AnnotationSimClient {
  return extendForAnnotation(createSimClient(options));
}
