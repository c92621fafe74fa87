// The wire side of a delivery: connect, write, read, close. The delivery thread runs it (bundled into
// worker.generated.ts); `createHttpSender` runs the same module on the calling thread.
// Default imports, read at each call: a test may watch `net.connect` on the module object.
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { WireOutcome, WireRequest } from './protocol';
import { responseReader } from './response-reader';

const CRLF = '\r\n';
/** The longest delay setTimeout keeps (a longer one fires at once); a deadline past it is none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Checks every header as node:http would, and says whether one of them is Host. */
function checkHeaders(headers: string[]): boolean {
  let host = false;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i] as string;
    http.validateHeaderName(name);
    http.validateHeaderValue(name, headers[i + 1] as string);
    if (name.length === 4 && name.toLowerCase() === 'host') host = true;
  }
  return host;
}

type Lookup = NonNullable<net.TcpNetConnectOpts['lookup']>;

/** A socket lookup that answers with the given addresses only (undefined: the system's lookup). */
function pinnedLookup(addresses: string[] | undefined): Lookup | undefined {
  if (!addresses || addresses.length === 0) return undefined;
  const first = addresses[0] as string;
  const lookup = (
    _name: string,
    options: { all?: boolean } | undefined,
    callback: (err: null, address: unknown, family?: number) => void,
  ) => {
    if (options?.all)
      return callback(
        null,
        addresses.map((address) => ({ address, family: net.isIP(address) })),
      );
    callback(null, first, net.isIP(first));
  };
  return lookup as unknown as Lookup;
}

function post(url: URL, req: WireRequest, maxResponseBytes: number, resolve: (o: WireOutcome) => void) {
  const hasHost = checkHeaders(req.headers);
  let text = `POST ${url.pathname || '/'}${url.search} HTTP/1.1${CRLF}`;
  if (!hasHost) text += `Host: ${url.host}${CRLF}`;
  for (let i = 0; i < req.headers.length; i += 2) text += `${req.headers[i]}: ${req.headers[i + 1]}${CRLF}`;
  text += CRLF;
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const secure = url.protocol === 'https:';
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  const lookup = pinnedLookup(req.addresses);
  // TLS without a session cache (requests builds a new SSL context per call), SNI for host names only.
  const socket: net.Socket = secure
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
  const done = (outcome: WireOutcome) => {
    if (settled) return;
    settled = true;
    clearTimeout(connectTimer);
    clearTimeout(deadlineTimer);
    socket.destroy();
    resolve(outcome);
  };
  const reader = responseReader(done, maxResponseBytes);
  const connectTimer = setTimeout(() => done({ kind: 'connect-timeout' }), req.connectTimeoutMs);
  // The whole exchange (connect, write, every byte of the answer) ends by the deadline, however the
  // receiver paces its bytes: the read time-out only bounds the silence between two of them.
  const deadline = req.deadlineMs;
  const deadlineTimer =
    deadline !== undefined && deadline > 0 && deadline < MAX_TIMER_MS
      ? setTimeout(() => done({ kind: 'deadline' }), deadline)
      : undefined;
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
  socket.on('data', (buf: Buffer) => reader.push(buf));
  socket.on('end', () => reader.end());
  socket.on('close', () => reader.end());
  socket.on('error', (err: NodeJS.ErrnoException) => {
    const code = err?.code || '';
    if (!connected) return done({ kind: 'error', code, message: err.message });
    // A receiver that answers without reading the whole request: the answer still counts (urllib3
    // reads the response after a broken pipe).
    if (code === 'EPIPE') return;
    if (reader.started()) return reader.end();
    if (code === 'ECONNRESET') return done({ kind: 'aborted', cause: 'reset', detail: '' });
    done({ kind: 'error', code, message: err.message });
  });
}

/**
 * The wire client: `send(req)` resolves with what happened on the wire, with a connect time-out (until
 * the socket, or its TLS session, is up) and a read time-out (socket idle), like `requests.post(...,
 * timeout=(3, 10), stream=True)`, and, with `deadlineMs`, an end to the whole exchange (CVAT's RQ job
 * time-out, which cuts a receiver that answers one byte at a time).
 *
 * One TCP connection per delivery, closed once the answer is read, as `requests.post` does (a Session
 * per call): the headers say `Connection: keep-alive`, but nothing is reused. HTTPS is the same over
 * `tls.connect`, with no session cache (requests builds a new SSL context per call).
 *
 * The request is written the way http.client writes it: the request line, `Host` first unless the
 * headers have one (`putrequest`), then the headers in their order, then the body (one `writev`);
 * `TCP_NODELAY` as urllib3 sets it. The answer is read as http.client reads it (./response-reader.ts).
 * (node:http's client did the same job with two to three times the CPU per delivery: decision 0010.)
 *
 * A response body over `maxResponseBytes` is dropped and recorded as "". Header names and values are
 * checked as node:http checks them, and a bad one rejects before anything is sent. With `addresses`, a
 * host name is never resolved: the socket's lookup answers with those addresses (the ones the egress
 * policy checked), while TLS still sends and verifies the name.
 */
export function wireSender(maxResponseBytes: number): (req: WireRequest) => Promise<WireOutcome> {
  // Parsed target URLs: a webhook's URL is parsed once, not once per delivery.
  const urls = new Map<string, URL>();
  const parse = (raw: string): URL => {
    let url = urls.get(raw);
    if (url === undefined) {
      if (urls.size >= 1024) urls.clear();
      url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new TypeError(`Protocol "${url.protocol}" not supported. Expected "http:"`);
      urls.set(raw, url);
    }
    return url;
  };
  return (req) =>
    new Promise((resolve) => {
      post(parse(req.url), req, maxResponseBytes, resolve);
    });
}
