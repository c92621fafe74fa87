// What the API thread and the delivery thread say to each other. Both sides import this module: the API
// thread from the sources, the thread from its bundle (worker.generated.ts), so the two cannot disagree.
import type { OutboundRequest } from '../outbound-request';

/** CVAT streams the response and keeps at most 1 MiB; a longer body is recorded as "" (not truncated). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * One request as the wire code takes it: an {@link OutboundRequest} as plain data, so that it can cross to
 * the delivery thread (header name, value, name, value... in the order they are sent; the body's bytes).
 */
export type WireRequest = Pick<
  OutboundRequest,
  'url' | 'verifyTls' | 'connectTimeoutMs' | 'readTimeoutMs' | 'deadlineMs' | 'addresses'
> & { headers: string[]; body: Uint8Array };

/**
 * What happened to one request on the wire, before it is put in requests' words (`outboundResult` in
 * ../outbound.ts). Plain data: it crosses from the delivery thread to the API thread.
 *
 * `aborted` is a connection that was open and then failed before a response could be read, as
 * http.client reports it: the peer closed without a word (`remote-disconnected`), reset it
 * (`reset`), or answered with something that is not an HTTP/1.x status line (`bad-status-line`, with
 * that line; `unknown-protocol`, with the version) or with a line over 65,536 bytes (`line-too-long`,
 * with which line).
 */
export type WireOutcome =
  | { kind: 'response'; status: number; body: string }
  | { kind: 'connect-timeout' }
  | { kind: 'read-timeout' }
  /** The request's overall deadline passed before the answer was complete; the connection was cut. */
  | { kind: 'deadline' }
  | {
      kind: 'aborted';
      cause: 'remote-disconnected' | 'reset' | 'bad-status-line' | 'unknown-protocol' | 'line-too-long';
      detail: string;
    }
  | { kind: 'error'; code: string; message: string };

/**
 * A request for the delivery thread: one flat array of strings, numbers and booleans (a structured clone
 * of this costs a third of one of a request object with a Buffer, whose whole 8 KiB pool slab is copied):
 * id, URL, headers joined by LF, body text, its encoding, verifyTls, connect and read time-outs and the
 * overall deadline (ms; 0 for none), and the addresses joined by commas ('' for none). Header names and
 * values never hold a line feed (node:http refuses them) and IP addresses never hold a comma.
 */
type PlainMessage = [
  id: number,
  url: string,
  headers: string,
  body: string,
  encoding: 'utf8' | 'latin1',
  verifyTls: boolean,
  connectTimeoutMs: number,
  readTimeoutMs: number,
  deadlineMs: number,
  addresses: string,
];

/** How many fields a request outside any lane has; a lane request has three more (lane, slot, generation). */
export const PLAIN_FIELDS = 10;

/**
 * A request queued in a lane: the thread starts it when the lane's request before it ends, unless the
 * generation counter at `slot` has moved from `generation`, the value it was prepared at.
 */
export type LaneMessage = [...PlainMessage, lane: string, slot: number, generation: number];

/** API thread → delivery thread. */
export type ToThread = PlainMessage | LaneMessage;

/**
 * Delivery thread → API thread, for the request `id`: its outcome and the thread's own timing of it (ms);
 * the message of a request node:http refused before sending anything; or `stale`, a lane request that
 * went back unsent because its generation moved.
 */
export type FromThread =
  | [id: number, outcome: WireOutcome, refused: undefined, durationMs: number]
  | [id: number, outcome: null, refused: string]
  | [id: number, outcome: 'stale'];

/** What the thread is started with. */
export interface ThreadData {
  /** The generation counters (an Int32Array's buffer), one per engine that sends ahead. */
  generations: SharedArrayBuffer;
}

/** Where a lane request is queued, and the generation it was prepared at. */
export interface LaneStamp {
  /** Unique in the process: the engine's and the webhook's. */
  key: string;
  slot: number;
  generation: number;
}

/** The message of a request, on the API thread. */
export function encodeRequest(id: number, req: OutboundRequest, lane?: LaneStamp): ToThread {
  let headers = '';
  for (const [k, v] of req.headers) headers += headers === '' ? `${k}\n${v}` : `\n${k}\n${v}`;
  const [text, encoding] =
    req.bodyText !== undefined
      ? [req.bodyText, 'utf8' as const]
      : [req.body.toString('latin1'), 'latin1' as const];
  const m: PlainMessage = [
    id,
    req.url,
    headers,
    text,
    encoding,
    req.verifyTls,
    req.connectTimeoutMs,
    req.readTimeoutMs,
    req.deadlineMs ?? 0,
    req.addresses?.join(',') ?? '',
  ];
  return lane ? [...m, lane.key, lane.slot, lane.generation] : m;
}

/** The request of a message, on the delivery thread. */
export function decodeRequest(m: ToThread): WireRequest {
  return {
    url: m[1],
    headers: m[2].split('\n'),
    body: Buffer.from(m[3], m[4]),
    verifyTls: m[5],
    connectTimeoutMs: m[6],
    readTimeoutMs: m[7],
    deadlineMs: m[8] === 0 ? undefined : m[8],
    addresses: m[9] === '' ? undefined : m[9].split(','),
  };
}

/** The wire code's form of a request on the calling thread (no message in between). */
export function wireRequestOf(req: OutboundRequest): WireRequest {
  const headers: string[] = [];
  for (const [k, v] of req.headers) headers.push(k, v);
  return {
    url: req.url,
    headers,
    body: req.body,
    verifyTls: req.verifyTls,
    connectTimeoutMs: req.connectTimeoutMs,
    readTimeoutMs: req.readTimeoutMs,
    deadlineMs: req.deadlineMs,
    addresses: req.addresses,
  };
}
