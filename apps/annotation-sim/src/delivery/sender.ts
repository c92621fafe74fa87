import http from 'node:http';
import https from 'node:https';

/** One outgoing webhook POST, exactly as it will be written to the wire. */
export interface OutboundRequest {
  url: string;
  /** Header name → value, in the order python-requests sends them. */
  headers: [string, string][];
  body: Buffer;
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
 * The real sender: node:http(s) with a connect time-out (until the socket connects) and a read
 * time-out (socket idle), like `requests.post(..., timeout=(3, 10), stream=True)`.
 *
 * One TCP connection per delivery, closed by the sender once the answer is read, as `requests.post`
 * does (a Session per call): the headers say `Connection: keep-alive`, but nothing is reused. Plain
 * HTTP goes through one shared agent without keep-alive (a socket per request, destroyed when its
 * answer ends: the same wire traffic as a fresh agent per request, without building one each time);
 * HTTPS keeps a fresh agent per request, so no TLS session is resumed (requests builds a new
 * connection pool, and SSL context, per call).
 */
export function createHttpSender(): WebhookSender {
  const plainAgent = new http.Agent({ keepAlive: false });
  /** Parsed target URLs (a webhook's URL is parsed once, not once per delivery). */
  const urls = new Map<string, URL>();
  const parse = (text: string): URL => {
    let url = urls.get(text);
    if (url === undefined) {
      if (urls.size >= 1024) urls.clear();
      url = new URL(text);
      urls.set(text, url);
    }
    return url;
  };
  return (req) =>
    new Promise<OutboundResult>((resolve) => {
      const url = parse(req.url);
      const isHttps = url.protocol === 'https:';
      const headers: Record<string, string> = {};
      for (const [k, v] of req.headers) headers[k] = v;
      let settled = false;
      const done = (r: OutboundResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        resolve(r);
      };
      const options: https.RequestOptions = {
        method: 'POST',
        headers,
        ...(isHttps ? { agent: false, rejectUnauthorized: req.verifyTls } : { agent: plainAgent }),
      };
      const request = (isHttps ? https : http).request(url, options);
      const connectTimer = setTimeout(() => {
        done({ kind: 'timeout', message: connectTimeoutText(url, req.connectTimeoutMs / 1000) });
        request.destroy();
      }, req.connectTimeoutMs);
      request.on('socket', (socket) => {
        const connected = () => {
          clearTimeout(connectTimer);
          socket.setTimeout(req.readTimeoutMs, () => {
            done({ kind: 'timeout', message: readTimeoutText(url, req.readTimeoutMs / 1000) });
            request.destroy();
          });
        };
        if ((socket as { connecting?: boolean }).connecting)
          socket.once(isHttps ? 'secureConnect' : 'connect', connected);
        else connected();
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        const code = err.code ?? '';
        const verify =
          CERT_VERIFY[code] ?? (code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? mismatchReason(url) : undefined);
        if (isHttps && verify !== undefined) {
          done({ kind: 'connection-error', message: sslVerifyErrorText(url, verify) });
          return;
        }
        const reason = ERRNO[err.code ?? ''] ?? `${err.code ?? 'error'}: ${err.message}`;
        done({ kind: 'connection-error', message: connectionErrorText(url, reason) });
      });
      request.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let tooBig = false;
        res.on('data', (chunk: Buffer) => {
          if (tooBig) return;
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            tooBig = true;
            chunks.length = 0;
            done({ kind: 'response', status: res.statusCode ?? 0, body: '' });
            res.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          done({
            kind: 'response',
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', () =>
          done({
            kind: 'response',
            status: res.statusCode ?? 0,
            body: tooBig ? '' : Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      request.end(req.body);
    });
}
