import {
  createSimKernel,
  type KernelOptions,
  type RunningServer,
  type SimKernel,
  serve,
  type World,
} from '@sims/sim-core';
import { createClusterDefinition } from './definition';
import type { ClusterState, Settings } from './domain/state';
import { serveHttp2OnSamePort } from './grpc/same-port';
import { registerComputeRoutes } from './http/compute-routes';
import { registerDiscoveryDocuments } from './http/discovery-document-routes';
import { registerApiRoutes } from './http/routes';

export interface ClusterSimOptions extends KernelOptions {
  /** Settings every new world starts with (timing, strictness, quota, auth principals, …). */
  settings?: Partial<Settings>;
}

/** A cluster simulator in-process: its app, kernel and worlds. */
export interface ClusterSim {
  app: SimKernel<ClusterState>['app'];
  kernel: SimKernel<ClusterState>;
  namespaces: SimKernel<ClusterState>['namespaces'];
  /** The world of a namespace (default `default`), for in-process tests. */
  world(namespace?: string): World<ClusterState>;
  close(): void;
}

/**
 * Builds a cluster simulator: the Hono app (emulated GKE v1beta1/v1 API + control plane at `/_sim`)
 * and its namespaces of worlds. No socket: use `app.request()` or `startClusterSim`.
 *
 * @example
 * const sim = createClusterSim({ clock: { mode: 'manual' } });
 * await sim.app.request('/_sim/seed', { method: 'POST', body: JSON.stringify({ clusters: [...] }) });
 */
export function createClusterSim(options: ClusterSimOptions = {}): ClusterSim {
  const def = createClusterDefinition({ settings: options.settings });
  const kernel = createSimKernel(def, options);
  // Built on the first request: zod's toJSONSchema takes ~10 ms, which every start paid. The module is
  // imported then too, so the bundled CLI does not load it at startup (docs/decisions/0009).
  let openApiDocument: Record<string, unknown> | undefined;
  kernel.app.get('/openapi.json', async (c) => {
    openApiDocument ??= (await import('./http/openapi')).createOpenApiDocument();
    return c.json(openApiDocument);
  });
  registerDiscoveryDocuments(kernel.app);
  registerApiRoutes(kernel);
  registerComputeRoutes(kernel);
  return {
    app: kernel.app,
    kernel,
    namespaces: kernel.namespaces,
    world: (namespace = 'default') => kernel.namespaces.get(namespace),
    close: () => kernel.close(),
  };
}

/** A cluster simulator on a socket. */
export interface StartedClusterSim extends ClusterSim {
  url: string;
  port: number;
  host: string;
  /**
   * Where gRPC clients connect (`host:port`, plaintext): the same port as REST, told apart by HTTP/2's
   * preface (docs/decisions/0025-grpc-transport.md).
   */
  grpcEndpoint: string;
  server: RunningServer['server'];
  close(): Promise<void>;
}

/**
 * Starts a cluster simulator on a socket (default 127.0.0.1 and a free port).
 *
 * @example
 * const sim = await startClusterSim({ port: 0 });
 * // point a client at sim.url, then: await sim.close();
 */
export async function startClusterSim(
  options: ClusterSimOptions & { port?: number; host?: string } = {},
): Promise<StartedClusterSim> {
  const sim = createClusterSim(options);
  const running = await serve(sim.app, { port: options.port ?? 0, host: options.host });
  // The gRPC server and the protos load on the first HTTP/2 connection, not at start (cold start).
  const closeGrpc = serveHttp2OnSamePort(running.server, () =>
    import('./grpc/server').then((m) => m.createGrpcSink(sim.app)),
  );
  return {
    ...sim,
    url: running.url,
    port: running.port,
    host: running.host,
    grpcEndpoint: running.url.replace(/^http:\/\//, ''),
    server: running.server,
    // The server first, as annotation-sim's: it stops taking requests and cuts open connections (the
    // live stream, long-polls), then the kernel disposes the worlds no request can reach any more.
    async close() {
      closeGrpc();
      await running.close();
      sim.close();
    },
  };
}
