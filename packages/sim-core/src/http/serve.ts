import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as honoServe } from '@hono/node-server';

export interface ServeOptions {
  /** 0 picks a free port. Default 0. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
}

export interface RunningServer {
  /** Base URL with a host clients can reach (`0.0.0.0`/`::` are reported as 127.0.0.1). */
  url: string;
  port: number;
  host: string;
  server: Server;
  /** Stops accepting, closes idle and active connections, and resolves when the server is down. */
  close(): Promise<void>;
}

/**
 * How long an idle keep-alive connection stays open. Node's default (5 s) closes a pooled client's idle
 * socket so soon that a request sent on it as it closes fails with ECONNRESET (the bench's soak saw one in
 * ~100,000 requests, in both simulators); the services emulated keep idle connections far longer (nginx,
 * in front of CVAT, 75 s by default; Google's front end minutes). A client that honours the
 * `Keep-Alive: timeout=65` hint closes first.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Serves a Hono app (or any `fetch` handler) over HTTP/1.1 on Node.
 *
 * @example const { url, close } = await serve(app, { port: 0 });
 */
export function serve(
  app: { fetch: (request: Request, env: never) => unknown },
  options: ServeOptions = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = honoServe(
      { fetch: app.fetch as never, port: options.port ?? 0, hostname: host },
      (info: AddressInfo) => {
        const shownHost =
          host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
        let closed: Promise<void> | undefined;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          port: info.port,
          host,
          server: server as Server,
          close() {
            closed ??= new Promise<void>((done) => {
              (server as Server).close(() => done());
              (server as Server).closeAllConnections?.();
            });
            return closed;
          },
        });
      },
    ) as Server;
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // Above the keep-alive timeout, so that a connection kept alive is not cut by the header timer first.
    server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
    server.once('error', reject);
  });
}
