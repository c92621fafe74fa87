// One delivery attempt on the API thread: the webhook re-read, the receiver-side fault rules, the request
// as python-requests writes it (payload bytes, signature, headers), the egress check, and the delivery
// row and journal entry of its outcome.
import type { WorldCore } from '@sims/sim-core';
import { formatDrfDate } from '../domain/dates';
import { annotationEffects, type ReceiverFault } from '../domain/fault-effects';
import type { DeliveryRec, WebhookRec } from '../domain/model';
import { changedFieldsOf, type Payload } from '../domain/payloads';
import { pythonJsonDumps } from '../domain/python-json';
import { signWebhookBody } from '../domain/signing';
import { type AnnotationState, nextId } from '../domain/state';
import { type EgressGuard, refusedDeliveryResult } from './egress';
import type { Base, Journal } from './journal';
import {
  connectionErrorText,
  failedConnectionResult,
  jobTimeoutText,
  type OutboundResult,
  readTimeoutText,
  type WebhookSender,
} from './outbound';
import type { OutboundRequest } from './outbound-request';
import { DELIVERY_ROWS } from './rows-budget';
import type { OutboundEntry } from './types';

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

export interface Attempts {
  /**
   * Re-reads the webhook and sends one attempt of `job` (unless it is gone, inactive without
   * `ignoreActive`, or dropped by a fault rule); resolves with its row, or `'job-timeout'`. With
   * `ignoreActive` (a ping, sent at once and waited for) a deadline gives a 504 row instead.
   */
  attempt(job: Job, ignoreActive: boolean): Promise<Finished | undefined>;
  /** A request of `job` to `target` prepared now, with no fault rule applied, and its journal base. */
  prepare(job: Job, target: Target): { request: OutboundRequest; base: Base };
  /**
   * The delivery row (unless the webhook is gone, or the deadline cut the attempt off) and the journal
   * entry of one attempt's outcome.
   */
  finish(
    job: Job,
    base: Base,
    result: OutboundResult,
    duration: number,
    outcome?: OutboundEntry['outcome'],
  ): Finished;
}

export function createAttempts(
  world: WorldCore,
  state: () => AnnotationState,
  sender: WebhookSender,
  egress: EgressGuard,
  journal: Journal,
  settings: AttemptSettings,
): Attempts {
  const { connectTimeoutMs, readTimeoutMs, jobTimeoutMs, userAgent, maxRows, wallNow } = settings;
  const deadline = Number.isFinite(jobTimeoutMs) && jobTimeoutMs > 0 ? jobTimeoutMs : undefined;
  /** Per webhook, the ids of the rows this engine stored, oldest first (a state's rows by its map). */
  const rowsOf = new WeakMap<Map<number, DeliveryRec>, Map<number, number[]>>();
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

  /**
   * The request's headers as they go on the wire. http.client writes `Host` first (`putrequest`); then
   * python-requests' own: the session's defaults, the request's `X-Signature-256`, then what
   * `prepare_body` adds for `json=`: `Content-Length` (`prepare_content_length`) and only then
   * `Content-Type`.
   */
  function headersFor(url: string, body: string, secret: string, corrupt: boolean): [string, string][] {
    const host = partsOf(url).host;
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
    deadlineMs: number | undefined,
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
    if (deadlineMs !== undefined) request.deadlineMs = deadlineMs;
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

  async function attempt(job: Job, ignoreActive: boolean): Promise<Finished | undefined> {
    const s = state();
    let webhook = s.webhooks.get(job.webhookId);
    // The worker re-reads the webhook: deleted or inactive means nothing is sent and no row is written.
    if (!webhook || (!ignoreActive && !webhook.is_active)) return undefined;
    const fired: string[] = [];
    const facts = {
      operation: 'webhooks.deliver',
      resource: `webhooks/${job.webhookId}`,
      method: 'POST',
      path: partsOf(webhook.target_url).path,
      headers: {},
      query: {},
      body: job.payload,
    };
    const take = <K extends ReceiverFault>(kind: K) => {
      const t = annotationEffects.take(world.faults, facts, kind);
      if (t) fired.push(t.rule.id);
      return t?.value;
    };
    const delay = take('deliveryDelay');
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
      journal.record(base, null, 'dropped', null);
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
        // The deadline counts from the start of the attempt, the name's resolution included.
        const left = deadline === undefined ? undefined : Math.max(1, deadline - (wallNow() - started));
        const request = requestOf(url, headers, bodyText, webhook.enable_ssl, left, pass.addresses);
        result = await sender(request);
        if (duplicate && result.kind !== 'job-timeout') {
          journal.record(base, null, outcomeOf(result), statusOf(result));
          result = await sender(request);
        }
      }
    }
    // A ping is answered with its row: one cut off by the deadline is recorded as a time-out.
    if (ignoreActive && result.kind === 'job-timeout')
      result = { kind: 'timeout', message: pingDeadlineText(deadline ?? 0) };
    return finish(job, base, result, Math.round(wallNow() - started), outcome);
  }

  function prepare(job: Job, target: Target) {
    const bodyText = pythonJsonDumps(job.payload);
    const url = target.target_url;
    const headers = headersFor(url, bodyText, target.secret, false);
    const base = baseOf(job, url, headers, bodyText, []);
    return { request: requestOf(url, headers, bodyText, target.enable_ssl, deadline), base };
  }

  function finish(
    job: Job,
    base: Base,
    result: OutboundResult,
    duration: number,
    outcome: OutboundEntry['outcome'] = outcomeOf(result),
  ): Finished {
    // CVAT's RQ job is killed before it writes the row; only the journal tells of the attempt.
    if (result.kind === 'job-timeout') {
      journal.record(base, null, 'timeout', null, jobTimeoutText((deadline ?? 0) / 1000));
      return 'job-timeout';
    }
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
      DELIVERY_ROWS.count(world.budget, s2.deliveries, row.id);
    }
    journal.record(base, row.id, outcome, status);
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
      if (oldest !== undefined) DELIVERY_ROWS.forget(rows, oldest);
    }
  }

  return { attempt, prepare, finish };
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
  return result.kind === 'job-timeout' ? 'timeout' : result.kind;
}

/** The delivery row's `status_code`: the response's, else 504 for a time-out and 502 for the rest. */
function statusOf(result: OutboundResult): number {
  if (result.kind === 'response') return result.status;
  return result.kind === 'connection-error' ? 502 : 504;
}

/** The `response` of a ping row cut off by the deadline (CVAT's ping runs in no RQ job: a choice). */
function pingDeadlineText(ms: number): string {
  return `annotation-sim: the receiver had not finished answering when the delivery deadline passed (jobTimeoutMs, ${ms / 1000} seconds)`;
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
