// The delivery engine: per-webhook FIFO queues of webhook deliveries, CVAT's retries, the outbound journal,
// the egress policy, and sending ahead on the delivery thread where it may (./ahead.ts).
import type { WorldCore } from '@sims/sim-core';
import type { AnnotationState } from '../domain/state';
import { type Ahead, createAhead } from './ahead';
import { aheadWorldOf } from './ahead-world';
import { createAttempts, type Finished, type Job } from './attempt';
import { createEgressGuard, DEFAULT_EGRESS, egressSettingsOf } from './egress';
import { createJournal } from './journal';
import type { WebhookSender } from './outbound';
import { laneSenderOf } from './sender';
import { CVAT_JOB_TIMEOUT_MS, CVAT_RETRY_DELAYS_S, type DeliveryEngine, type DeliveryOptions } from './types';

export { CVAT_RETRY_DELAYS_S, type DeliveryEngine, type DeliveryOptions, type OutboundEntry } from './types';

const RETRYABLE = (status: number) => status >= 500 || status === 408 || status === 429;
/**
 * Whether RQ retries the job: CVAT raises on a retryable status after writing the row, and a job its
 * time-out killed failed as well.
 */
const retryDue = (finished: Finished | undefined) =>
  finished === 'job-timeout' || (finished?.status_code != null && RETRYABLE(finished.status_code));

export function createDeliveryEngine(
  world: WorldCore,
  state: () => AnnotationState,
  sender: WebhookSender,
  options: DeliveryOptions = {},
): DeliveryEngine {
  const delays = options.retryDelays ?? CVAT_RETRY_DELAYS_S;
  const scale = options.retryScale ?? 1;
  const egress = createEgressGuard(egressSettingsOf(options.egress, DEFAULT_EGRESS), options.resolve);
  const journal = createJournal(() => world.clock.iso(), options.journalCapacity ?? 1000, world.budget);
  const attempts = createAttempts(world, state, sender, egress, journal, {
    connectTimeoutMs: options.connectTimeoutMs ?? 3000,
    readTimeoutMs: options.readTimeoutMs ?? 10000,
    jobTimeoutMs: options.jobTimeoutMs ?? CVAT_JOB_TIMEOUT_MS,
    userAgent: options.userAgent ?? 'CVAT/2.73.0 python-requests/2.33.1',
    maxRows: options.maxDeliveriesPerWebhook ?? 1000,
    wallNow: options.wallNow ?? (() => performance.now()),
  });
  const queues = new Map<number, Job[]>();
  const busy = new Set<number>();
  const timers = new Set<number>();
  let idleWaiters: (() => void)[] = [];
  let disposed = false;
  let pendingPumps = 0;
  /** Jobs waiting in `queues` (the sum of their lengths, kept as jobs come and go). */
  let queued = 0;
  // Sending ahead, unless durations must come from an injected clock or the sender has no thread.
  const lanes = options.wallNow === undefined ? laneSenderOf(sender) : undefined;
  const group = lanes?.open();
  const ahead: Ahead | undefined =
    lanes && group
      ? createAhead(lanes, group, aheadWorldOf(world, state), egress, attempts, {
          answered(job, finished) {
            if (retryDue(finished)) scheduleRetry(job);
          },
          drained(webhookId, returned) {
            // Those that came back unsent go first, prepared again (as of now) in their turn.
            if (returned.length > 0 && !disposed) {
              const q = queues.get(webhookId);
              queues.set(webhookId, q ? [...returned, ...q] : returned);
              queued += returned.length;
            }
            pump(webhookId);
          },
        })
      : undefined;

  function checkIdle() {
    if (queued === 0 && busy.size === 0 && pendingPumps === 0 && (ahead?.counts().webhooks ?? 0) === 0) {
      const ws = idleWaiters;
      idleWaiters = [];
      for (const w of ws) w();
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

  function pump(webhookId: number) {
    if (disposed || busy.has(webhookId)) return checkIdle();
    const q = queues.get(webhookId);
    if (q && ahead)
      ahead.drain(webhookId, q, () => {
        queued--;
      });
    // The plain path waits for what is on the thread ahead of it.
    if (ahead?.holds(webhookId)) {
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
    attempts
      .attempt(job, false)
      .then((finished) => {
        if (retryDue(finished)) scheduleRetry(job);
      })
      .catch((err) => console.error('annotation-sim: delivery failed unexpectedly', err))
      .finally(() => {
        busy.delete(webhookId);
        pump(webhookId);
      });
  }

  return {
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
      const row = await attempts.attempt(
        { webhookId, payload, event: String(payload.event), redelivery: false, attempt: 1 },
        true,
      );
      if (!row) throw new Error(`ping of webhook ${webhookId} was dropped by a fault rule`);
      // Never so: a ping cut off by the deadline has a 504 row.
      if (row === 'job-timeout') throw new Error(`ping of webhook ${webhookId} has no delivery row`);
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
      const onThread = ahead?.counts() ?? { webhooks: 0, waiting: 0 };
      return {
        queued: queued + onThread.waiting,
        inFlight: busy.size + onThread.webhooks,
        scheduledRetries: timers.size,
      };
    },
    journal: () => journal.read(),
    egress: () => egress.settings(),
    configureEgress(input) {
      egress.set(egressSettingsOf(input, egress.settings()));
      // What was prepared ahead under the old policy goes back, to be checked again in its turn.
      ahead?.invalidate();
      return egress.settings();
    },
    clearJournal: () => journal.clear(),
    waitFor: (pred, timeoutMs) => journal.waitFor(pred, timeoutMs),
    dispose() {
      disposed = true;
      // What is queued on the thread goes back unsent.
      ahead?.close();
      for (const t of timers) world.clock.cancel(t);
      timers.clear();
      queues.clear();
      queued = 0;
      journal.close();
      const ws = idleWaiters;
      idleWaiters = [];
      for (const w of ws) w();
    },
  };
}
