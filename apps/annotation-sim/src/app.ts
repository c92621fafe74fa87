import {
  createSimKernel,
  type KernelOptions,
  type RunningServer,
  routeEntries,
  serve,
  type World,
} from '@sims/sim-core';
import type { ChangeListener } from './changes-dispatch';
import { createAnnotationDefinition, deliveryOf, type StateExtension } from './definition';
import type { DeliveryEngine, DeliveryOptions } from './delivery/engine';
import type { WebhookSender } from './delivery/sender';
import type { AnnotationState, Compat } from './domain/state';
import { apiRoutes } from './http/api-routes';
import type { AppDeps, Kernel, Quirks } from './http/deps';
import { hasRequestId } from './http/respond';
import { registerRoutes } from './http/route-table';
import { unsimulatedFallback } from './http/unsimulated';

export interface AnnotationSimOptions extends KernelOptions {
  /** The seeded superuser (default `admin` / `admin`); false for none. */
  admin?: { username?: string; password?: string; email?: string } | false;
  /**
   * Webhook delivery: retry schedule and scale, time-outs, User-Agent, the egress policy of new worlds
   * (`egress: { policy: 'metadata-only' | 'cvat-proxy', allow }`) and the resolver it uses (`resolve`).
   */
  delivery?: DeliveryOptions;
  /** Replaces the node:http sender (tests of the engine; never a global fetch). */
  sender?: WebhookSender;
  /** Serve `?sign=` signed URLs and `POST /api/auth/signing` (CVAT ≤ 2.45). Default false. */
  signedUrls?: boolean;
  /** Django SECRET_KEY for signed URLs. */
  secretKey?: string;
  /** Origins the CSRF check trusts besides the request's own. */
  trustedOrigins?: string[];
  /** 406 for an Accept header that excludes `application/vnd.cvat+json` (CVAT's DRF renderer). Default true. */
  strictAccept?: boolean;
  /**
   * Shapes of older CVAT releases; all off by default (2.73). `taskSegments: true` embeds seed 2.4's
   * `segments` (with their jobs) in the task of `GET /api/tasks…` and of webhook payloads.
   */
  compat?: Partial<Compat>;
  /** CVAT's accidental behaviours; all on by default. */
  quirks?: Partial<Quirks>;
  /** Base URL for `url` fields before the first request. */
  publicUrl?: string;
  /** More per-world state, kept in snapshots (the events API's is always there). */
  extensions?: StateExtension[];
  /**
   * Listeners for every resource change of every world, called after the change's webhooks are queued
   * and its server events logged (`src/changes-dispatch.ts`).
   */
  listeners?: ChangeListener[];
}

export interface AnnotationSim {
  app: Kernel['app'];
  kernel: Kernel;
  namespaces: Kernel['namespaces'];
  /** The world of a namespace (default `default`). */
  world(namespace?: string): World<AnnotationState>;
  /** The webhook delivery engine of a namespace: `idle()`, `journal()`, `stats()`. */
  deliveries(namespace?: string): DeliveryEngine;
  /**
   * Calls `listener` with every resource change of a namespace's world (default `default`), before its
   * webhooks and server events, until the returned function is called or the world is reset.
   */
  onChange(listener: ChangeListener, namespace?: string): () => void;
  close(): void;
}

/**
 * Builds the CVAT simulator in-process (no socket): `app.request()` works at once.
 *
 * @example
 * const sim = createAnnotationSim({ clock: { mode: 'manual' } });
 * const res = await sim.app.request('/api/webhooks/events');
 */
export function createAnnotationSim(options: AnnotationSimOptions = {}): AnnotationSim {
  const def = createAnnotationDefinition({
    admin: options.admin,
    delivery: options.delivery,
    sender: options.sender,
    publicUrl: options.publicUrl,
    compat: options.compat,
    extensions: options.extensions,
    listeners: options.listeners,
  });
  // Every response of the emulated API carries X-Request-Id (errors from faults and 404s included).
  const kernel = createSimKernel(def, {
    ...options,
    onResponse(c) {
      const sim = c.get('sim');
      if (sim && !hasRequestId(c.res)) {
        try {
          c.res.headers.set('X-Request-Id', sim.requestId);
        } catch {
          // Immutable headers (a fetch Response): leave as is.
        }
      }
      options.onResponse?.(c);
    },
  });
  const deps: AppDeps = {
    auth: {
      signedUrls: options.signedUrls ?? false,
      secretKey: options.secretKey ?? 'annotation-sim-secret-key',
      trustedOrigins: options.trustedOrigins ?? [],
    },
    strictAccept: options.strictAccept ?? true,
    changes: def.changes,
    quirks: { webhookConstraint500: true, unknownDelivery500: true, ...options.quirks },
    delivery: deliveryOf,
  };
  const rows = apiRoutes(deps);
  registerRoutes(kernel, deps, rows);
  // CVAT's operations no row answers get their 501 from the unmatched-route fallback (renderNotFound).
  def.unsimulated.answer = unsimulatedFallback(kernel, deps, rows);
  let openApi: Record<string, unknown> | undefined;
  kernel.app.get('/openapi.json', async (c) => {
    // Imported on first use: the document is built from every wire schema of @sims/annotation-schema,
    // which a process that never serves it should not build at startup (docs/decisions/0009).
    openApi ??= (await import('./http/openapi')).buildOpenApi(routeEntries(rows));
    return c.json(openApi);
  });
  for (const route of kernel.app.routes) {
    if (route.method === 'ALL' || !route.path.startsWith('/')) continue;
    if (route.path.includes('*')) continue;
    const re = new RegExp(`^${route.path.replace(/:[A-Za-z_]+/g, '[^/]+')}$`);
    def.knownRoutes.push({ method: route.method, re });
  }
  return {
    app: kernel.app,
    kernel,
    namespaces: kernel.namespaces,
    world: (ns = 'default') => kernel.namespaces.get(ns),
    deliveries: (ns = 'default') => deliveryOf(kernel.namespaces.get(ns).state),
    onChange: (listener, ns = 'default') => def.changes.subscribe(kernel.namespaces.get(ns).state, listener),
    close: () => kernel.close(),
  };
}

export interface StartedAnnotationSim extends AnnotationSim {
  url: string;
  port: number;
  server: RunningServer['server'];
  close(): Promise<void>;
}

/**
 * Starts the simulator on a socket.
 *
 * @example const sim = await startAnnotationSim({ port: 0 }); await fetch(`${sim.url}/_sim/health`); await sim.close();
 */
export async function startAnnotationSim(
  options: AnnotationSimOptions & { port?: number; host?: string } = {},
): Promise<StartedAnnotationSim> {
  const sim = createAnnotationSim(options);
  const running = await serve(sim.app, { port: options.port ?? 0, host: options.host });
  return {
    ...sim,
    url: running.url,
    port: running.port,
    server: running.server,
    // The server first: it stops taking requests and cuts open connections (the live stream,
    // long-polls), so no request reaches a world the kernel has disposed (test/close.test.ts).
    async close() {
      await running.close();
      sim.close();
    },
  };
}
