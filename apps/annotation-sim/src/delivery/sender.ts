import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';

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
  /**
   * The addresses the egress policy checked for the URL's host name (src/delivery/egress.ts): the
   * connection goes to these, in order, and the name is not resolved again. Absent for an IP address
   * host (nothing to resolve).
   */
  addresses?: string[];
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
 * `str(requests.exceptions.ConnectionError)` of a connection that was open and failed before a
 * response could be read: urllib3's `ProtocolError('Connection aborted.', <http.client's error>)`.
 */
export function connectionAbortedText(
  cause: 'remote-disconnected' | 'reset' | 'bad-status-line' | 'unknown-protocol' | 'line-too-long',
  detail: string,
): string {
  const inner =
    cause === 'remote-disconnected'
      ? "RemoteDisconnected('Remote end closed connection without response')"
      : cause === 'reset'
        ? "ConnectionResetError(104, 'Connection reset by peer')"
        : cause === 'bad-status-line'
          ? `BadStatusLine(${pythonStrRepr(detail === '' ? "''" : detail)})`
          : cause === 'line-too-long'
            ? `LineTooLong(${pythonStrRepr(`got more than 65536 bytes when reading ${detail}`)})`
            : `UnknownProtocol(${pythonStrRepr(detail)})`;
  return `('Connection aborted.', ${inner})`;
}

/** Python's `repr()` of a str whose characters are all below U+0100 (text read as ISO-8859-1). */
export function pythonStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === '\\' || ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    // Not printable in Python: C0 and C1 controls, DEL, NO-BREAK SPACE and SOFT HYPHEN.
    else if (c < 0x20 || (c >= 0x7f && c <= 0xa0) || c === 0xad)
      out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
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
  EAI_AGAIN: '[Errno -3] Temporary failure in name resolution',
  EHOSTUNREACH: '[Errno 113] No route to host',
};

/**
 * What happened to one request on the wire, before it is put in requests' words ({@link outboundResult}).
 * Plain data: it crosses from the delivery worker thread to the API thread.
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
  | {
      kind: 'aborted';
      cause: 'remote-disconnected' | 'reset' | 'bad-status-line' | 'unknown-protocol';
      detail: string;
    }
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
  /** Where to connect instead of resolving the URL's host name ({@link OutboundRequest.addresses}). */
  addresses?: string[];
}

/**
 * The wire side of a delivery, as JavaScript source: a function `(http, net, tls, zlib,
 * maxResponseBytes)` that returns `send(req: WireRequest): Promise<WireOutcome>`, with a connect
 * time-out (until the socket, or its TLS session, is up) and a read time-out (socket idle), like
 * `requests.post(..., timeout=(3, 10), stream=True)`.
 *
 * One TCP connection per delivery, closed by the sender once the answer is read, as `requests.post`
 * does (a Session per call): the headers say `Connection: keep-alive`, but nothing is reused. HTTPS is
 * the same over `tls.connect`, with no session cache (requests builds a new SSL context per call).
 *
 * The request is written the way http.client writes it: the request line, `Host` first unless the
 * headers have one (`putrequest`), then the headers in their order, then the body (one `writev`);
 * `TCP_NODELAY` as urllib3 sets it. The answer is read as http.client reads it: `100 Continue` heads
 * skipped, other 1xx, 204 and 304 without a body, `Transfer-Encoding: chunked`, `Content-Length`, else
 * until the peer closes; the body decoded when `Content-Encoding` is gzip or deflate, as urllib3 does
 * with `decode_content=True`. (node:http's client did the same job with two to three times the CPU per
 * delivery: issue 8's fan-out.)
 *
 * A response body over `maxResponseBytes` is dropped and recorded as "". Header names and values are
 * checked as node:http checks them, and a bad one rejects before anything is sent. With `addresses`, a
 * host name is never resolved: the socket's lookup answers with those addresses (the ones the egress
 * policy checked), while TLS still sends and verifies the name.
 *
 * It is source text, not a TypeScript function, because the delivery thread runs exactly this text
 * (`Function.prototype.toString` of compiled code would carry the compiler's helpers); the calling
 * thread's sender is made from the same text ({@link wireSender}), so the two cannot drift apart.
 */
export const WIRE_SENDER_SOURCE = `function wireSender(http, net, tls, zlib, maxResponseBytes) {
  const CR = String.fromCharCode(13);
  const LF = String.fromCharCode(10);
  const CRLF = CR + LF;
  const DIGITS = /^[0-9]+$/;
  // Parsed target URLs: a webhook's URL is parsed once, not once per delivery.
  const urls = new Map();
  const parse = (raw) => {
    let url = urls.get(raw);
    if (url === undefined) {
      if (urls.size >= 1024) urls.clear();
      url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new TypeError('Protocol "' + url.protocol + '" not supported. Expected "http:"');
      urls.set(raw, url);
    }
    return url;
  };
  /** Checks every header as node:http would, and says whether one of them is Host. */
  const checkHeaders = (headers) => {
    let host = false;
    for (let i = 0; i < headers.length; i += 2) {
      http.validateHeaderName(headers[i]);
      http.validateHeaderValue(headers[i], headers[i + 1]);
      if (headers[i].length === 4 && headers[i].toLowerCase() === 'host') host = true;
    }
    return host;
  };
  /** urllib3's decode_content: gzip and deflate (zlib-wrapped or raw); other codings stay as they are. */
  const decode = (body, coding) => {
    const opts = { maxOutputLength: maxResponseBytes + 1 };
    try {
      if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync(body, opts);
      if (coding === 'deflate') {
        try {
          return zlib.inflateSync(body, opts);
        } catch (err) {
          if (err && err.code === 'ERR_BUFFER_TOO_LARGE') throw err;
          return zlib.inflateRawSync(body, opts);
        }
      }
    } catch (err) {
      if (err && err.code === 'ERR_BUFFER_TOO_LARGE') return null;
      return body;
    }
    return body;
  };

  /**
   * Reads one HTTP/1.x response from the bytes given to push(), as http.client does; calls
   * finish(outcome) once, when the response is complete or cannot be. end() is the peer's close.
   */
  function responseReader(finish) {
    let head = null; // bytes of the head not yet complete
    let status = 0;
    let mode = ''; // 'length' | 'chunked' | 'close' | 'none'
    let remaining = 0; // length mode: body bytes still due; chunked: bytes of the current chunk
    let chunkState = 'size'; // chunked: 'size' | 'data' | 'data-end' | 'trailer'
    let line = null; // chunked: the partial size or trailer line
    let coding = '';
    const chunks = [];
    let size = 0;
    let tooBig = false;
    let done = false;
    const complete = () => {
      if (done) return;
      done = true;
      if (tooBig) return finish({ kind: 'response', status, body: '' });
      let body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      if (coding !== '' && coding !== 'identity' && body.length > 0) body = decode(body, coding);
      if (body === null || body.length > maxResponseBytes) return finish({ kind: 'response', status, body: '' });
      finish({ kind: 'response', status, body: body.toString('utf8') });
    };
    const fail = (outcome) => {
      if (done) return;
      done = true;
      finish(outcome);
    };
    const keep = (bytes) => {
      if (tooBig || bytes.length === 0) return;
      size += bytes.length;
      if (size > (coding === '' || coding === 'identity' ? maxResponseBytes : 2 * maxResponseBytes + 64)) {
        tooBig = true;
        chunks.length = 0;
        return complete();
      }
      chunks.push(bytes);
    };
    /** The end of the head in buf (the index after its blank line), or -1. */
    const headEnd = (buf) => {
      for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) {
        if (buf[i + 1] === 10) return i + 2;
        if (buf[i + 1] === 13 && buf[i + 2] === 10) return i + 3;
      }
      return -1;
    };
    /** Takes a head (latin1 text as read, its blank line included); false when it failed the response. */
    const takeHead = (text) => {
      const nl = text.indexOf(LF);
      // The status line as http.client's readline returns it (line end included), for BadStatusLine.
      const statusLine = nl === -1 ? text : text.slice(0, nl + 1);
      const lines = text.split(LF).map((l) => (l.endsWith(CR) ? l.slice(0, -1) : l));
      const first = lines[0];
      const parts = first.trim().split(' ').filter((x) => x !== '');
      const version = parts[0] || '';
      const code = parts[1] || '';
      if (!version.startsWith('HTTP/')) return fail({ kind: 'aborted', cause: 'bad-status-line', detail: statusLine }), false;
      const n = code.length === 3 && DIGITS.test(code) ? Number(code) : NaN;
      if (!(n >= 100 && n <= 999))
        return fail({ kind: 'aborted', cause: 'bad-status-line', detail: statusLine }), false;
      if (version !== 'HTTP/1.0' && version !== 'HTTP/0.9' && !version.startsWith('HTTP/1.'))
        return fail({ kind: 'aborted', cause: 'unknown-protocol', detail: version }), false;
      if (n === 100) return true; // skipped, as http.client skips it; the real head follows
      status = n;
      let length = -1;
      let chunked = false;
      for (let i = 1; i < lines.length; i++) {
        const l = lines[i];
        const colon = l.indexOf(':');
        if (colon <= 0) continue;
        const name = l.slice(0, colon).trim().toLowerCase();
        const value = l.slice(colon + 1).trim();
        if (name === 'transfer-encoding') chunked = value.toLowerCase() === 'chunked';
        else if (name === 'content-length') length = DIGITS.test(value) ? Number(value) : -1;
        else if (name === 'content-encoding') coding = value.toLowerCase();
      }
      if (n === 204 || n === 304 || (n >= 100 && n < 200)) mode = 'none';
      else if (chunked) mode = 'chunked';
      else if (length >= 0) {
        mode = 'length';
        remaining = length;
      } else mode = 'close';
      return true;
    };
    /** Feeds body bytes to the current mode. */
    const body = (buf) => {
      if (mode === 'length') {
        const take = Math.min(remaining, buf.length);
        keep(take === buf.length ? buf : buf.subarray(0, take));
        remaining -= take;
        if (remaining === 0) complete();
      } else if (mode === 'close') keep(buf);
      else if (mode === 'chunked') chunkedBody(buf);
    };
    const chunkedBody = (buf) => {
      let i = 0;
      while (i < buf.length && !done) {
        if (chunkState === 'data') {
          const take = Math.min(remaining, buf.length - i);
          keep(buf.subarray(i, i + take));
          remaining -= take;
          i += take;
          if (remaining === 0) chunkState = 'data-end';
          continue;
        }
        const nl = buf.indexOf(10, i);
        const piece = buf.subarray(i, nl === -1 ? buf.length : nl + 1);
        line = line === null ? piece : Buffer.concat([line, piece]);
        i += piece.length;
        if (nl === -1) {
          if (line.length > 65536) return complete();
          return;
        }
        const text = line.toString('latin1').trim();
        line = null;
        if (chunkState === 'data-end') chunkState = 'size';
        else if (chunkState === 'size') {
          const hex = text.split(';')[0].trim();
          const n = /^[0-9a-fA-F]+$/.test(hex) ? Number.parseInt(hex, 16) : NaN;
          if (Number.isNaN(n)) return complete();
          if (n === 0) chunkState = 'trailer';
          else {
            remaining = n;
            chunkState = 'data';
          }
        } else if (chunkState === 'trailer' && text === '') return complete();
      }
    };
    return {
      push(buf) {
        if (done) return;
        if (mode !== '') return body(buf);
        head = head === null ? buf : Buffer.concat([head, buf]);
        for (;;) {
          const end = headEnd(head);
          if (end === -1) {
            if (head.length > 65536) {
              // http.client's _MAXLINE: a status or header line longer than 65,536 bytes.
              const nl = head.indexOf(10);
              fail({ kind: 'aborted', cause: 'line-too-long', detail: nl === -1 || nl > 65536 ? 'status line' : 'header line' });
            }
            return;
          }
          const text = head.toString('latin1', 0, end);
          const rest = head.subarray(end);
          if (!takeHead(text)) return;
          head = rest;
          if (mode === '') {
            if (head.length === 0) {
              head = null;
              return;
            }
            continue; // a 100 Continue head: the next head follows
          }
          if (mode === 'none') return complete();
          if (mode === 'length' && remaining === 0) return complete();
          if (rest.length > 0) body(rest);
          return;
        }
      },
      /** The peer closed (or the socket ended): what has been read is all there is. */
      end() {
        if (done) return;
        if (mode === '') {
          if (head === null || head.length === 0)
            return fail({ kind: 'aborted', cause: 'remote-disconnected', detail: '' });
          // http.client reads the head up to the end of the stream.
          const text = head.toString('latin1');
          head = null;
          if (!takeHead(text)) return;
          if (mode === '') return fail({ kind: 'aborted', cause: 'remote-disconnected', detail: '' });
        }
        complete();
      },
      /** Whether a head has been read (the response has begun). */
      started: () => mode !== '',
    };
  }

  /** A socket lookup that answers with the given addresses only (undefined: the system's lookup). */
  function pinnedLookup(addresses) {
    if (!addresses || addresses.length === 0) return undefined;
    return (_name, options, callback) => {
      if (options && options.all)
        return callback(null, addresses.map((address) => ({ address, family: net.isIP(address) })));
      callback(null, addresses[0], net.isIP(addresses[0]));
    };
  }

  function post(url, req, resolve) {
    const hasHost = checkHeaders(req.headers);
    let text = 'POST ' + (url.pathname || '/') + url.search + ' HTTP/1.1' + CRLF;
    if (!hasHost) text += 'Host: ' + url.host + CRLF;
    for (let i = 0; i < req.headers.length; i += 2) text += req.headers[i] + ': ' + req.headers[i + 1] + CRLF;
    text += CRLF;
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const secure = url.protocol === 'https:';
    const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
    const lookup = pinnedLookup(req.addresses);
    // TLS without a session cache (requests builds a new SSL context per call), SNI for host names only.
    const socket = secure
      ? tls.connect({
          host: hostname,
          port,
          lookup,
          servername: net.isIP(hostname) === 0 ? hostname : undefined,
          rejectUnauthorized: req.verifyTls,
        })
      : net.connect({ host: hostname, port, lookup });
    let settled = false;
    let connected = false;
    const done = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      socket.destroy();
      resolve(outcome);
    };
    const reader = responseReader(done);
    const connectTimer = setTimeout(() => done({ kind: 'connect-timeout' }), req.connectTimeoutMs);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      connected = true;
      clearTimeout(connectTimer);
      socket.setNoDelay(true);
      socket.setTimeout(req.readTimeoutMs, () => done({ kind: 'read-timeout' }));
      socket.cork();
      socket.write(text, 'latin1');
      if (req.body.length > 0) socket.write(req.body);
      socket.uncork();
    });
    socket.on('data', (buf) => reader.push(buf));
    socket.on('end', () => reader.end());
    socket.on('close', () => reader.end());
    socket.on('error', (err) => {
      const code = (err && err.code) || '';
      if (!connected) return done({ kind: 'error', code, message: err.message });
      // A receiver that answers without reading the whole request: the answer still counts (urllib3
      // reads the response after a broken pipe).
      if (code === 'EPIPE') return;
      if (reader.started()) return reader.end();
      if (code === 'ECONNRESET') return done({ kind: 'aborted', cause: 'reset', detail: '' });
      done({ kind: 'error', code, message: err.message });
    });
  }

  return (req) =>
    new Promise((resolve) => {
      post(parse(req.url), req, resolve);
    });
}`;

type WireSenderFactory = (
  httpModule: typeof http,
  netModule: typeof net,
  tlsModule: typeof tls,
  zlibModule: typeof zlib,
  maxResponseBytes: number,
) => (req: WireRequest) => Promise<WireOutcome>;
let compiledWireSender: WireSenderFactory | undefined;

/**
 * {@link WIRE_SENDER_SOURCE} as a function of this thread, compiled on first use (never at import: a
 * process that forbids code generation from strings can still import the module and use the thread).
 */
export function wireSender(maxResponseBytes: number): (req: WireRequest) => Promise<WireOutcome> {
  compiledWireSender ??= new Function(`return (${WIRE_SENDER_SOURCE});`)() as WireSenderFactory;
  return compiledWireSender(http, net, tls, zlib, maxResponseBytes);
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
    case 'aborted':
      return { kind: 'connection-error', message: connectionAbortedText(outcome.cause, outcome.detail) };
    default:
      return failedConnectionResult(new URL(req.url), outcome.code, outcome.message);
  }
}

/**
 * requests' account of a connection that could not be made: a certificate that failed verification, or
 * a socket or lookup error (node's error code and message; `ENOTFOUND` reads as getaddrinfo's
 * `[Errno -2] Name or service not known`).
 */
export function failedConnectionResult(url: URL, code: string, message: string): OutboundResult {
  const verify =
    CERT_VERIFY[code] ?? (code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? mismatchReason(url) : undefined);
  if (url.protocol === 'https:' && verify !== undefined)
    return { kind: 'connection-error', message: sslVerifyErrorText(url, verify) };
  const reason = ERRNO[code] ?? `${code || 'error'}: ${message}`;
  return { kind: 'connection-error', message: connectionErrorText(url, reason) };
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
    addresses: req.addresses,
  };
}

/**
 * The real sender on the calling thread: {@link wireSender} put in requests' words. The simulator's
 * default is {@link createWorkerSender}, which runs the same wire code on a thread of its own.
 */
export function createHttpSender(): WebhookSender {
  const send = wireSender(MAX_RESPONSE_BYTES);
  return async (req) => outboundResult(req, await send(wireRequestOf(req)));
}

/** The delivery thread's whole program: {@link WIRE_SENDER_SOURCE} and a message loop around it. */
const WORKER_SOURCE = `'use strict';
const load = (name) => process.getBuiltinModule(name);
const { parentPort, workerData } = load('node:worker_threads');
const send = (${WIRE_SENDER_SOURCE})(load('node:http'), load('node:net'), load('node:tls'), load('node:zlib'), ${MAX_RESPONSE_BYTES});
// One counter per delivery engine, bumped by the API thread whenever what it prepared may no longer hold.
const generations = new Int32Array(workerData.generations);
// Lane (an engine's webhook) -> its requests waiting behind the one in flight (a present key: one is).
const lanes = new Map();
// [id, url, headers joined by LF, body text, its encoding, verifyTls, connectTimeoutMs, readTimeoutMs,
// addresses joined by commas ('' for none)] and, for a request queued in a lane, [..., lane, generation
// slot, the generation it was prepared at].
function run(m) {
  const request = {
    url: m[1],
    headers: m[2].split('\\n'),
    body: Buffer.from(m[3], m[4]),
    verifyTls: m[5],
    connectTimeoutMs: m[6],
    readTimeoutMs: m[7],
    addresses: m[8] === '' ? undefined : m[8].split(','),
  };
  const started = performance.now();
  // A request node:http refuses (a header it will not write, a URL it cannot parse) rejects, as it does
  // on the calling thread; the thread answers with the message and goes on.
  send(request).then(
    (outcome) => {
      parentPort.postMessage([m[0], outcome, undefined, performance.now() - started]);
      if (m.length > 9) advance(m[9]);
    },
    (err) => {
      parentPort.postMessage([m[0], null, String(err && err.message)]);
      if (m.length > 9) advance(m[9]);
    },
  );
}
// Starts the lane's next request, unless the API thread has bumped its generation since it was
// prepared: then that one and every one behind it (prepared no later) go back unsent, in order.
function advance(lane) {
  const waiting = lanes.get(lane);
  let m = waiting.shift();
  while (m !== undefined && Atomics.load(generations, m[10]) !== m[11]) {
    parentPort.postMessage([m[0], 'stale']);
    m = waiting.shift();
  }
  if (m === undefined) lanes.delete(lane);
  else run(m);
}
parentPort.on('message', (m) => {
  if (m.length === 9) return run(m);
  const waiting = lanes.get(m[9]);
  if (waiting !== undefined) return waiting.push(m);
  lanes.set(m[9], [m]);
  advance(m[9]);
});
`;

/**
 * What goes to the delivery thread: one flat array of strings, numbers and booleans (a structured clone
 * of this costs a third of one of a request object with a Buffer, whose whole 8 KiB pool slab is copied).
 * Header names and values never hold a line feed (node:http refuses them), so LF joins them; IP
 * addresses never hold a comma, so a comma joins them.
 */
type ThreadMessage =
  | [number, string, string, string, 'utf8' | 'latin1', boolean, number, number, string]
  | [
      number,
      string,
      string,
      string,
      'utf8' | 'latin1',
      boolean,
      number,
      number,
      string,
      string,
      number,
      number,
    ];

function threadMessage(id: number, req: OutboundRequest, lane?: Lane): ThreadMessage {
  let headers = '';
  for (const [k, v] of req.headers) headers += headers === '' ? `${k}\n${v}` : `\n${k}\n${v}`;
  const [text, encoding] =
    req.bodyText !== undefined
      ? [req.bodyText, 'utf8' as const]
      : [req.body.toString('latin1'), 'latin1' as const];
  const m: ThreadMessage = [
    id,
    req.url,
    headers,
    text,
    encoding,
    req.verifyTls,
    req.connectTimeoutMs,
    req.readTimeoutMs,
    req.addresses?.join(',') ?? '',
  ];
  return lane ? [...m, lane.key, lane.slot.index, lane.stamp] : m;
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

/** What a request sent in a lane comes back as: its outcome and the thread's own timing of it, or unsent. */
type LaneAnswer = { outcome: WireOutcome; durationMs: number } | 'stale';

interface DeliveryThread {
  send(req: OutboundRequest): Promise<WireOutcome>;
  sendInLane(req: OutboundRequest, lane: Lane): Promise<LaneAnswer>;
}

/**
 * How long the delivery thread outlives its last delivery. A process that imports this module more than
 * once (test runners that isolate each test file do) would otherwise keep one idle thread per import.
 */
export const DELIVERY_THREAD_IDLE_MS = 2_000;

/** The one delivery thread of this module instance, started on first use (never at import). */
let thread: DeliveryThread | undefined;

/**
 * Generation counters shared with the delivery thread, one per delivery engine that claims one (an engine
 * without a slot sends everything the plain way). A counter only goes up, so a slot freed by a disposed
 * engine can be claimed by another: what the old one left queued was prepared at a lower generation.
 */
const GENERATION_SLOTS = 4096;
const generations = new Int32Array(new SharedArrayBuffer(GENERATION_SLOTS * 4));
const freeSlots: number[] = [];
let slotsUsed = 0;

/** One engine's generation counter. */
export interface GenerationSlot {
  readonly index: number;
  current(): number;
  /** Every request queued in a lane at an earlier generation goes back unsent. */
  bump(): void;
  release(): void;
}

function claimSlot(): GenerationSlot | undefined {
  const index = freeSlots.pop() ?? (slotsUsed < GENERATION_SLOTS ? slotsUsed++ : undefined);
  if (index === undefined) return undefined;
  let released = false;
  return {
    index,
    current: () => Atomics.load(generations, index),
    bump: () => {
      Atomics.add(generations, index, 1);
    },
    release() {
      if (released) return;
      released = true;
      Atomics.add(generations, index, 1);
      freeSlots.push(index);
    },
  };
}

/** A webhook's queue on the delivery thread, and the generation its request was prepared at. */
export interface Lane {
  /** Unique in the process: the engine's and the webhook's. */
  key: string;
  slot: GenerationSlot;
  stamp: number;
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
  claimSlot(): GenerationSlot | undefined;
  /**
   * Resolves with requests' account of the outcome and the thread's timing of the request (ms), or with
   * 'stale' when the generation moved before it could start (nothing was sent).
   */
  send(req: OutboundRequest, lane: Lane): Promise<{ result: OutboundResult; durationMs: number } | 'stale'>;
}

/** The {@link LaneSender} of a sender, if it has one. */
export function laneSenderOf(sender: WebhookSender): LaneSender | undefined {
  return (sender as WebhookSender & { lanes?: LaneSender }).lanes;
}

function startDeliveryThread(): DeliveryThread {
  // Of the process's execArgv only --cpu-prof*: the thread runs plain JavaScript, whatever loaders or
  // module flags the process has, and `node --cpu-prof` profiles it too.
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    execArgv: profilingArgs(process.execArgv),
    name: 'annotation-sim deliveries',
    workerData: { generations: generations.buffer },
  });
  // Only requests in flight keep the process alive (as their sockets do on the calling thread).
  worker.unref();
  const pending = new Map<number, { resolve: (answer: LaneAnswer) => void; reject: (err: Error) => void }>();
  let next = 0;
  /** Ends the thread after a spell with nothing in flight (unreferenced: it never holds the process). */
  let idleTimer: NodeJS.Timeout | undefined;
  worker.on(
    'message',
    ([id, outcome, refused, durationMs]: [number, WireOutcome | 'stale' | null, string?, number?]) => {
      const waiter = pending.get(id);
      pending.delete(id);
      if (pending.size === 0) {
        worker.unref();
        idleTimer = setTimeout(retire, DELIVERY_THREAD_IDLE_MS).unref();
      }
      if (outcome === 'stale') waiter?.resolve('stale');
      else if (outcome) waiter?.resolve({ outcome, durationMs: durationMs ?? 0 });
      else waiter?.reject(new Error(refused));
    },
  );
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
  const post = (req: OutboundRequest, lane?: Lane) =>
    new Promise<LaneAnswer>((resolve, reject) => {
      const id = ++next;
      if (pending.size === 0) {
        clearTimeout(idleTimer);
        worker.ref();
      }
      pending.set(id, { resolve, reject });
      worker.postMessage(threadMessage(id, req, lane));
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

/**
 * The simulator's default sender: the same wire code as {@link createHttpSender}, run on a worker
 * thread shared by every simulator of the process, as CVAT sends webhooks from a worker process of its
 * own and not from the API server. The API thread prepares each request (payload, signature, headers)
 * and records the outcome; the thread only opens the connection, writes, reads and closes. It is
 * started on the first delivery, keeps the process alive only while requests are in flight, and ends
 * {@link DELIVERY_THREAD_IDLE_MS} after the last one (the next delivery starts it again). Its `lanes`
 * ({@link LaneSender}) let the engine queue a webhook's deliveries on the thread ahead of their turn.
 */
export function createWorkerSender(): WebhookSender {
  let onThisThread: WebhookSender | undefined;
  const deliveryThread = (): DeliveryThread | undefined => {
    if (onThisThread) return undefined;
    try {
      thread ??= startDeliveryThread();
      return thread;
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
    const t = deliveryThread();
    if (!t) return (onThisThread as WebhookSender)(req);
    return outboundResult(req, await t.send(req));
  };
  const lanes: LaneSender = {
    available: () => onThisThread === undefined,
    claimSlot,
    async send(req, lane) {
      const t = deliveryThread();
      if (!t) return 'stale';
      const answer = await t.sendInLane(req, lane);
      if (answer === 'stale') return 'stale';
      return { result: outboundResult(req, answer.outcome), durationMs: answer.durationMs };
    },
  };
  return Object.assign(sender, { lanes });
}
