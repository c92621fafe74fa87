import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request the receiver got, with the raw body bytes as they arrived. */
export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Header names and values as they arrived, in their order. */
  rawHeaders: string[];
  rawBody: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: payloads are inspected freely in tests
  json: any;
  /** undefined without a configured secret; else whether X-Signature-256 matched the raw body. */
  signatureValid: boolean | undefined;
}

/**
 * The header names of a delivery in the order they reach the wire: http.client's `Host` first, requests'
 * session headers, the request's signature, then what `prepare_body` adds for `json=` (Content-Length,
 * then Content-Type). Written out here, apart from the engine, so that the tests check its order.
 */
export const WIRE_HEADER_ORDER = [
  'Host',
  'User-Agent',
  'Accept-Encoding',
  'Accept',
  'Connection',
  'X-Signature-256',
  'Content-Length',
  'Content-Type',
];

export type Behaviour =
  /** Answer with this status and body, once `after` has settled when it is given. */
  | { status: number; body?: string | Buffer; after?: Promise<unknown> }
  /** Accept the request and never answer (the sender's read time-out fires). */
  | 'hang';

/**
 * A webhook receiver on 127.0.0.1 written independently of the simulator's signing code: it verifies
 * X-Signature-256 the way CVAT's documented Flask sample does,
 * `"sha256=" + hmac.new(secret, request.data, sha256).hexdigest()` compared in constant time.
 */
export async function startReceiver(
  options: {
    secret?: string;
    behaviour?: (req: Received, n: number) => Behaviour;
    /** Serve HTTPS with this key and certificate (PEM) instead of plain HTTP. */
    tls?: { key: string | Buffer; cert: string | Buffer };
  } = {},
) {
  const requests: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let behaviour: (req: Received, n: number) => Behaviour =
    options.behaviour ?? (() => ({ status: 200, body: 'ok' }));
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let signatureValid: boolean | undefined;
      if (options.secret !== undefined) {
        const expected = Buffer.from(
          `sha256=${createHmac('sha256', options.secret).update(rawBody).digest('hex')}`,
        );
        const received = Buffer.from(String(req.headers['x-signature-256'] ?? ''));
        signatureValid = received.length === expected.length && timingSafeEqual(received, expected);
      }
      let json: unknown;
      try {
        json = JSON.parse(rawBody.toString('utf8'));
      } catch {
        json = undefined;
      }
      const received: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        rawBody,
        json,
        signatureValid,
      };
      requests.push(received);
      const b = behaviour(received, requests.length);
      if (b === 'hang') return;
      if (signatureValid === false && b.status === 200) {
        res.writeHead(403).end('Invalid Signature');
        return;
      }
      const answer = () => res.writeHead(b.status, { 'content-type': 'text/plain' }).end(b.body ?? '');
      if (b.after) b.after.then(answer, answer);
      else answer();
    });
  };
  const server = options.tls
    ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler)
    : http.createServer(handler);
  let connections = 0;
  server.on('connection', (s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/hook`,
    port,
    requests,
    /** TCP connections accepted so far (a request refused before connecting never adds one). */
    connections: () => connections,
    setBehaviour(fn: (req: Received, n: number) => Behaviour) {
      behaviour = fn;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A local port with nothing listening (connection refused). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
