// What one delivery attempt leaves: its delivery row (kept per webhook within `maxRows`) and its
// journal entry.
import type { WorldCore } from '@sims/sim-core';
import { formatDrfDate } from '../domain/dates';
import type { DeliveryRec } from '../domain/model';
import { changedFieldsOf } from '../domain/payloads';
import { type AnnotationState, nextId } from '../domain/state';
import type { AttemptSettings, Finished, Job } from './attempt-types';
import type { Base, Journal } from './journal';
import { jobTimeoutText, type OutboundResult } from './outbound';
import { DELIVERY_ROWS } from './rows-budget';
import type { OutboundEntry } from './types';

/** The attempt's deadline (ms), if it has one: `jobTimeoutMs` when positive and finite. */
export function deadlineOf({ jobTimeoutMs }: AttemptSettings): number | undefined {
  return Number.isFinite(jobTimeoutMs) && jobTimeoutMs > 0 ? jobTimeoutMs : undefined;
}

/** The recording half of an engine's attempts (attempt.ts): `finish`, with the rows it keeps per webhook. */
export function createRecorder(
  world: WorldCore,
  state: () => AnnotationState,
  journal: Journal,
  settings: AttemptSettings,
) {
  const { maxRows } = settings;
  const deadline = deadlineOf(settings);
  /** Per webhook, the ids of the rows this engine stored, oldest first (a state's rows by its map). */
  const rowsOf = new WeakMap<Map<number, DeliveryRec>, Map<number, number[]>>();
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

  return finish;
}

export function outcomeOf(result: OutboundResult): OutboundEntry['outcome'] {
  return result.kind === 'job-timeout' ? 'timeout' : result.kind;
}

/** The delivery row's `status_code`: the response's, else 504 for a time-out and 502 for the rest. */
export function statusOf(result: OutboundResult): number {
  if (result.kind === 'response') return result.status;
  return result.kind === 'connection-error' ? 502 : 504;
}
