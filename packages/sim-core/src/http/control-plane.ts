import { createHash, timingSafeEqual } from 'node:crypto';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { SimulatorDefinition } from '../definition';
import { SimInputError } from '../duration';
import { NamespaceLimitError } from '../world';
import type { Namespaces, World } from '../world-types';
import { controlOpenApi } from './control-openapi';
import {
  registerClockRoutes,
  registerFaultRoutes,
  registerJournalRoutes,
  registerNamespaceRoutes,
  registerWorldRoutes,
} from './control-routes';
import { DASHBOARD_HEADER, DASHBOARD_PUBLIC, registerDashboard } from './dashboard';
import { resolveNamespace } from './namespace';
import type { SimEnv } from './request-context';
import { controlError } from './responses';
import { createChangeHub, streamRoute } from './stream';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The control plane at `/_sim`: health, reset, state, seed, faults, clock, journal, namespaces and
 * scenarios, each acting on the namespace the request selects. The simulator adds its own routes.
 */
/**
 * Guards every `/_sim` route with the admin token when one is set (health and the dashboard's sign-in
 * page excepted). Mounted on the whole app, not on the control sub-app, so routes a simulator adds under
 * `/_sim` on its own app are covered too. The token given is compared in constant time: both sides are
 * hashed (SHA-256) first, so neither the time taken nor an early length mismatch tells how much of a guess
 * was right. The dashboard's cookie (`cookieName`) stands for the token on reads, and on changes only
 * with the dashboard's own header (`X-Sim-UI`), which no cross-site form or image can send.
 */
export function adminTokenGuard(adminToken: string | undefined, cookieName?: string): MiddlewareHandler {
  const expected = adminToken ? sha256(adminToken) : undefined;
  return async (c, next) => {
    if (expected && c.req.path !== '/_sim/health' && !DASHBOARD_PUBLIC.has(c.req.path)) {
      const auth = c.req.header('authorization');
      let given =
        c.req.header('x-sim-admin-token') ?? (auth?.startsWith('Bearer ') ? auth.slice(7) : undefined);
      if (given === undefined && cookieName !== undefined) {
        const reading = c.req.method === 'GET' || c.req.method === 'HEAD';
        if (reading || c.req.header(DASHBOARD_HEADER) === '1') given = getCookie(c, cookieName);
      }
      if (given === undefined || !timingSafeEqual(sha256(given), expected)) {
        return controlError(
          c,
          401,
          'the control plane needs the admin token (Authorization: Bearer <token> or X-Sim-Admin-Token)',
        );
      }
    }
    await next();
  };
}

export function createControlPlane<S>(
  def: SimulatorDefinition<S>,
  namespaces: Namespaces<S>,
  options: { adminToken?: string } = {},
): Hono<SimEnv<S>> {
  const control = new Hono<SimEnv<S>>();
  // A read of a namespace that does not exist answers as a new world would, without creating it: a
  // dashboard still polling a namespace just deleted must not bring it back (the live stream never
  // creates one either). Such a world is made for the one request and released after it.
  const detached = new WeakMap<Request, World<S>>();
  const world = (c: Context): World<S> => {
    const name = resolveNamespace(c.req.raw);
    const reading = c.req.method === 'GET' || c.req.method === 'HEAD';
    if (!reading || namespaces.has(name)) return namespaces.get(name);
    let w = detached.get(c.req.raw);
    if (!w) {
      w = namespaces.detached(name);
      detached.set(c.req.raw, w);
    }
    return w;
  };
  const tools = { def, world, namespaces };
  const changes = createChangeHub();

  control.onError((err, c) => {
    if (err instanceof SimInputError) return controlError(c, 400, err.message, err.path);
    if (err instanceof NamespaceLimitError) return controlError(c, 507, err.message);
    console.error(err);
    return controlError(c, 500, `control plane failure: ${(err as Error).message}`);
  });

  control.use('*', async (c, next) => {
    // Resolve early so an invalid namespace is a 400 for every route.
    const name = resolveNamespace(c.req.raw);
    try {
      await next();
    } finally {
      const read = detached.get(c.req.raw);
      if (read) namespaces.release(read);
    }
    // A change made through the control plane (by a test or by the dashboard) wakes the live streams.
    // Signing in to the dashboard (POST /_sim/ui/login) changes nothing a stream shows.
    if (
      c.req.method !== 'GET' &&
      c.req.method !== 'HEAD' &&
      c.res.status < 400 &&
      !c.req.path.startsWith('/_sim/ui/')
    ) {
      const reason = `${c.req.method} ${c.req.path}`;
      if (c.req.path.startsWith('/_sim/namespaces')) changes.notifyAll(reason);
      else changes.notify(name, reason);
    }
  });

  registerDashboard(control as unknown as Hono, def, options.adminToken);
  control.get('/stream', streamRoute(namespaces, changes));

  control.get('/health', (c) =>
    c.json({
      status: 'ok',
      simulator: def.name,
      version: def.version,
      namespaces: namespaces.names().length,
    }),
  );
  control.get('/openapi.json', (c) => c.json(controlOpenApi(def)));

  registerWorldRoutes(control, tools);
  registerFaultRoutes(control, tools);
  registerClockRoutes(control, tools);
  registerJournalRoutes(control, tools);
  registerNamespaceRoutes(control, tools);
  def.controlRoutes?.(control, { world, namespaces });
  return control;
}
