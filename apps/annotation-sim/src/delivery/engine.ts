import type { WorldCore } from '@sims/sim-core';
import { formatDrfDate } from '../domain/dates';
import type { DeliveryRec, WebhookRec } from '../domain/model';
import { changedFieldsOf, type Payload } from '../domain/payloads';
import { pythonJsonDumps } from '../domain/python-json';
import { signWebhookBody } from '../domain/signing';
import { type AnnotationState, nextId } from '../domain/state';
import {
  createEgressGuard,
  DEFAULT_EGRESS,
  type EgressResolver,
  type EgressSettings,
  egressSettingsOf,
  refusedDeliveryResult,
} from './egress';
import {
  connectionErrorText,
  failedConnectionResult,
  type GenerationSlot,
  type LaneSender,
  laneSenderOf,
  type OutboundRequest,
  type OutboundResult,
  readTimeoutText,
  type WebhookSender,
} from './sender';

/** CVAT's `SEND_WEBHOOK_TASK_RETRIES` default, in seconds: 8 retries, 9 attempts in all. */
export const CVAT_RETRY_DELAYS_S = [5, 300, 1800, 10800, 86400, 86400, 86400, 86400];

export interface DeliveryOptions {
  /** Retry delays in seconds (default CVAT's). */
  retryDelays?: number[];
  /** Multiplies every retry delay (e.g. 0.001 to compress 4.3 days into minutes of clock time). */
  retryScale?: number;
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
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
   * What happened: sent (a response came), refused, timeout (real or injected), dropped (a fault),
   * refused by the egress policy before any connection was opened (`egress-refused`; `statusCode` is
   * what the delivery row records: 407, or 502 for an HTTPS target).
   */
  outcome: 'response' | 'connection-error' | 'timeout' | 'dropped' | 'egress-refused';
  statusCode: number | null;
  /** Ids of the fault rules that fired for this delivery. */
  faults: string[];
}

interface Job {
  webhookId: number;
  payload: Payload;
  event: string;
  redelivery: boolean;
  attempt: number;
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

/** Receiver-side fault effects, as domain effects of fault rules matched on `webhooks.deliver`. */
export const DELIVERY_EFFECTS = [
  'deliveryRefused',
  'deliveryTimeout',
  'deliveryDelay',
  'deliveryDrop',
  'deliveryDuplicate',
  'corruptSignature',
] as const;

const RETRYABLE = (status: number) => status >= 500 || status === 408 || status === 429;

/** Makes lane keys unique in the process (the delivery thread is shared by every engine). */
let engines = 0;
/** An engine dropped without `dispose` (a simulator never closed) gives its generation slot back. */
const slots = new FinalizationRegistry<GenerationSlot>((slot) => slot.release());

export function createDeliveryEngine(
  world: WorldCore,
  state: () => AnnotationState,
  sender: WebhookSender,
  options: DeliveryOptions = {},
): DeliveryEngine {
  const delays = options.retryDelays ?? CVAT_RETRY_DELAYS_S;
  const scale = options.retryScale ?? 1;
  const connectTimeoutMs = options.connectTimeoutMs ?? 3000;
  const readTimeoutMs = options.readTimeoutMs ?? 10000;
  const userAgent = options.userAgent ?? 'CVAT/2.73.0 python-requests/2.33.1';
  const capacity = options.journalCapacity ?? 1000;
  const maxRows = options.maxDeliveriesPerWebhook ?? 1000;
  /** Per webhook, the ids of the rows this engine stored, oldest first (a state's rows by its map). */
  const rowsOf = new WeakMap<Map<number, DeliveryRec>, Map<number, number[]>>();
  const wallNow = options.wallNow ?? (() => performance.now());
  const egress = createEgressGuard(egressSettingsOf(options.egress ?? {}, DEFAULT_EGRESS), options.resolve);
  // Sending ahead (docs/decisions/0011): a webhook's queued deliveries are prepared as they are queued
  // and handed to the delivery thread, which starts each one when the one before it ends, unless this
  // engine's generation has moved since: every webhook change, fault rule added and the dispose bump it.
  const lanes = options.wallNow === undefined ? laneSenderOf(sender) : undefined;
  const slot: GenerationSlot | undefined = lanes?.claimSlot();
  const laneKey = `${++engines}/`;
  const webhookTable = state().webhooks;
  const unwatch = slot ? [webhookTable.watch(slot.bump), world.faults.onRuleAdded(slot.bump)] : [];
  /** Per webhook: the deliveries on the thread (prepared at `stamp`), and those that came back unsent. */
  const ahead = new Map<number, { stamp: number; jobs: number; returned: Job[] }>();
  const queues = new Map<number, Job[]>();
  const busy = new Set<number>();
  const timers = new Set<number>();
  const entries: OutboundEntry[] = [];
  const waiters = new Set<{
    pred: (e: OutboundEntry) => boolean;
    resolve: (e: OutboundEntry | undefined) => void;
  }>();
  let idleWaiters: (() => void)[] = [];
  let journalDropped = 0;
  let seq = 0;
  let disposed = false;
  let pendingPumps = 0;
  /** Jobs waiting in `queues` (the sum of their lengths, kept as jobs come and go). */
  let queued = 0;
  /** `target_url` → its path for the fault facts and its `Host` (parsed once per URL, not per delivery). */
  const parts = new Map<string, { path: string; host: string }>();
  const partsOf = (url: string) => {
    let p = parts.get(url);
    if (p === undefined) {
      if (parts.size >= 1024) parts.clear();
      p = urlParts(url);
      parts.set(url, p);
    }
    return p;
  };
  const pathOf = (url: string) => partsOf(url).path;
  const hostOf = (url: string) => partsOf(url).host;

  function checkIdle() {
    if (queued === 0 && busy.size === 0 && pendingPumps === 0 && ahead.size === 0) {
      const ws = idleWaiters;
      idleWaiters = [];
      for (const w of ws) w();
    }
  }

  function record(
    base: Base,
    deliveryId: number | null,
    outcome: OutboundEntry['outcome'],
    statusCode: number | null,
  ): OutboundEntry {
    // The same keys in the same order as ever (the journal is served as JSON).
    const entry: OutboundEntry = {
      seq: ++seq,
      time: world.clock.iso(),
      webhookId: base.webhookId,
      event: base.event,
      attempt: base.attempt,
      redelivery: base.redelivery,
      url: base.url,
      method: 'POST',
      headers: base.headers,
      body: base.body,
      faults: base.faults,
      deliveryId,
      outcome,
      statusCode,
    };
    entries.push(entry);
    if (entries.length > capacity) {
      entries.shift();
      journalDropped++;
    }
    if (waiters.size === 0) return entry;
    for (const w of [...waiters]) {
      if (w.pred(entry)) {
        waiters.delete(w);
        w.resolve(entry);
      }
    }
    return entry;
  }

  /**
   * The request's headers as they go on the wire. http.client writes `Host` first (`putrequest`); then
   * python-requests' own: the session's defaults, the request's `X-Signature-256`, then what
   * `prepare_body` adds for `json=`: `Content-Length` (`prepare_content_length`) and only then
   * `Content-Type`.
   */
  function headersFor(url: string, body: string, secret: string, corrupt: boolean): [string, string][] {
    const host = hostOf(url);
    const h: [string, string][] = host === '' ? [] : [['Host', host]];
    h.push(
      ['User-Agent', userAgent],
      ['Accept-Encoding', 'gzip, deflate'],
      ['Accept', '*/*'],
      ['Connection', 'keep-alive'],
    );
    if (secret !== '') {
      let sig = signWebhookBody(secret, body);
      if (corrupt)
        sig = `sha256=${[...sig.slice(7)].map((c) => ((Number.parseInt(c, 16) + 1) % 16).toString(16)).join('')}`;
      h.push(['X-Signature-256', sig]);
    }
    // The body is ASCII (json.dumps escapes the rest): as many bytes as characters.
    h.push(['Content-Length', String(body.length)], ['Content-Type', 'application/json']);
    return h;
  }

  function requestOf(
    url: string,
    headers: [string, string][],
    bodyText: string,
    verifyTls: boolean,
    addresses?: string[],
  ): OutboundRequest {
    let bytes: Buffer | undefined;
    const request: OutboundRequest = {
      url,
      headers,
      get body() {
        bytes ??= Buffer.from(bodyText, 'latin1');
        return bytes;
      },
      bodyText,
      verifyTls,
      connectTimeoutMs,
      readTimeoutMs,
    };
    if (addresses !== undefined) request.addresses = addresses;
    return request;
  }

  /**
   * The egress policy's decision for a target, before any connection: go (to these addresses), or the
   * result CVAT records for a delivery its proxy refused, or for a name that does not resolve.
   */
  async function egressCheck(
    url: string,
  ): Promise<
    { go: true; addresses?: string[] } | { go: false; result: OutboundResult; outcome?: 'egress-refused' }
  > {
    const known = egress.immediate(url);
    if (known?.allowed) return { go: true };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      // Not a URL the sender can parse: it refuses it before opening anything, as it always has.
      return { go: true };
    }
    // Nor a scheme it sends to (Django's URLValidator also lets ftp:// through): nothing to resolve.
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return { go: true };
    try {
      const verdict = known ?? (await egress.decide(target));
      if (verdict.allowed) return { go: true, addresses: verdict.addresses };
      return { go: false, result: refusedDeliveryResult(target, verdict), outcome: 'egress-refused' };
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown };
      const code = typeof e?.code === 'string' ? e.code : '';
      return { go: false, result: failedConnectionResult(target, code, String(e?.message ?? err)) };
    }
  }

  async function attempt(job: Job, ignoreActive: boolean): Promise<DeliveryRec | undefined> {
    const s = state();
    let webhook = s.webhooks.get(job.webhookId);
    // The worker re-reads the webhook: deleted or inactive means nothing is sent and no row is written.
    if (!webhook || (!ignoreActive && !webhook.is_active)) return undefined;
    const fired: string[] = [];
    const facts = {
      operation: 'webhooks.deliver',
      resource: `webhooks/${job.webhookId}`,
      method: 'POST',
      path: pathOf(webhook.target_url),
      headers: {},
      query: {},
      body: job.payload,
    };
    const take = <T>(kind: string): T | undefined => {
      const t = world.faults.take<T>(facts, kind);
      if (t) fired.push(t.rule.id);
      return t?.value;
    };
    const delay = take<number | string>('deliveryDelay');
    if (delay !== undefined) {
      await world.clock.sleep(delay);
      webhook = state().webhooks.get(job.webhookId);
      if (!webhook || (!ignoreActive && !webhook.is_active)) return undefined;
    }
    // ASCII only (ensure_ascii): signed, measured and sent as text; its bytes are made only for a sender
    // that asks for them (the delivery thread takes the text).
    const bodyText = pythonJsonDumps(job.payload);
    const refused = take('deliveryRefused') !== undefined;
    const timedOut = !refused && take('deliveryTimeout') !== undefined;
    // A synchronous ping cannot be lost in a queue: drop rules do not apply to it.
    const drop = !ignoreActive && !refused && !timedOut && take('deliveryDrop') !== undefined;
    const duplicate = take('deliveryDuplicate') !== undefined;
    const corrupt = take('corruptSignature') !== undefined;
    const headers = headersFor(webhook.target_url, bodyText, webhook.secret, corrupt);
    const url = webhook.target_url;
    const base = baseOf(job, url, headers, bodyText, fired);
    if (drop) {
      record(base, null, 'dropped', null);
      return undefined;
    }
    const started = wallNow();
    let result: OutboundResult;
    let outcome: OutboundEntry['outcome'] | undefined;
    if (refused)
      result = {
        kind: 'connection-error',
        message: connectionErrorText(new URL(url), '[Errno 111] Connection refused'),
      };
    else if (timedOut)
      result = { kind: 'timeout', message: readTimeoutText(new URL(url), readTimeoutMs / 1000) };
    else {
      // The egress policy decides after resolving the name and before anything is opened.
      const pass = await egressCheck(url);
      if (!pass.go) {
        result = pass.result;
        outcome = pass.outcome;
      } else {
        const request = requestOf(url, headers, bodyText, webhook.enable_ssl, pass.addresses);
        result = await sender(request);
        if (duplicate) {
          record(base, null, outcomeOf(result), statusOf(result));
          result = await sender(request);
        }
      }
    }
    return finish(job, base, result, Math.round(wallNow() - started), outcome);
  }

  /** The delivery row (unless the webhook is gone) and the journal entry of one attempt's outcome. */
  function finish(
    job: Job,
    base: Base,
    result: OutboundResult,
    duration: number,
    outcome: OutboundEntry['outcome'] = outcomeOf(result),
  ): DeliveryRec {
    const status = statusOf(result);
    const response = result.kind === 'response' ? result.body : result.message;
    const s2 = state();
    const now = formatDrfDate(world.clock.now());
    const row: DeliveryRec = {
      id: nextId(s2, 'deliveries'),
      webhook_id: job.webhookId,
      event: job.event,
      status_code: status,
      redelivery: job.redelivery,
      attempt: job.attempt,
      request_duration: duration,
      changed_fields: changedFieldsOf(job.payload),
      request: job.payload,
      response,
      created_date: now,
      updated_date: now,
    };
    // A webhook deleted while its request was in flight takes its deliveries with it.
    if (s2.webhooks.has(job.webhookId)) {
      s2.deliveries.set(row.id, row);
      keepBounded(s2.deliveries, job.webhookId, row.id);
    }
    record(base, row.id, outcome, status);
    return row;
  }

  /** Drops a webhook's oldest delivery rows past `maxRows` (those a redelivery or a list could still name). */
  function keepBounded(rows: Map<number, DeliveryRec>, webhookId: number, id: number) {
    let byWebhook = rowsOf.get(rows);
    if (!byWebhook) {
      byWebhook = new Map();
      rowsOf.set(rows, byWebhook);
    }
    let ids = byWebhook.get(webhookId);
    if (!ids) {
      // First row this engine stores for the webhook: start from the rows it already has (a seed, an import).
      ids = [...rows.values()]
        .filter((r) => r.webhook_id === webhookId)
        .map((r) => r.id)
        .filter((x) => x !== id);
      byWebhook.set(webhookId, ids);
    }
    ids.push(id);
    while (ids.length > maxRows) {
      const oldest = ids.shift();
      if (oldest !== undefined) rows.delete(oldest);
    }
  }

  function scheduleRetry(job: Job) {
    const delayS = delays[job.attempt - 1];
    if (delayS === undefined) return;
    const timer = world.clock.after(delayS * 1000 * scale, () => {
      timers.delete(timer);
      push({ ...job, attempt: job.attempt + 1 });
    });
    timers.add(timer);
  }

  function push(job: Job) {
    if (disposed) return;
    const q = queues.get(job.webhookId);
    if (q) q.push(job);
    else queues.set(job.webhookId, [job]);
    queued++;
    pendingPumps++;
    // Never inside the API request: the worker picks the job up after the response is on its way.
    setImmediate(() => {
      pendingPumps--;
      pump(job.webhookId);
    });
  }

  /** The webhook to prepare a delivery for ahead of its turn, or undefined if it must wait for it. */
  function aheadTarget(webhookId: number) {
    if (!lanes || !slot || busy.has(webhookId) || world.faults.size() > 0 || !lanes.available()) return;
    // A table put in place of the watched one (not by this module) is not watched: nothing ahead.
    const s = state();
    if (s.webhooks !== webhookTable) return;
    const webhook = webhookTable.get(webhookId);
    // Deleted or inactive: the plain path skips it (no row), in its turn.
    if (!webhook?.is_active) return;
    // Only a target the egress policy opens without resolving anything (an IP address it allows) goes
    // ahead: a host name is resolved in its turn, and a refused target is recorded by the plain path.
    if (egress.immediate(webhook.target_url)?.allowed !== true) return;
    // Behind deliveries prepared at another generation, it waits until they are back or done.
    const a = ahead.get(webhookId);
    if (a && a.stamp !== slot.current()) return;
    return webhook;
  }

  function sendAhead(job: Job, webhook: WebhookRec, lanesOf: LaneSender, gen: GenerationSlot) {
    const stamp = gen.current();
    let a = ahead.get(job.webhookId);
    if (!a) {
      a = { stamp, jobs: 0, returned: [] };
      ahead.set(job.webhookId, a);
    }
    a.jobs++;
    const bodyText = pythonJsonDumps(job.payload);
    const url = webhook.target_url;
    const headers = headersFor(url, bodyText, webhook.secret, false);
    const base = baseOf(job, url, headers, bodyText, []);
    const entry = a;
    lanesOf
      .send(requestOf(url, headers, bodyText, webhook.enable_ssl), {
        key: laneKey + job.webhookId,
        slot: gen,
        stamp,
      })
      .then((answer) => {
        if (answer === 'stale') entry.returned.push(job);
        else {
          const row = finish(job, base, answer.result, Math.round(answer.durationMs));
          if (row.status_code != null && RETRYABLE(row.status_code)) scheduleRetry(job);
        }
      })
      .catch((err) => console.error('annotation-sim: delivery failed unexpectedly', err))
      .finally(() => {
        if (--entry.jobs > 0) return;
        ahead.delete(job.webhookId);
        // Those that came back unsent go first, prepared again (as of now) in their turn.
        if (entry.returned.length > 0 && !disposed) {
          const q = queues.get(job.webhookId);
          queues.set(job.webhookId, q ? [...entry.returned, ...q] : entry.returned);
          queued += entry.returned.length;
        }
        pump(job.webhookId);
      });
  }

  function pump(webhookId: number) {
    if (disposed || busy.has(webhookId)) return checkIdle();
    const q = queues.get(webhookId);
    if (q && lanes && slot) {
      for (let webhook = aheadTarget(webhookId); webhook && q.length > 0; webhook = aheadTarget(webhookId)) {
        queued--;
        sendAhead(q.shift() as Job, webhook, lanes, slot);
      }
    }
    // The plain path waits for what is on the thread ahead of it.
    if (ahead.has(webhookId)) {
      if (q?.length === 0) queues.delete(webhookId);
      return checkIdle();
    }
    const job = q?.shift();
    if (!job) {
      queues.delete(webhookId);
      return checkIdle();
    }
    queued--;
    busy.add(webhookId);
    attempt(job, false)
      .then((row) => {
        if (row?.status_code != null && RETRYABLE(row.status_code)) scheduleRetry(job);
      })
      .catch((err) => console.error('annotation-sim: delivery failed unexpectedly', err))
      .finally(() => {
        busy.delete(webhookId);
        pump(webhookId);
      });
  }

  const engine: DeliveryEngine = {
    enqueue(webhookId, payload, opts = {}) {
      push({
        webhookId,
        payload,
        event: String(payload.event),
        redelivery: opts.redelivery ?? false,
        attempt: 1,
      });
    },
    async sendNow(webhookId, payload) {
      const row = await attempt(
        { webhookId, payload, event: String(payload.event), redelivery: false, attempt: 1 },
        true,
      );
      if (!row) throw new Error(`ping of webhook ${webhookId} was dropped by a fault rule`);
      return row;
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        checkIdle();
      });
    },
    stats() {
      // On the thread ahead of their turn: one per webhook in flight, the rest still queued.
      let waiting = 0;
      for (const a of ahead.values()) waiting += a.jobs - 1;
      return { queued: queued + waiting, inFlight: busy.size + ahead.size, scheduledRetries: timers.size };
    },
    journal: () => ({ entries: [...entries], dropped: journalDropped }),
    egress: () => egress.settings(),
    configureEgress(input) {
      egress.set(egressSettingsOf(input, egress.settings()));
      // What was prepared ahead under the old policy goes back, to be checked again in its turn.
      slot?.bump();
      return egress.settings();
    },
    clearJournal() {
      entries.length = 0;
    },
    waitFor(pred, timeoutMs) {
      const found = entries.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => {
        const waiter = {
          pred,
          resolve: (e: OutboundEntry | undefined) => {
            clearTimeout(timer);
            resolve(e);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(undefined);
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    dispose() {
      disposed = true;
      // What is queued on the thread goes back unsent.
      for (const stop of unwatch) stop();
      if (slot) {
        slot.release();
        slots.unregister(engine);
      }
      for (const t of timers) world.clock.cancel(t);
      timers.clear();
      queues.clear();
      queued = 0;
      for (const w of waiters) w.resolve(undefined);
      waiters.clear();
      const ws = idleWaiters;
      idleWaiters = [];
      for (const w of ws) w();
    },
  };
  if (slot) slots.register(engine, slot, engine);
  return engine;
}

/** What a journal entry of one attempt shares, whatever its outcome. */
interface Base {
  webhookId: number;
  event: string;
  attempt: number;
  redelivery: boolean;
  url: string;
  headers: [string, string][];
  body: string;
  faults: string[];
}

function baseOf(job: Job, url: string, headers: [string, string][], body: string, faults: string[]): Base {
  return {
    webhookId: job.webhookId,
    event: job.event,
    attempt: job.attempt,
    redelivery: job.redelivery,
    url,
    headers,
    body,
    faults,
  };
}

function outcomeOf(result: OutboundResult): OutboundEntry['outcome'] {
  return result.kind === 'response' ? 'response' : result.kind;
}

/** The delivery row's `status_code`: the response's, else 504 for a time-out and 502 for the rest. */
function statusOf(result: OutboundResult): number {
  return result.kind === 'response' ? result.status : result.kind === 'timeout' ? 504 : 502;
}

/**
 * A target URL's path, and its `Host` header as http.client writes it: the host (IPv6 in brackets) and
 * the port unless it is the scheme's default.
 */
function urlParts(url: string): { path: string; host: string } {
  try {
    const u = new URL(url);
    return { path: u.pathname, host: u.host };
  } catch {
    return { path: '/', host: '' };
  }
}
