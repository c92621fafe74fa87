// The webhook senders: the wire client on the calling thread, or on the delivery thread (the default), and
// the lanes the engine queues a webhook's deliveries in ahead of their turn (docs/decisions/0010, 0011).
import { type OutboundResult, outboundResult, type WebhookSender } from './outbound';
import type { OutboundRequest } from './outbound-request';
import { claimGeneration, type DeliveryThread, deliveryThread } from './thread/host';
import { MAX_RESPONSE_BYTES, wireRequestOf } from './thread/protocol';
import { wireSender } from './thread/wire';

// What the tests and the package's index take from here.
export {
  connectionAbortedText,
  type OutboundResult,
  pythonStrRepr,
  type WebhookSender,
} from './outbound';
export type { OutboundRequest } from './outbound-request';
export { DELIVERY_THREAD_IDLE_MS, profilingArgs } from './thread/host';

/**
 * The real sender on the calling thread: the wire client (./thread/wire.ts) put in requests' words. The
 * simulator's default is {@link createWorkerSender}, which runs the same wire code on a thread of its own.
 */
export function createHttpSender(): WebhookSender {
  const send = wireSender(MAX_RESPONSE_BYTES);
  return async (req) => outboundResult(req, await send(wireRequestOf(req)));
}

/**
 * One engine's lanes on the delivery thread (one per webhook) and the generation they share: a request is
 * prepared at the current generation and goes back unsent if the generation has moved when its turn
 * comes. Closed on the engine's dispose, or given back when it is garbage-collected.
 */
export interface LaneGroup {
  /** The generation a request prepared now is stamped with. */
  generation(): number;
  /** Every request queued at an earlier generation goes back unsent. */
  invalidate(): void;
  /**
   * Queues a request in the webhook's lane, prepared at `generation`. Resolves with requests' account of
   * the outcome and the thread's timing of it (ms), or 'stale' when the generation moved before it could
   * start (nothing was sent).
   */
  send(
    webhookId: number,
    generation: number,
    req: OutboundRequest,
  ): Promise<{ result: OutboundResult; durationMs: number } | 'stale'>;
  /** Invalidates what is queued and frees the generation. */
  close(): void;
}

/**
 * Sending ahead (docs/decisions/0011): a request queued on the delivery thread behind the lane's earlier
 * ones, started by the thread the moment the one before it ends, without a round trip through the API
 * thread, but only if the lane's generation has not moved since it was prepared. Offered by the
 * simulator's default sender only.
 */
export interface LaneSender {
  /** False when there is no thread to queue on (the sender then works on the calling thread). */
  available(): boolean;
  /** A group of lanes, or undefined when no generation counter is left (then everything goes the plain way). */
  open(): LaneGroup | undefined;
}

/** The {@link LaneSender} of a sender, if it has one. */
export function laneSenderOf(sender: WebhookSender): LaneSender | undefined {
  return (sender as WebhookSender & { lanes?: LaneSender }).lanes;
}

/** Makes lane keys unique in the process (the delivery thread is shared by every engine). */
let groups = 0;

/**
 * The simulator's default sender: the same wire code as {@link createHttpSender}, run on a worker
 * thread shared by every simulator of the process, as CVAT sends webhooks from a worker process of its
 * own and not from the API server. The API thread prepares each request (payload, signature, headers)
 * and records the outcome; the thread only opens the connection, writes, reads and closes. It is
 * started on the first delivery, keeps the process alive only while requests are in flight, and ends
 * `DELIVERY_THREAD_IDLE_MS` after the last one (the next delivery starts it again). Its `lanes`
 * ({@link LaneSender}) let the engine queue a webhook's deliveries on the thread ahead of their turn.
 */
export function createWorkerSender(): WebhookSender {
  let onThisThread: WebhookSender | undefined;
  const thread = (): DeliveryThread | undefined => {
    if (onThisThread) return undefined;
    try {
      return deliveryThread();
    } catch (err) {
      // No thread to be had (a runtime without worker_threads, resource limits): send from this one.
      console.warn(
        `annotation-sim: no delivery thread (${(err as Error).message}); sending from the API thread`,
      );
      onThisThread = createHttpSender();
      return undefined;
    }
  };
  const sender: WebhookSender = async (req) => {
    const t = thread();
    if (!t) return (onThisThread as WebhookSender)(req);
    return outboundResult(req, await t.send(req));
  };
  const lanes: LaneSender = {
    available: () => onThisThread === undefined,
    open() {
      const group = {} as LaneGroup;
      const generation = claimGeneration(group);
      if (!generation) return undefined;
      const prefix = `${++groups}/`;
      return Object.assign(group, {
        generation: generation.current,
        invalidate: generation.bump,
        async send(webhookId: number, stamp: number, req: OutboundRequest) {
          const t = thread();
          if (!t) return 'stale' as const;
          const answer = await t.sendInLane(req, {
            key: prefix + webhookId,
            slot: generation.slot,
            generation: stamp,
          });
          if (answer === 'stale') return 'stale' as const;
          return { result: outboundResult(req, answer.outcome), durationMs: answer.durationMs };
        },
        close: generation.release,
      });
    },
  };
  return Object.assign(sender, { lanes });
}
