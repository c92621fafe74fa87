import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpSender, type OutboundRequest } from '../src/delivery/sender';

/** A receiver that notes, per request, which connection carried it and who closed that connection. */
async function connectionReceiver() {
  const seen: { connection: number; headers: http.IncomingHttpHeaders; rawHeaders: string[] }[] = [];
  const clientClosed = new Set<number>();
  const ids = new WeakMap<Socket, number>();
  let next = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ connection: ids.get(req.socket) ?? -1, headers: req.headers, rawHeaders: req.rawHeaders });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s: Socket) => {
    const id = next++;
    ids.set(s, id);
    // 'end' is the peer's FIN: the sender closed the connection (the server would have kept it).
    s.on('end', () => clientClosed.add(id));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    seen,
    clientClosed,
    connections: () => next,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const headers: [string, string][] = [
  ['User-Agent', 'CVAT/2.73.0 python-requests/2.33.1'],
  ['Accept-Encoding', 'gzip, deflate'],
  ['Accept', '*/*'],
  ['Connection', 'keep-alive'],
  ['Content-Type', 'application/json'],
  ['Content-Length', '2'],
];
const request = (url: string): OutboundRequest => ({
  url,
  headers,
  body: Buffer.from('{}'),
  verifyTls: true,
  connectTimeoutMs: 3000,
  readTimeoutMs: 10000,
});

describe('createHttpSender', () => {
  it('opens one connection per delivery and closes it itself, as requests.post does, even when in flight together', async () => {
    const r = await connectionReceiver();
    close = r.close;
    const send = createHttpSender();
    const results = [
      ...(await Promise.all([1, 2, 3, 4].map(() => send(request(r.url))))),
      await send(request(r.url)),
      await send(request(r.url)),
    ];
    expect(results.every((x) => x.kind === 'response' && x.status === 200 && x.body === 'ok')).toBe(true);
    expect(r.seen).toHaveLength(6);
    expect(new Set(r.seen.map((s) => s.connection)).size).toBe(6);
    expect(r.connections()).toBe(6);
    await expect.poll(() => r.clientClosed.size).toBe(6);
    for (const s of r.seen) {
      expect(s.headers.connection).toBe('keep-alive');
      expect(s.rawHeaders.filter((_, i) => i % 2 === 0)).toEqual([
        'User-Agent',
        'Accept-Encoding',
        'Accept',
        'Connection',
        'Content-Type',
        'Content-Length',
        'Host',
      ]);
    }
  });

  it('sends each request to its own URL when one sender serves several targets', async () => {
    const a = await connectionReceiver();
    const b = await connectionReceiver();
    close = async () => {
      await a.close();
      await b.close();
    };
    const send = createHttpSender();
    for (const url of [a.url, b.url, a.url, `${b.url}?x=1`]) await send(request(url));
    expect(a.seen).toHaveLength(2);
    expect(b.seen).toHaveLength(2);
    expect(b.seen[1]?.headers.host).toBe(new URL(b.url).host);
  });
});
