import http from 'node:http';
import { createServer } from 'node:net';

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
