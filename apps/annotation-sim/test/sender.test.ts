import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHttpSender,
  createWorkerSender,
  type OutboundRequest,
  profilingArgs,
  type WebhookSender,
} from '../src/delivery/sender';

/** Listens on 127.0.0.1 at a free port and gives the port. */
async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

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
  const port = await listen(server);
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

/** Two receivers, both closed after the test. */
async function twoReceivers() {
  const a = await connectionReceiver();
  const b = await connectionReceiver();
  close = async () => {
    await a.close();
    await b.close();
  };
  return [a, b] as const;
}
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

describe.each([
  ['createHttpSender (calling thread)', createHttpSender],
  ['createWorkerSender (delivery thread)', createWorkerSender],
] as [string, () => WebhookSender][])('%s', (_name, createSender) => {
  it('opens one connection per delivery and closes it itself, as requests.post does, even when in flight together', async () => {
    const r = await connectionReceiver();
    close = r.close;
    const send = createSender();
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
      // http.client writes Host first (putrequest) when the headers have none.
      expect(s.rawHeaders.filter((_, i) => i % 2 === 0)).toEqual([
        'Host',
        'User-Agent',
        'Accept-Encoding',
        'Accept',
        'Connection',
        'Content-Type',
        'Content-Length',
      ]);
      expect(s.headers.host).toBe(new URL(r.url).host);
    }
  });

  it('sends each request to its own URL when one sender serves several targets', async () => {
    const [a, b] = await twoReceivers();
    const send = createSender();
    for (const url of [a.url, b.url, a.url, `${b.url}?x=1`]) await send(request(url));
    expect(a.seen).toHaveLength(2);
    expect(b.seen).toHaveLength(2);
    expect(b.seen[1]?.headers.host).toBe(new URL(b.url).host);
  });

  it('writes the body bytes exactly, from a Buffer of any bytes or from the text the engine has', async () => {
    const bodies: Buffer[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        res.end('ok');
      });
    });
    const url = `http://127.0.0.1:${await listen(server)}/hook`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    const send = createSender();
    const binary = Buffer.from([0xff, 0x00, 0xe9, 0x0a, 0x22, 0x80, 0x7f]);
    const withLength = (body: Buffer): [string, string][] => [['Content-Length', String(body.length)]];
    await send({ ...request(url), headers: withLength(binary), body: binary });
    const text = '{"name": "caf\\u00e9"}';
    await send({
      ...request(url),
      headers: withLength(Buffer.from(text)),
      body: Buffer.from(text),
      bodyText: text,
    });
    expect(bodies).toEqual([binary, Buffer.from(text)]);
  });

  it('rejects a request node:http refuses to write, and goes on sending the next ones', async () => {
    const r = await connectionReceiver();
    close = r.close;
    const send = createSender();
    await expect(send({ ...request(r.url), headers: [['X-Bad', 'a\u0001b']] })).rejects.toThrow(/X-Bad/);
    await expect(send({ ...request('not a url'), headers })).rejects.toThrow(/Invalid URL/);
    expect(await send(request(r.url))).toEqual({ kind: 'response', status: 200, body: 'ok' });
    expect(r.seen).toHaveLength(1);
  });

  it("answers a refused connection in urllib3's words", async () => {
    const server = net.createServer();
    const port = await listen(server);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const result = await createSender()(request(`http://127.0.0.1:${port}/hook?a=1`));
    expect(result).toEqual({
      kind: 'connection-error',
      message: `HTTPConnectionPool(host='127.0.0.1', port=${port}): Max retries exceeded with url: /hook?a=1 (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f5e2c3b1d90>: Failed to establish a new connection: [Errno 111] Connection refused'))`,
    });
  });

  it('gives up on a receiver that accepts and never answers after the read time-out', async () => {
    const sockets: Socket[] = [];
    const server = net.createServer((s) => sockets.push(s));
    const port = await listen(server);
    close = () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
    const result = await createSender()({ ...request(`http://127.0.0.1:${port}/hook`), readTimeoutMs: 100 });
    expect(result).toEqual({
      kind: 'timeout',
      message: `HTTPConnectionPool(host='127.0.0.1', port=${port}): Read timed out. (read timeout=0.1)`,
    });
  });

  it('records a body over 1 MiB as "" and keeps the status', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(201, { 'content-type': 'text/plain' }).end('x'.repeat(1024 * 1024 + 1)),
      );
    });
    const port = await listen(server);
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await createSender()(request(`http://127.0.0.1:${port}/hook`))).toEqual({
      kind: 'response',
      status: 201,
      body: '',
    });
  });
});

describe('createWorkerSender', () => {
  it.each([
    ['', []],
    [' (code generation from strings forbidden)', ['--disallow-code-generation-from-strings']],
  ])(
    'does not keep an otherwise finished process alive once its deliveries are answered%s',
    async (_, flags) => {
      const r = await connectionReceiver();
      close = r.close;
      // A child process that sends one delivery through the delivery thread and then has nothing left to do:
      // it must exit by itself (the thread is unreferenced while nothing is in flight).
      const script = `
      import { createWorkerSender } from ${JSON.stringify(new URL('../src/delivery/sender.ts', import.meta.url).href)};
      const request = { ...${JSON.stringify({ ...request(r.url), body: undefined })}, body: Buffer.from('{}') };
      console.log(JSON.stringify(await createWorkerSender()(request)));
    `;
      const child = spawn(
        process.execPath,
        [...flags, '--import', 'tsx', '--input-type=module', '-e', script],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      clearTimeout(timer);
      expect({ code, signal, err }).toEqual({ code: 0, signal: null, err: '' });
      expect(JSON.parse(out)).toEqual({ kind: 'response', status: 200, body: 'ok' });
      expect(r.seen).toHaveLength(1);
    },
  );

  it('ends the thread once it has been idle a while, and starts it again for the next delivery', async () => {
    const r = await connectionReceiver();
    close = r.close;
    // In a child process of its own; the delivery thread is found by its name where the runtime gives
    // threads their workers' names (Node 22+), else as the thread that came with the first delivery.
    // Counting all threads flaked: the runtime's own helper threads come and go beside it.
    const script = `
      import { readdirSync, readFileSync } from 'node:fs';
      import { createWorkerSender, DELIVERY_THREAD_IDLE_MS } from ${JSON.stringify(new URL('../src/delivery/sender.ts', import.meta.url).href)};
      const threads = () => readdirSync('/proc/self/task').map((tid) => {
        try { return [tid, readFileSync('/proc/self/task/' + tid + '/comm', 'utf8').trim()]; } catch { return [tid, '']; }
      });
      const request = { ...${JSON.stringify({ ...request(r.url), body: undefined })}, body: Buffer.from('{}') };
      const send = createWorkerSender();
      const snaps = [threads()];
      await send(request);
      snaps.push(threads());
      await new Promise((resolve) => setTimeout(resolve, DELIVERY_THREAD_IDLE_MS + 1000));
      snaps.push(threads());
      const again = await send(request);
      snaps.push(threads());
      console.log(JSON.stringify({ snaps, again: again.kind }));
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await once(child, 'exit');
    clearTimeout(timer);
    const { snaps, again } = JSON.parse(out) as { snaps: [string, string][][]; again: string };
    const [before, sending, idle, resent] = snaps.map((s) => new Map(s)) as [
      Map<string, string>,
      Map<string, string>,
      Map<string, string>,
      Map<string, string>,
    ];
    const named = [...sending.values()].some((name) => name !== 'node');
    // The thread's name as /proc shows it: 15 bytes of the Worker's `name` (trimmed, as read above).
    const isDelivery = (tid: string, snap: Map<string, string>) =>
      named ? snap.get(tid) === 'annotation-sim deliveries'.slice(0, 15).trim() : !before.has(tid);
    const deliveryIn = (snap: Map<string, string>) => [...snap.keys()].filter((tid) => isDelivery(tid, snap));
    const first = deliveryIn(sending);
    expect(first).toHaveLength(1);
    expect(idle.has(first[0] as string)).toBe(false);
    if (named) expect(deliveryIn(idle)).toEqual([]);
    const second = deliveryIn(resent).filter((tid) => !idle.has(tid));
    expect(second).toHaveLength(1);
    expect(second[0]).not.toBe(first[0]);
    expect(again).toBe('response');
    expect(r.seen).toHaveLength(2);
  }, 20_000);

  it('sends the deliveries of several senders through the one thread, each to its own URL', async () => {
    const [a, b] = await twoReceivers();
    const [one, two] = [createWorkerSender(), createWorkerSender()];
    const results = await Promise.all([
      one(request(a.url)),
      two(request(b.url)),
      one(request(b.url)),
      two(request(a.url)),
    ]);
    expect(results.map((x) => x.kind === 'response' && x.status)).toEqual([200, 200, 200, 200]);
    expect([a.seen.length, b.seen.length]).toEqual([2, 2]);
  });
});

describe('profilingArgs', () => {
  it('passes --cpu-prof options to the delivery thread with their values and nothing else', () => {
    expect(
      profilingArgs([
        '--import',
        'tsx',
        '--cpu-prof',
        '--cpu-prof-dir',
        'prof',
        '--cpu-prof-name=x.cpuprofile',
        '--inspect',
      ]),
    ).toEqual(['--cpu-prof', '--cpu-prof-dir', 'prof', '--cpu-prof-name=x.cpuprofile']);
    expect(profilingArgs(['--input-type=module', '--cpu-prof-dir=prof'])).toEqual(['--cpu-prof-dir=prof']);
  });
});
