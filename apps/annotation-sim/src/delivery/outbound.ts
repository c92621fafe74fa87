// What python-requests (CVAT's client) makes of an outgoing webhook request (outbound-request.ts): the result
// a delivery row records, worded as requests and urllib3 word their exceptions.
import type { OutboundRequest } from './outbound-request';
import type { WireOutcome } from './thread/protocol';

export type OutboundResult =
  | { kind: 'response'; status: number; body: string }
  | { kind: 'connection-error'; message: string }
  | { kind: 'timeout'; message: string }
  /**
   * The deadline passed mid-exchange: in CVAT the RQ job is killed by its time-out before the delivery
   * row is written.
   */
  | { kind: 'job-timeout' };

/** Sends one webhook request; injected so tests and faults never need a global fetch. */
export type WebhookSender = (request: OutboundRequest) => Promise<OutboundResult>;

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
function connectTimeoutText(url: URL, seconds: number): string {
  const conn = url.protocol === 'https:' ? 'HTTPSConnection' : 'HTTPConnection';
  return `${pool(url)}: Max retries exceeded with url: ${url.pathname}${url.search} (Caused by ConnectTimeoutError(<urllib3.connection.${conn} object at 0x7f5e2c3b1d90>, 'Connection to ${url.hostname} timed out. (connect timeout=${seconds})'))`;
}
export function readTimeoutText(url: URL, seconds: number): string {
  return `${pool(url)}: Read timed out. (read timeout=${seconds})`;
}

/**
 * The last line of the traceback RQ keeps for a job its time-out killed (`rq.timeouts`'
 * `UnixSignalDeathPenalty`, raised by SIGALRM wherever the job was).
 */
export function jobTimeoutText(seconds: number): string {
  return `rq.timeouts.JobTimeoutException: Task exceeded maximum timeout value (${seconds} seconds)`;
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
function sslVerifyErrorText(url: URL, reason: string): string {
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

/** `requests`' account of a wire outcome: what the delivery row and the outbound journal record. */
export function outboundResult(req: OutboundRequest, outcome: WireOutcome): OutboundResult {
  switch (outcome.kind) {
    case 'response':
      return outcome;
    case 'connect-timeout':
      return { kind: 'timeout', message: connectTimeoutText(new URL(req.url), req.connectTimeoutMs / 1000) };
    case 'read-timeout':
      return { kind: 'timeout', message: readTimeoutText(new URL(req.url), req.readTimeoutMs / 1000) };
    case 'deadline':
      return { kind: 'job-timeout' };
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
