// The API thread's side of the delivery thread: starting it, posting requests, matching the answers, ending
// it when idle; and the generation counters it shares with it (docs/decisions/0010, 0011).
import { Worker } from 'node:worker_threads';
import type { OutboundRequest } from '../outbound-request';
import {
  encodeRequest,
  type FromThread,
  type LaneStamp,
  type ThreadData,
  type WireOutcome,
} from './protocol';
import { DELIVERY_WORKER_CODE } from './worker.generated';

/** What a request sent in a lane comes back as: its outcome and the thread's own timing of it, or unsent. */
type LaneAnswer = { outcome: WireOutcome; durationMs: number } | 'stale';

export interface DeliveryThread {
  send(req: OutboundRequest): Promise<WireOutcome>;
  sendInLane(req: OutboundRequest, lane: LaneStamp): Promise<LaneAnswer>;
}

/**
 * How long the delivery thread outlives its last delivery. A process that imports this module more than
 * once (test runners that isolate each test file do) would otherwise keep one idle thread per import.
 */
export const DELIVERY_THREAD_IDLE_MS = 2_000;

/** The `--cpu-prof*` options of an execArgv, with the values of those given as separate arguments. */
export function profilingArgs(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i] as string;
    if (!a.startsWith('--cpu-prof')) continue;
    out.push(a);
    const takesValue = a === '--cpu-prof-dir' || a === '--cpu-prof-name' || a === '--cpu-prof-interval';
    if (takesValue && i + 1 < execArgv.length) out.push(execArgv[++i] as string);
  }
  return out;
}

/**
 * Generation counters shared with the delivery thread, one per delivery engine that claims one (an engine
 * without one sends everything the plain way). A counter only goes up, so a counter freed by a disposed
 * engine can be claimed by another: what the old one left queued was prepared at a lower generation.
 */
const GENERATION_SLOTS = 4096;
const generations = new Int32Array(new SharedArrayBuffer(GENERATION_SLOTS * 4));
const freeSlots: number[] = [];
let slotsUsed = 0;

/** One engine's generation counter. */
export interface Generation {
  /** Its index among the shared counters (what a lane request names). */
  readonly slot: number;
  current(): number;
  /** Every request queued in a lane at an earlier generation goes back unsent. */
  bump(): void;
  /** Gives the counter back (after a last bump); also done when its owner is garbage-collected. */
  release(): void;
}

/** An owner dropped without releasing its counter (a simulator never closed) gives it back. */
const unreleased = new FinalizationRegistry<() => void>((release) => release());

/** Claims a generation counter for `owner`, or undefined when all 4,096 are taken. */
export function claimGeneration(owner: object): Generation | undefined {
  const index = freeSlots.pop() ?? (slotsUsed < GENERATION_SLOTS ? slotsUsed++ : undefined);
  if (index === undefined) return undefined;
  let released = false;
  const giveBack = () => {
    if (released) return;
    released = true;
    Atomics.add(generations, index, 1);
    freeSlots.push(index);
  };
  const token = {};
  unreleased.register(owner, giveBack, token);
  return {
    slot: index,
    current: () => Atomics.load(generations, index),
    bump: () => {
      Atomics.add(generations, index, 1);
    },
    release() {
      unreleased.unregister(token);
      giveBack();
    },
  };
}

/** The one delivery thread of this module instance, started on first use (never at import). */
let thread: DeliveryThread | undefined;

/** The module's delivery thread, started if it is not running; throws when it cannot be started. */
export function deliveryThread(): DeliveryThread {
  thread ??= startDeliveryThread();
  return thread;
}

function startDeliveryThread(): DeliveryThread {
  // Of the process's execArgv only --cpu-prof*: the thread runs plain JavaScript, whatever loaders or
  // module flags the process has, and `node --cpu-prof` profiles it too.
  const workerData: ThreadData = { generations: generations.buffer as SharedArrayBuffer };
  const worker = new Worker(DELIVERY_WORKER_CODE, {
    eval: true,
    execArgv: profilingArgs(process.execArgv),
    name: 'annotation-sim deliveries',
    workerData,
  });
  // Only requests in flight keep the process alive (as their sockets do on the calling thread).
  worker.unref();
  const pending = new Map<number, { resolve: (answer: LaneAnswer) => void; reject: (err: Error) => void }>();
  let next = 0;
  /** Ends the thread after a spell with nothing in flight (unreferenced: it never holds the process). */
  let idleTimer: NodeJS.Timeout | undefined;
  worker.on('message', ([id, outcome, refused, durationMs]: FromThread) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) {
      worker.unref();
      idleTimer = setTimeout(retire, DELIVERY_THREAD_IDLE_MS).unref();
    }
    if (outcome === 'stale') waiter?.resolve('stale');
    else if (outcome) waiter?.resolve({ outcome, durationMs: durationMs ?? 0 });
    else waiter?.reject(new Error(refused));
  });
  const retire = () => {
    if (pending.size > 0) return;
    if (self === thread) thread = undefined;
    void worker.terminate();
  };
  const fail = (message: string) => {
    clearTimeout(idleTimer);
    if (self === thread) thread = undefined;
    const waiting = [...pending.values()];
    pending.clear();
    for (const waiter of waiting)
      waiter.resolve({ outcome: { kind: 'error', code: '', message }, durationMs: 0 });
  };
  worker.on('error', (err) => fail(`delivery thread failed: ${err.message}`));
  worker.on('exit', (code) => fail(`delivery thread exited (${code})`));
  const post = (req: OutboundRequest, lane?: LaneStamp) =>
    new Promise<LaneAnswer>((resolve, reject) => {
      const id = ++next;
      if (pending.size === 0) {
        clearTimeout(idleTimer);
        worker.ref();
      }
      pending.set(id, { resolve, reject });
      worker.postMessage(encodeRequest(id, req, lane));
    });
  const self: DeliveryThread = {
    async send(req) {
      const answer = await post(req);
      // Only a request in a lane can come back unsent.
      if (answer === 'stale') throw new Error('delivery thread: a request outside any lane came back unsent');
      return answer.outcome;
    },
    sendInLane: post,
  };
  return self;
}
