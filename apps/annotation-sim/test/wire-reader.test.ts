import type { AddressInfo, Socket } from 'node:net';
import net from 'node:net';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectionAbortedText,
  createHttpSender,
  createWorkerSender,
  type OutboundRequest,
  pythonStrRepr,
  type WebhookSender,
} from '../src/delivery/sender';

/**
 * The plain-HTTP wire client against receivers that write exact bytes: a bare TCP server that reads one
 * request (its head and `Content-Length` bytes of body) and hands the socket and the request's raw
 * bytes to `answer`.
 */
async function rawReceiver(answer: (socket: Socket, request: Buffer) => void) {
  const requests: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    let answered = false;
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (answered || end === -1) return;
      const length = Number(/content-length: *(\d+)/i.exec(buf.toString('latin1', 0, end))?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      answered = true;
      requests.push(buf);
      answer(socket, buf);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  closeAll = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}/hook`, port, requests };
}

let closeAll: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeAll?.();
  closeAll = undefined;
});

const request = (url: string, body = '{"a": 1}'): OutboundRequest => ({
  url,
  headers: [
    ['User-Agent', 'CVAT/2.73.0 python-requests/2.33.1'],
    ['Accept-Encoding', 'gzip, deflate'],
    ['Accept', '*/*'],
    ['Connection', 'keep-alive'],
    ['X-Signature-256', 'sha256=00'],
    ['Content-Length', String(Buffer.byteLength(body))],
    ['Content-Type', 'application/json'],
  ],
  body: Buffer.from(body),
  bodyText: body,
  verifyTls: true,
  connectTimeoutMs: 3000,
  readTimeoutMs: 2000,
});

/** Writes `parts` one after another, each in its own turn of the event loop (separate TCP segments). */
function trickle(socket: Socket, parts: (string | Buffer)[], then?: () => void) {
  const next = (i: number) => {
    if (i === parts.length) return then?.();
    socket.write(parts[i] as string | Buffer);
    setTimeout(() => next(i + 1), 2);
  };
  next(0);
}

describe.each([
  ['createHttpSender (calling thread)', createHttpSender],
  ['createWorkerSender (delivery thread)', createWorkerSender],
] as [string, () => WebhookSender][])('plain HTTP on the wire, %s', (_name, createSender) => {
  it('writes the request as http.client does: request line, Host first, the headers in order, the body', async () => {
    const r = await rawReceiver((s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const result = await createSender()(request(`${r.url}?a=1&b=%C3%A9`, '{"name": "caf\\u00e9"}'));
    expect(result).toEqual({ kind: 'response', status: 200, body: 'ok' });
    expect(r.requests[0]?.toString('latin1')).toBe(
      `POST /hook?a=1&b=%C3%A9 HTTP/1.1\r\nHost: 127.0.0.1:${r.port}\r\n` +
        'User-Agent: CVAT/2.73.0 python-requests/2.33.1\r\nAccept-Encoding: gzip, deflate\r\nAccept: */*\r\n' +
        'Connection: keep-alive\r\nX-Signature-256: sha256=00\r\nContent-Length: 21\r\n' +
        'Content-Type: application/json\r\n\r\n{"name": "caf\\u00e9"}',
    );
  });

  it('reaches an IPv6 literal target and names it in Host with its brackets, as http.client does', async () => {
    const seen: string[] = [];
    const server = net.createServer((s) => {
      s.once('data', (d: Buffer) => {
        seen.push(d.toString('latin1'));
        s.end('HTTP/1.1 204 No Content\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    closeAll = () => new Promise<void>((resolve) => server.close(() => resolve()));
    const port = (server.address() as AddressInfo).port;
    const result = await createSender()(request(`http://[::1]:${port}/hook`));
    expect(result).toEqual({ kind: 'response', status: 204, body: '' });
    expect(seen[0]?.split('\r\n').slice(0, 2)).toEqual(['POST /hook HTTP/1.1', `Host: [::1]:${port}`]);
  });

  it('keeps a Host header the request has, in its place, and adds none', async () => {
    const r = await rawReceiver((s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    const req = request(r.url);
    await createSender()({
      ...req,
      headers: [['Accept', '*/*'], ['Host', 'example.test'], ...req.headers.slice(5)],
    });
    const head = r.requests[0]?.toString('latin1').split('\r\n\r\n')[0];
    expect(head?.split('\r\n').slice(0, 3)).toEqual([
      'POST /hook HTTP/1.1',
      'Accept: */*',
      'Host: example.test',
    ]);
    expect(head?.match(/^host:/gim)).toHaveLength(1);
  });

  it('reads a chunked answer written in small pieces, with chunk extensions and trailers', async () => {
    const r = await rawReceiver((s) =>
      trickle(
        s,
        [
          'HTTP/1.1 202 Accepted\r\nTransfer-',
          'Encoding: chunked\r\n\r\n5;ext=1\r\nhel',
          'lo\r\n',
          '7\r\n, world\r\n0\r\nX-Trailer: t\r\n',
          '\r\n',
        ],
        // The connection stays open (keep-alive): the answer is complete at the last chunk.
      ),
    );
    expect(await createSender()(request(r.url))).toEqual({
      kind: 'response',
      status: 202,
      body: 'hello, world',
    });
  });

  it('reads an answer without a length up to the close, and one with bare LF line ends', async () => {
    const r = await rawReceiver((s) =>
      trickle(s, ['HTTP/1.0 200 OK\nServer: x\n\nfirst ', 'second'], () => s.end()),
    );
    expect(await createSender()(request(r.url))).toEqual({
      kind: 'response',
      status: 200,
      body: 'first second',
    });
  });

  it('skips a 100 Continue head and records the answer after it', async () => {
    const r = await rawReceiver((s) =>
      trickle(s, [
        'HTTP/1.1 100 Continue\r\n\r\n',
        'HTTP/1.1 201 Created\r\nContent-Length: 7\r\n\r\ncreated',
      ]),
    );
    expect(await createSender()(request(r.url))).toEqual({ kind: 'response', status: 201, body: 'created' });
  });

  it('takes another 1xx head as the answer, and 204 or 304 without a body, without waiting for a close', async () => {
    for (const head of [
      'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n',
      'HTTP/1.1 204 No Content\r\n\r\n',
    ]) {
      const r = await rawReceiver((s) => s.write(head));
      const status = Number(head.slice(9, 12));
      expect(await createSender()(request(r.url))).toEqual({ kind: 'response', status, body: '' });
      await closeAll?.();
    }
    const r = await rawReceiver((s) => s.write('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n'));
    expect(await createSender()(request(r.url))).toEqual({ kind: 'response', status: 304, body: '' });
  });

  it('decodes gzip and deflate bodies, as urllib3 does with decode_content=True', async () => {
    const text = '{"received": true, "note": "déjà vu"}';
    for (const [coding, bytes, chunked] of [
      ['gzip', gzipSync(text), false],
      ['deflate', deflateSync(text), false],
      ['deflate', deflateRawSync(text), false],
      ['gzip', gzipSync(text), true],
    ] as [string, Buffer, boolean][]) {
      const r = await rawReceiver((s) => {
        const framing = chunked
          ? `Transfer-Encoding: chunked\r\n\r\n${bytes.length.toString(16)}\r\n`
          : `Content-Length: ${bytes.length}\r\n\r\n`;
        s.write(`HTTP/1.1 200 OK\r\nContent-Encoding: ${coding}\r\n${framing}`);
        s.write(bytes);
        if (chunked) s.write('\r\n0\r\n\r\n');
      });
      expect(await createSender()(request(r.url))).toEqual({ kind: 'response', status: 200, body: text });
      await closeAll?.();
    }
  });

  it('records "" for a body over 1 MiB once decoded or read up to the close', async () => {
    const big = gzipSync(Buffer.alloc(2 * 1024 * 1024, 'a'));
    const r = await rawReceiver((s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${big.length}\r\n\r\n`);
      s.write(big);
    });
    expect(await createSender()(request(r.url))).toEqual({ kind: 'response', status: 200, body: '' });
    await closeAll?.();
    const r2 = await rawReceiver((s) => {
      s.write('HTTP/1.1 500 Oops\r\n\r\n');
      s.end(Buffer.alloc(1024 * 1024 + 1, 'b'));
    });
    expect(await createSender()(request(r2.url))).toEqual({ kind: 'response', status: 500, body: '' });
  });

  it('records the answer of a receiver that answers before reading the whole body and closes', async () => {
    const server = net.createServer((s) => {
      s.on('error', () => {});
      s.once('data', () => s.end('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 8\r\n\r\ntoo long'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closeAll = () => new Promise<void>((resolve) => server.close(() => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const result = await createSender()(request(url, `"${'x'.repeat(4 * 1024 * 1024)}"`));
    expect(result).toEqual({ kind: 'response', status: 413, body: 'too long' });
  });

  it("answers a receiver that closes without a word, resets, or speaks no HTTP/1.x in requests' words", async () => {
    const cases: [(s: Socket) => void, string][] = [
      [(s) => s.end(), connectionAbortedText('remote-disconnected', '')],
      [
        (s) => s.resetAndDestroy(),
        "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))",
      ],
      [(s) => s.end('garbage\r\n\r\n'), "('Connection aborted.', BadStatusLine('garbage\\r\\n'))"],
      [
        (s) => s.end('HTTP/1.1 2OO OK\r\n\r\n'),
        "('Connection aborted.', BadStatusLine('HTTP/1.1 2OO OK\\r\\n'))",
      ],
      [(s) => s.end('HTTP/2.0 200 OK\r\n\r\n'), "('Connection aborted.', UnknownProtocol('HTTP/2.0'))"],
      [
        (s) => s.end('x'.repeat(70_000)),
        "('Connection aborted.', LineTooLong('got more than 65536 bytes when reading status line'))",
      ],
      [
        (s) => s.end(`HTTP/1.1 200 OK\r\nX-Long: ${'y'.repeat(70_000)}`),
        "('Connection aborted.', LineTooLong('got more than 65536 bytes when reading header line'))",
      ],
    ];
    for (const [answer, message] of cases) {
      const r = await rawReceiver(answer);
      expect(await createSender()(request(r.url))).toEqual({ kind: 'connection-error', message });
      await closeAll?.();
    }
    expect(connectionAbortedText('remote-disconnected', '')).toBe(
      "('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))",
    );
  });

  it('gives up after the read time-out on a receiver that stops halfway through its answer', async () => {
    const r = await rawReceiver((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf'));
    const result = await createSender()({ ...request(r.url), readTimeoutMs: 100 });
    expect(result).toEqual({
      kind: 'timeout',
      message: `HTTPConnectionPool(host='127.0.0.1', port=${r.port}): Read timed out. (read timeout=0.1)`,
    });
  });
});

describe('pythonStrRepr', () => {
  it("quotes and escapes as Python's repr() does", () => {
    expect(pythonStrRepr('garbage\r\n')).toBe("'garbage\\r\\n'");
    expect(pythonStrRepr("it's")).toBe('"it\'s"');
    expect(pythonStrRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(pythonStrRepr('a\\b\t\u0000\u007f\u0085\u00a0\u00ad\u00e9')).toBe(
      "'a\\\\b\\t\\x00\\x7f\\x85\\xa0\\xad\u00e9'",
    );
    expect(pythonStrRepr("''")).toBe(`"''"`);
  });
});
