// The delivery thread's program (docs/decisions/0010, 0011, 0017): it takes requests from the API thread,
// sends them with the wire code and answers with their outcomes. Bundled into worker.generated.ts by
// `pnpm --filter @sims/annotation-sim build-worker`; never imported by the API thread.
import { parentPort, workerData } from 'node:worker_threads';
import {
  decodeRequest,
  type FromThread,
  type LaneMessage,
  MAX_RESPONSE_BYTES,
  PLAIN_FIELDS,
  type ThreadData,
  type ToThread,
} from './protocol';
import { wireSender } from './wire';

const port = parentPort;
if (port === null) throw new Error('the delivery thread runs as a worker thread only');
const answer = (m: FromThread) => port.postMessage(m);
const send = wireSender(MAX_RESPONSE_BYTES);
// One counter per delivery engine, bumped by the API thread whenever what it prepared may no longer hold.
const generations = new Int32Array((workerData as ThreadData).generations);
// Lane (an engine's webhook) -> its requests waiting behind the one in flight (a present key: one is).
const lanes = new Map<string, LaneMessage[]>();

function run(m: ToThread) {
  const request = decodeRequest(m);
  // A lane request starts the next in its lane when it ends.
  const lane = m.length === PLAIN_FIELDS ? undefined : m[10];
  const started = performance.now();
  // A request node:http refuses (a header it will not write, a URL it cannot parse) rejects, as it does
  // on the calling thread; the thread answers with the message and goes on.
  send(request).then(
    (outcome) => {
      answer([m[0], outcome, undefined, performance.now() - started]);
      if (lane !== undefined) advance(lane);
    },
    (err: unknown) => {
      answer([m[0], null, String(err && (err as Error).message)]);
      if (lane !== undefined) advance(lane);
    },
  );
}

// Starts the lane's next request, unless the API thread has bumped its generation since it was
// prepared: then that one and every one behind it (prepared no later) go back unsent, in order.
function advance(lane: string) {
  const waiting = lanes.get(lane) as LaneMessage[];
  let m = waiting.shift();
  while (m !== undefined && Atomics.load(generations, m[11]) !== m[12]) {
    answer([m[0], 'stale']);
    m = waiting.shift();
  }
  if (m === undefined) lanes.delete(lane);
  else run(m);
}

port.on('message', (m: ToThread) => {
  if (m.length === PLAIN_FIELDS) return run(m);
  const lane = m[10];
  const waiting = lanes.get(lane);
  if (waiting !== undefined) return waiting.push(m);
  lanes.set(lane, [m]);
  advance(lane);
});
