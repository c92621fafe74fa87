import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { SimulatorDefinition } from '../definition';
import type { JournalEntry } from '../journal';
import { createNamespaces, NamespaceLimitError, type NamespacesOptions } from '../world';
import type { Namespaces, World } from '../world-types';
import { readBoundedBytes, takeRequestBody } from './body';
import { adminTokenGuard, createControlPlane } from './control-plane';
import { dashboardCookie } from './dashboard';
import { installFallbacks } from './fallbacks';
import { FaultPhases } from './fault-phases';
import { DEFAULT_MAX_JSON_VALUES } from './json-budget';
import { namespaceAwareGetPath, resolveNamespace } from './namespace';
import { RequestContext, type RequestSim, type SimEnv } from './request-context';
import { knownBody, RequestRecorder } from './request-entry';
import { controlError } from './responses';
import { createRouter } from './router';

/**
 * Besides these: `seed`, `clock`, `journalCapacity` (entries per namespace), `journalMaxBytes` (all
 * namespaces' journals together, default 64 MiB), `budgets` (bytes of each of the simulator's other
 * kinds of store, all namespaces together: docs/decisions/0019) and `maxNamespaces` (default 1,000).
 */
export interface KernelOptions extends NamespacesOptions {
  /** When set, control-plane calls (except health) need `Authorization: Bearer <token>` or `X-Sim-Admin-Token`. */
  adminToken?: string;
  /** Journal: capture request/response bodies up to this many bytes (0 turns capture off). Default 16 KiB. */
  journalBodyLimit?: number;
  /** Largest emulated-API request body read, in bytes; default the simulator's `limits.maxBodyBytes`. */
  maxBodyBytes?: number;
  /** Longest a `hang` connection fault holds a request, in wall ms (it ends sooner if the client leaves). */
  hangLimitMs?: number;
  /** Called with every journaled request (the CLI's `--log debug` prints them). */
  requestLog?: (entry: JournalEntry) => void;
  /**
   * Called when an emulated-API request has its response (`c.res`), before it is journaled: for headers
   * every answer carries. Cheaper than a middleware of its own (one async layer less per request).
   */
  onResponse?: (c: Context<SimEnv<unknown>>) => void;
}

export interface SimKernel<S> {
  /** The Hono app: add the emulated API's routes to it. */
  app: Hono<SimEnv<S>>;
  namespaces: Namespaces<S>;
  def: SimulatorDefinition<S>;
  /**
   * Route middleware naming the API operation: runs `before` fault rules, the handler, then `after` rules.
   *
   * @example app.put('/v1beta1/projects/:p/…', kernel.operation('nodePools.update', (c) => name(c)), handler)
   */
  operation(
    name: string | ((c: Context<SimEnv<S>>) => string),
    resource?: (c: Context<SimEnv<S>>) => string | undefined,
  ): MiddlewareHandler<SimEnv<S>>;
  close(): void;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Request bodies past this are refused unless the simulator says otherwise (`limits`). */
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** JSON nested deeper than this is refused unless the simulator says otherwise (`limits`). */
const DEFAULT_MAX_JSON_DEPTH = 100;

/**
 * Builds the shared part of a simulator: namespaces of worlds, the request context and journal
 * middleware, the fault phases, and the control plane at `/_sim`.
 *
 * @example
 * const kernel = createSimKernel(clusterDefinition, { seed: 42, clock: { mode: 'manual' } });
 * kernel.app.get('/v1beta1/…', kernel.operation('nodePools.get'), (c) => c.json(…));
 */
export function createSimKernel<S>(def: SimulatorDefinition<S>, options: KernelOptions = {}): SimKernel<S> {
  const namespaces = createNamespaces(def, options);
  const bodyLimit = options.journalBodyLimit ?? 16 * 1024;
  const maxBodyBytes = options.maxBodyBytes ?? def.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bodyOptions = {
    budget: {
      maxBytes: def.limits?.maxJsonBytes ?? maxBodyBytes,
      maxDepth: def.limits?.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
      maxValues: def.limits?.maxJsonValues ?? DEFAULT_MAX_JSON_VALUES,
    },
    bytesBodies: def.limits?.bytesBodies,
  };
  const app = new Hono<SimEnv<S>>({ getPath: namespaceAwareGetPath, router: createRouter() });
  const faultPhases = new FaultPhases(def, options.hangLimitMs ?? 600_000);
  const recorder = new RequestRecorder(def, bodyLimit);

  const guard = adminTokenGuard(options.adminToken, dashboardCookie(def.name));
  app.use('/_sim', guard);
  app.use('/_sim/*', guard);

  // Request context + journal for the emulated API (the control plane is not journaled).
  app.use('*', async (c, next) => {
    if (c.req.path === '/_sim' || c.req.path.startsWith('/_sim/')) return next();
    let namespace: string;
    try {
      namespace = resolveNamespace(c.req.raw);
    } catch (err) {
      return controlError(c, 400, (err as Error).message);
    }
    let world: World<S>;
    try {
      world = namespaces.get(namespace);
    } catch (err) {
      // Past maxNamespaces: the control plane's answer, not the emulated API's (docs/decisions/0015).
      if (err instanceof NamespaceLimitError) return controlError(c, 507, err.message);
      throw err;
    }
    const started = performance.now();
    const timeMs = world.clock.now();
    const sim = new RequestContext(world, namespace, world.ids.uuid(), c);
    c.set('sim', sim);
    let status = 0;
    try {
      await next();
      if (options.onResponse) options.onResponse(c as unknown as Context<SimEnv<unknown>>);
      // A connection fault answered on the socket itself: there is no HTTP status to record.
      status = c.res === RESPONSE_ALREADY_SENT ? 0 : c.res.status;
      // A response marked already sent (RESPONSE_ALREADY_SENT, or Hono's copy of it when a handler had
      // answered first) must reach @hono/node-server as a native Response: 2.1.8 writes the head of a
      // lightweight one again. Reading `.body` makes it native.
      if (faultPhases.answeredOnSocket(c)) void c.res.body;
    } finally {
      let responseText: string | Uint8Array | undefined;
      const known = bodyLimit > 0 && c.finalized && status !== 0 ? knownBody(c.res) : null;
      if (known !== null && (known !== undefined || c.res.body)) {
        const type = known?.type ?? c.res.headers.get('content-type') ?? '';
        const length = known?.length ?? Number(c.res.headers.get('content-length') ?? 0);
        const textual = (type.includes('json') || type.startsWith('text/')) && !type.includes('csv');
        // A body kept as bytes is shown by its size and start past the limit (no copy, no decoding).
        if (textual && known && 'bytes' in known) responseText = known.bytes;
        else if (textual && length <= bodyLimit) {
          responseText = known && 'text' in known ? known.text : await c.res.clone().text();
        }
      }
      const entry = world.journal.record(recorder.entry(c, sim, timeMs, started, status, responseText));
      if (options.requestLog) options.requestLog(entry.entry());
    }
  });

  function operation(
    name: string | ((c: Context<SimEnv<S>>) => string),
    resource?: (c: Context<SimEnv<S>>) => string | undefined,
  ): MiddlewareHandler<SimEnv<S>> {
    // Most requests have no body to read and no rules to run: they go straight on, without the
    // async frame (a promise and a microtask per request) the full path needs.
    return (c, next) => {
      const sim = c.get('sim');
      // A name by request: one route that serves two methods (a custom verb inside a resource path).
      sim.operation = typeof name === 'string' ? name : name(c);
      sim.resource = resource?.(c);
      const readBody =
        BODY_METHODS.has(c.req.method) && sim.rawBody === undefined && sim.bodyBytes === undefined;
      if (!readBody && sim.world.faults.size() === 0) return next();
      return withBodyAndRules(c, next, sim, readBody);
    };
  }

  async function withBodyAndRules(
    c: Context<SimEnv<S>>,
    next: () => Promise<void>,
    sim: RequestSim<S>,
    readBody: boolean,
  ): Promise<Response | undefined> {
    if (readBody) {
      const body = await readBoundedBytes(c.req.raw, maxBodyBytes);
      if (!body.ok) {
        // Refused before anything else (fault rules included), the rest of the body unread: the
        // connection closes after the answer rather than reading on to the next request.
        const res = def.renderPayloadTooLarge
          ? await def.renderPayloadTooLarge(c, body.limit)
          : controlError(c, 413, `request body larger than ${body.limit} bytes`);
        res.headers.set('connection', 'close');
        c.res = res;
        return;
      }
      takeRequestBody(sim, body.bytes, c.req.header('content-type'), bodyOptions);
    }
    const hasRules = sim.world.faults.size() > 0;
    if (hasRules) {
      const terminal = await faultPhases.run(sim, 'before');
      if (terminal) {
        c.res = await faultPhases.answer(c, terminal, 'before');
        return;
      }
    }
    await next();
    if (hasRules) {
      const terminal = await faultPhases.run(sim, 'after');
      if (terminal) c.res = await faultPhases.answer(c, terminal, 'after');
    }
    return undefined;
  }

  app.route('/_sim', createControlPlane(def, namespaces, { adminToken: options.adminToken }));
  installFallbacks(app, def);

  return { app, namespaces, def, operation, close: () => namespaces.close() };
}
