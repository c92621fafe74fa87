import http from 'node:http';
import { connect, createServer, type Socket } from 'node:net';

export interface Reply {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** One request over a fresh connection, to 127.0.0.1 only. */
export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<Reply> {
  const u = new URL(url);
  if (u.hostname !== '127.0.0.1') throw new Error(`bench traffic stays on 127.0.0.1, not ${u.hostname}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      u,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${options.method ?? 'GET'} ${url}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

export async function json<T = unknown>(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; expect?: number } = {},
): Promise<T> {
  const res = await request(url, {
    method: options.method,
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (options.expect !== undefined ? res.status !== options.expect : res.status >= 300) {
    throw new Error(`${options.method ?? 'GET'} ${url}: ${res.status} ${res.body.slice(0, 500)}`);
  }
  return (res.body ? JSON.parse(res.body) : undefined) as T;
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `url` every `intervalMs` until it answers 200; resolves then, rejects after `timeoutMs`. */
export async function until200(
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 60_000,
  intervalMs = 2,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await request(url, { headers, timeoutMs: 5_000 });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * A lean HTTP/1.1 keep-alive connection to 127.0.0.1: writes a request prepared by the caller as bytes
 * and reads one `Content-Length` answer at a time (no pipelining). A load generator that shares the
 * machine's cores with the server it drives should spend as little CPU as it can: node:http's client
 * costs several times this per request.
 */
export class RawConnection {
  private readonly socket: Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (status: number) => void; reject: (err: Error) => void } | undefined;
  private failed: Error | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.buffer = this.buffer.length === 0 ? d : Buffer.concat([this.buffer, d]);
      this.parse();
    });
    const fail = (err: Error) => {
      this.failed ??= err;
      const w = this.waiting;
      this.waiting = undefined;
      w?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  static open(url: string): Promise<RawConnection> {
    const u = new URL(url);
    if (u.hostname !== '127.0.0.1') throw new Error(`bench traffic stays on 127.0.0.1, not ${u.hostname}`);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(u.port), '127.0.0.1', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Sends `raw` (a whole request) and resolves with the answer's status once its body is read. */
  send(raw: Buffer | string): Promise<number> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.waiting) return Promise.reject(new Error('one request at a time'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(raw);
    });
  }

  private parse() {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buffer.toString('latin1', 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    // A 204 has no body and no Content-Length.
    const noBody = head.startsWith('HTTP/1.1 204');
    if (!length && !noBody) {
      this.socket.destroy(new Error(`answer without Content-Length: ${head.slice(0, 200)}`));
      return;
    }
    const total = end + 4 + (length ? Number(length[1]) : 0);
    if (this.buffer.length < total) return;
    const status = Number(head.slice(9, 12));
    this.buffer = this.buffer.subarray(total);
    const w = this.waiting;
    this.waiting = undefined;
    w?.resolve(status);
  }

  close() {
    this.socket.destroy();
  }
}
