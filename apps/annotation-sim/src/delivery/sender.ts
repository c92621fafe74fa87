import http from 'node:http';
import https from 'node:https';
import { Worker } from 'node:worker_threads';

/** One outgoing webhook POST, exactly as it will be written to the wire. */
export interface OutboundRequest {
  url: string;
  /** Header name → value, in the order python-requests sends them. */
  headers: [string, string][];
  body: Buffer;
  /** The body as a string of the same UTF-8 bytes, when the caller has it (the engine does: its bodies are ASCII). */
  bodyText?: string;
  /** `enable_ssl`: false skips certificate verification. */
  verifyTls: boolean;
  connectTimeoutMs: number;
  readTimeoutMs: number;
}

export type OutboundResult =
  | { kind: 'response'; status: number; body: string }
  | { kind: 'connection-error'; message: string }
  | { kind: 'timeout'; message: string };

/** Sends one webhook request; injected so tests and faults never need a global fetch. */
export type WebhookSender = (request: OutboundRequest) => Promise<OutboundResult>;

/** CVAT streams the response and keeps at most 1 MiB; a longer body is recorded as "" (not truncated). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

function pool(url: URL): string {
  const https = url.protocol === 'https:';
  const port = url.port || (https ? '443' : '80');
  return `${https ? 'HTTPSConnectionPool' : 'HTTPConnectionPool'}(host='${url.hostname}', port=${port})`;
}

/** `str(exception)` of requests' ConnectionError / ConnectTimeout / ReadTimeout, in urllib3's words. */
export function connectionErrorText(url: URL, reason: string): string {
  const conn = url.protocol === 'https:' ? 'HTTPSConnection' : 'HTTPConnection';
  return `${pool(url)}: Max retries exceeded with url: ${url.pathname}${url.search} (Caused by NewConnectionError('<urllib3.connection.${conn} object at 0x7f5e2c3b1d90>: Failed to establish a new connection: ${reason}'))`;
}
export function connectTimeoutText(url: URL, seconds: number): string {
  const conn = url.protocol === 'https:' ? 'HTTPSConnection' : 'HTTPConnection';
  return `${pool(url)}: Max retries exceeded with url: ${url.pathname}${url.search} (Caused by ConnectTimeoutError(<urllib3.connection.${conn} object at 0x7f5e2c3b1d90>, 'Connection to ${url.hostname} timed out. (connect timeout=${seconds})'))`;
}
export function readTimeoutText(url: URL, seconds: number): string {
  return `${pool(url)}: Read timed out. (read timeout=${seconds})`;
}

/**
 * Certificate failures, as OpenSSL 3 words them in Python's `ssl` (CVAT 2.73 runs Python 3.10 on
 * OpenSSL 3): node's error code → the verify message.
 */
const CERT_VERIFY: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in certificate chain',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unable to get local issuer certificate',
  UNABLE_TO_GET_ISSUER_CERT: 'unable to get issuer certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unable to verify the first certificate',
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_NOT_YET_VALID: 'certificate is not yet valid',
};

/**
 * `str(requests.exceptions.SSLError)` of a failed certificate check (a `ConnectionError`, so CVAT
 * records 502 with this text). `reason` is OpenSSL's verify message.
 */
export function sslVerifyErrorText(url: URL, reason: string): string {
  return `${pool(url)}: Max retries exceeded with url: ${url.pathname}${url.search} (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: ${reason} (_ssl.c:1007)')))`;
}

/** Python's message for a certificate that does not name the host (`match_hostname`). */
function mismatchReason(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const ip = /^[\d.]+$/.test(host) || host.includes(':');
  return `${ip ? 'IP address' : 'Hostname'} mismatch, certificate is not valid for '${host}'.`;
}

const ERRNO: Record<string, string> = {
  ECONNREFUSED: '[Errno 111] Connection refused',
  ECONNRESET: '[Errno 104] Connection reset by peer',
  ENOTFOUND: '[Errno -2] Name or service not known',
  EHOSTUNREACH: '[Errno 113] No route to host',
};

/**
 * What happened to one request on the wire, before it is put in requests' words ({@link outboundResult}).
 * Plain data: it crosses from the delivery worker thread to the API thread.
 */
export type WireOutcome =
  | { kind: 'response'; status: number; body: string }
  | { kind: 'connect-timeout' }
  | { kind: 'read-timeout' }
  | { kind: 'error'; code: string; message: string };

/** One request as the wire code takes it (plain data, so that it can be posted to the worker). */
export interface WireRequest {
  url: string;
  /** Header name, value, name, value... in the order they are sent. */
  headers: string[];
  body: Uint8Array;
  verifyTls: boolean;
  connectTimeoutMs: number;
  readTimeoutMs: number;
}

/**
 * The wire side of a delivery, as JavaScript source: a function `(http, https, maxResponseBytes)` that
 * returns `send(req: WireRequest): Promise<WireOutcome>`. node:http(s) with a connect time-out (until
 * the socket connects) and a read time-out (socket idle), like `requests.post(..., timeout=(3, 10),
 * stream=True)`.
 *
 * One TCP connection per delivery, closed by the sender once the answer is read, as `requests.post`
 * does (a Session per call): the headers say `Connection: keep-alive`, but nothing is reused. Plain
 * HTTP goes through one shared agent without keep-alive (a socket per request, destroyed when its
 * answer ends: the same wire traffic as a fresh agent per request, without building one each time);
 * HTTPS has no agent, so no TLS session is resumed (requests builds a new connection pool, and SSL
 * context, per call). A response body over `maxResponseBytes` is dropped and recorded as "".
 *
 * It is source text, not a TypeScript function, because the delivery thread runs exactly this text
 * (`Function.prototype.toString` of compiled code would carry the compiler's helpers); the calling
 * thread's sender is made from the same text ({@link wireSender}), so the two cannot drift apart.
 */
export const WIRE_SENDER_SOURCE = `function wireSender(http, https, maxResponseBytes) {
  const plainAgent = new http.Agent({ keepAlive: false });
  // Parsed target URLs: a webhook's URL is parsed once, not once per delivery.
  const urls = new Map();
  return (req) =>
    new Promise((resolve) => {
      let url = urls.get(req.url);
      if (url === undefined) {
        if (urls.size >= 1024) urls.clear();
        url = new URL(req.url);
        urls.set(req.url, url);
      }
      const isHttps = url.protocol === 'https:';
      const headers = {};
      for (let i = 0; i < req.headers.length; i += 2) headers[req.headers[i]] = req.headers[i + 1];
      let settled = false;
      const done = (outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        resolve(outcome);
      };
      const request = isHttps
        ? https.request(url, { method: 'POST', headers, agent: false, rejectUnauthorized: req.verifyTls })
        : http.request(url, { method: 'POST', headers, agent: plainAgent });
      const connectTimer = setTimeout(() => {
        done({ kind: 'connect-timeout' });
        request.destroy();
      }, req.connectTimeoutMs);
      request.on('socket', (socket) => {
        const connected = () => {
          clearTimeout(connectTimer);
          socket.setTimeout(req.readTimeoutMs, () => {
            done({ kind: 'read-timeout' });
            request.destroy();
          });
        };
        if (socket.connecting) socket.once(isHttps ? 'secureConnect' : 'connect', connected);
        else connected();
      });
      request.on('error', (err) => done({ kind: 'error', code: err.code ?? '', message: err.message }));
      request.on('response', (res) => {
        const chunks = [];
        let size = 0;
        let tooBig = false;
        const text = () => (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
        res.on('data', (chunk) => {
          if (tooBig) return;
          size += chunk.length;
          if (size > maxResponseBytes) {
            tooBig = true;
            chunks.length = 0;
            done({ kind: 'response', status: res.statusCode ?? 0, body: '' });
            res.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => done({ kind: 'response', status: res.statusCode ?? 0, body: text() }));
        res.on('error', () => done({ kind: 'response', status: res.statusCode ?? 0, body: tooBig ? '' : text() }));
      });
      request.end(req.body);
    });
}`;

type WireSenderFactory = (
  httpModule: typeof http,
  httpsModule: typeof https,
  maxResponseBytes: number,
) => (req: WireRequest) => Promise<WireOutcome>;
let compiledWireSender: WireSenderFactory | undefined;

/**
 * {@link WIRE_SENDER_SOURCE} as a function of this thread, compiled on first use (never at import: a
 * process that forbids code generation from strings can still import the module and use the thread).
 */
export function wireSender(
  httpModule: typeof http,
  httpsModule: typeof https,
  maxResponseBytes: number,
): (req: WireRequest) => Promise<WireOutcome> {
  compiledWireSender ??= new Function(`return (${WIRE_SENDER_SOURCE});`)() as WireSenderFactory;
  return compiledWireSender(httpModule, httpsModule, maxResponseBytes);
}

/** `requests`' account of a wire outcome: what the delivery row and the outbound journal record. */
export function outboundResult(req: OutboundRequest, outcome: WireOutcome): OutboundResult {
  switch (outcome.kind) {
    case 'response':
      return outcome;
    case 'connect-timeout':
      return { kind: 'timeout', message: connectTimeoutText(new URL(req.url), req.connectTimeoutMs / 1000) };
    case 'read-timeout':
      return { kind: 'timeout', message: readTimeoutText(new URL(req.url), req.readTimeoutMs / 1000) };
    default: {
      const url = new URL(req.url);
      const code = outcome.code;
      const verify =
        CERT_VERIFY[code] ?? (code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? mismatchReason(url) : undefined);
      if (url.protocol === 'https:' && verify !== undefined)
        return { kind: 'connection-error', message: sslVerifyErrorText(url, verify) };
      const reason = ERRNO[code] ?? `${code || 'error'}: ${outcome.message}`;
      return { kind: 'connection-error', message: connectionErrorText(url, reason) };
    }
  }
}

function wireRequestOf(req: OutboundRequest): WireRequest {
  const headers: string[] = [];
  for (const [k, v] of req.headers) headers.push(k, v);
  return {
    url: req.url,
    headers,
    body: req.body,
    verifyTls: req.verifyTls,
    connectTimeoutMs: req.connectTimeoutMs,
    readTimeoutMs: req.readTimeoutMs,
  };
}

/**
 * The real sender on the calling thread: {@link wireSender} put in requests' words. The simulator's
 * default is {@link createWorkerSender}, which runs the same wire code on a thread of its own.
 */
export function createHttpSender(): WebhookSender {
  const send = wireSender(http, https, MAX_RESPONSE_BYTES);
  return async (req) => outboundResult(req, await send(wireRequestOf(req)));
}

/** The delivery thread's whole program: {@link WIRE_SENDER_SOURCE} and a message loop around it. */
const WORKER_SOURCE = `'use strict';
const load = (name) => process.getBuiltinModule(name);
const { parentPort } = load('node:worker_threads');
const send = (${WIRE_SENDER_SOURCE})(load('node:http'), load('node:https'), ${MAX_RESPONSE_BYTES});
// [id, url, headers joined by LF, body text, its encoding, verifyTls, connectTimeoutMs, readTimeoutMs]
parentPort.on('message', (m) => {
  const request = {
    url: m[1],
    headers: m[2].split('\\n'),
    body: Buffer.from(m[3], m[4]),
    verifyTls: m[5],
    connectTimeoutMs: m[6],
    readTimeoutMs: m[7],
  };
  // A request node:http refuses (a header it will not write, a URL it cannot parse) rejects, as it does
  // on the calling thread; the thread answers with the message and goes on.
  send(request).then(
    (outcome) => parentPort.postMessage([m[0], outcome]),
    (err) => parentPort.postMessage([m[0], null, String(err && err.message)]),
  );
});
`;

/**
 * What goes to the delivery thread: one flat array of strings, numbers and booleans (a structured clone
 * of this costs a third of one of a request object with a Buffer, whose whole 8 KiB pool slab is copied).
 * Header names and values never hold a line feed (node:http refuses them), so LF joins them.
 */
type ThreadMessage = [number, string, string, string, 'utf8' | 'latin1', boolean, number, number];

function threadMessage(id: number, req: OutboundRequest): ThreadMessage {
  let headers = '';
  for (const [k, v] of req.headers) headers += headers === '' ? `${k}\n${v}` : `\n${k}\n${v}`;
  const [text, encoding] =
    req.bodyText !== undefined
      ? [req.bodyText, 'utf8' as const]
      : [req.body.toString('latin1'), 'latin1' as const];
  return [id, req.url, headers, text, encoding, req.verifyTls, req.connectTimeoutMs, req.readTimeoutMs];
}

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

interface DeliveryThread {
  send(req: OutboundRequest): Promise<WireOutcome>;
}

/**
 * How long the delivery thread outlives its last delivery. A process that imports this module more than
 * once (test runners that isolate each test file do) would otherwise keep one idle thread per import.
 */
export const DELIVERY_THREAD_IDLE_MS = 2_000;

/** The one delivery thread of this module instance, started on first use (never at import). */
let thread: DeliveryThread | undefined;

function startDeliveryThread(): DeliveryThread {
  // Of the process's execArgv only --cpu-prof*: the thread runs plain JavaScript, whatever loaders or
  // module flags the process has, and `node --cpu-prof` profiles it too.
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    execArgv: profilingArgs(process.execArgv),
    name: 'annotation-sim deliveries',
  });
  // Only requests in flight keep the process alive (as their sockets do on the calling thread).
  worker.unref();
  const pending = new Map<
    number,
    { resolve: (outcome: WireOutcome) => void; reject: (err: Error) => void }
  >();
  let next = 0;
  /** Ends the thread after a spell with nothing in flight (unreferenced: it never holds the process). */
  let idleTimer: NodeJS.Timeout | undefined;
  worker.on('message', ([id, outcome, refused]: [number, WireOutcome | null, string?]) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) {
      worker.unref();
      idleTimer = setTimeout(retire, DELIVERY_THREAD_IDLE_MS).unref();
    }
    if (outcome) waiter?.resolve(outcome);
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
    for (const waiter of waiting) waiter.resolve({ kind: 'error', code: '', message });
  };
  worker.on('error', (err) => fail(`delivery thread failed: ${err.message}`));
  worker.on('exit', (code) => fail(`delivery thread exited (${code})`));
  const self: DeliveryThread = {
    send(req) {
      return new Promise<WireOutcome>((resolve, reject) => {
        const id = ++next;
        if (pending.size === 0) {
          clearTimeout(idleTimer);
          worker.ref();
        }
        pending.set(id, { resolve, reject });
        worker.postMessage(threadMessage(id, req));
      });
    },
  };
  return self;
}

/**
 * The simulator's default sender: the same wire code as {@link createHttpSender}, run on a worker
 * thread shared by every simulator of the process, as CVAT sends webhooks from a worker process of its
 * own and not from the API server. The API thread prepares each request (payload, signature, headers)
 * and records the outcome; the thread only opens the connection, writes, reads and closes. It is
 * started on the first delivery, keeps the process alive only while requests are in flight, and ends
 * {@link DELIVERY_THREAD_IDLE_MS} after the last one (the next delivery starts it again).
 */
export function createWorkerSender(): WebhookSender {
  let onThisThread: WebhookSender | undefined;
  return async (req) => {
    if (onThisThread) return onThisThread(req);
    try {
      thread ??= startDeliveryThread();
    } catch (err) {
      // No thread to be had (a runtime without worker_threads, resource limits): send from this one.
      console.warn(
        `annotation-sim: no delivery thread (${(err as Error).message}); sending from the API thread`,
      );
      onThisThread = createHttpSender();
      return onThisThread(req);
    }
    return outboundResult(req, await thread.send(req));
  };
}
