// Sending ahead (docs/decisions/0011): a webhook's queued deliveries are prepared as their turn comes and
// handed to the delivery thread in the webhook's lane, which starts each one when the one before it ends,
// unless the engine's generation has moved since (a webhook change, a fault rule added, an egress change,
// the dispose). What this needs from the domain is the two-method AheadWorld, and from the thread a
// LaneGroup: neither side's internals are reached.
import type { Attempts, Finished, Job, Target } from './attempt';
import type { EgressGuard } from './egress';
import type { OutboundResult } from './outbound';
import type { LaneGroup, LaneSender } from './sender';

/** The domain as sending ahead sees it (implemented by ./ahead-world.ts). */
export interface AheadWorld {
  /**
   * The webhook, if deliveries to it may be prepared ahead now: it exists and is active, no fault rule
   * exists (rules count and alter each delivery), and {@link watch} sees its changes.
   */
  webhook(id: number): Target | undefined;
  /**
   * Calls `listener` after every change that may void a delivery prepared ahead (a webhook set, deleted
   * or cleared, a fault rule added); returns the unsubscribe function.
   */
  watch(listener: () => void): () => void;
}

export interface Ahead {
  /**
   * Takes jobs off the front of a webhook's queue (not one with an attempt of its own in flight) and sends
   * them ahead, while its webhook may go ahead; `taken` is called for each one taken.
   */
  drain(webhookId: number, queue: Job[], taken: () => void): void;
  /** Whether the webhook has deliveries on the thread (the plain path waits for them). */
  holds(webhookId: number): boolean;
  /** Webhooks with deliveries on the thread (one in flight each), and the deliveries waiting behind them. */
  counts(): { webhooks: number; waiting: number };
  /** What is queued on the thread goes back unsent, to be prepared again in its turn. */
  invalidate(): void;
  /** Invalidates, stops watching and frees the generation. */
  close(): void;
}

/** What the engine does with what comes back. */
export interface AheadOutcomes {
  /**
   * A delivery sent ahead came back: its row, or `'job-timeout'` when the deadline cut it off (a retry
   * to schedule?).
   */
  answered(job: Job, finished: Finished): void;
  /**
   * The webhook has nothing on the thread any more; `returned` came back unsent, in order, to go first
   * in its queue.
   */
  drained(webhookId: number, returned: Job[]): void;
}

export function createAhead(
  lanes: LaneSender,
  group: LaneGroup,
  world: AheadWorld,
  egress: EgressGuard,
  attempts: Attempts,
  outcomes: AheadOutcomes,
): Ahead {
  const unwatch = world.watch(group.invalidate);
  /** Per webhook: the deliveries on the thread (prepared at `stamp`), and those that came back unsent. */
  const ahead = new Map<number, { stamp: number; jobs: number; returned: Job[] }>();

  /** The webhook to prepare a delivery for ahead of its turn, or undefined if it must wait for it. */
  function target(webhookId: number): Target | undefined {
    if (!lanes.available()) return;
    // Deleted or inactive, or a fault rule exists: the plain path takes it, in its turn.
    const webhook = world.webhook(webhookId);
    if (!webhook) return;
    // Only a target the egress policy opens without resolving anything (an IP address it allows) goes
    // ahead: a host name is resolved in its turn, and a refused target is recorded by the plain path.
    if (egress.immediate(webhook.target_url)?.allowed !== true) return;
    // Behind deliveries prepared at another generation, it waits until they are back or done.
    const a = ahead.get(webhookId);
    if (a && a.stamp !== group.generation()) return;
    return webhook;
  }

  function send(job: Job, webhook: Target) {
    const stamp = group.generation();
    let a = ahead.get(job.webhookId);
    if (!a) {
      a = { stamp, jobs: 0, returned: [] };
      ahead.set(job.webhookId, a);
    }
    a.jobs++;
    const { request, base } = attempts.prepare(job, webhook);
    const entry = a;
    group
      .send(job.webhookId, stamp, request)
      .then((answer: { result: OutboundResult; durationMs: number } | 'stale') => {
        if (answer === 'stale') entry.returned.push(job);
        else {
          outcomes.answered(job, attempts.finish(job, base, answer.result, Math.round(answer.durationMs)));
        }
      })
      .catch((err) => console.error('annotation-sim: delivery failed unexpectedly', err))
      .finally(() => {
        if (--entry.jobs > 0) return;
        ahead.delete(job.webhookId);
        outcomes.drained(job.webhookId, entry.returned);
      });
  }

  return {
    drain(webhookId, queue, taken) {
      for (let webhook = target(webhookId); webhook && queue.length > 0; webhook = target(webhookId)) {
        taken();
        send(queue.shift() as Job, webhook);
      }
    },
    holds: (webhookId) => ahead.has(webhookId),
    counts() {
      let waiting = 0;
      for (const a of ahead.values()) waiting += a.jobs - 1;
      return { webhooks: ahead.size, waiting };
    },
    invalidate: () => group.invalidate(),
    close() {
      unwatch();
      group.close();
    },
  };
}
