// One delivery attempt on the API thread: the webhook re-read, the receiver-side fault rules, the request
// as python-requests writes it (payload bytes, signature, headers), the egress check, and the delivery
// row and journal entry of its outcome.
import type { WorldCore } from '@sims/sim-core';
import { annotationEffects, type ReceiverFault } from '../domain/fault-effects';
import { pythonJsonDumps } from '../domain/python-json';
import type { AnnotationState } from '../domain/state';
import { createRecorder, deadlineOf, outcomeOf, statusOf } from './attempt-record';
import { createRequestMaker } from './attempt-request';
import type { AttemptSettings, Finished, Job, Target } from './attempt-types';
import type { EgressGuard } from './egress';
import type { Base, Journal } from './journal';
import { connectionErrorText, type OutboundResult, readTimeoutText, type WebhookSender } from './outbound';
import type { OutboundRequest } from './outbound-request';
import type { OutboundEntry } from './types';

export type { AttemptSettings, Finished, Job, Target } from './attempt-types';

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
  const { readTimeoutMs, wallNow } = settings;
  const deadline = deadlineOf(settings);
  const { partsOf, headersFor, requestOf, egressCheck } = createRequestMaker(egress, settings);
  const finish = createRecorder(world, state, journal, settings);

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

/** The `response` of a ping row cut off by the deadline (CVAT's ping runs in no RQ job: a choice). */
function pingDeadlineText(ms: number): string {
  return `annotation-sim: the receiver had not finished answering when the delivery deadline passed (jobTimeoutMs, ${ms / 1000} seconds)`;
}
