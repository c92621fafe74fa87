import { createHash, timingSafeEqual } from 'node:crypto';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import * as z from 'zod';
import { inTimeRange } from '../clock';
import type { SimulatorDefinition } from '../definition';
import { parseDuration, SimInputError } from '../duration';
import type { FaultRule } from '../faults/engine';
import { MAX_GLOB_LENGTH } from '../glob';
import type { JournalFilter } from '../journal';
import { lazy } from '../lazy';
import { applyScenario, parseScenario, parseYamlText } from '../scenario';
import { parseInput } from '../validation';
import { invalidNamespaceMessage, isValidNamespace, NamespaceLimitError } from '../world';
import { exportWorldSnapshot, importWorldSnapshot, snapshotJsonDepth } from '../world-snapshot';
import type { Namespaces, World } from '../world-types';
import { readControlJson, readControlText } from './body';
import { controlOpenApi } from './control-openapi';
import { DASHBOARD_HEADER, DASHBOARD_PUBLIC, registerDashboard } from './dashboard';
import { resolveNamespace } from './namespace';
import type { SimEnv } from './request-context';
import { controlError } from './responses';
import { createChangeHub, streamRoute } from './stream';

// Built on first use: a process that never gets these control requests never builds them.
const clockChangeSchema = lazy(() =>
  z
    .object({
      mode: z.enum(['real', 'manual']).optional(),
      speed: z.number().positive().optional(),
      set: z.union([z.string(), z.number()]).optional(),
    })
    .strict(),
);
const advanceSchema = lazy(() =>
  z.object({ by: z.union([z.string().min(1), z.number().nonnegative()]) }).strict(),
);
const journalFilterSchema = lazy(() =>
  z
    .object({
      operation: z.string().max(MAX_GLOB_LENGTH).optional(),
      resource: z.string().max(MAX_GLOB_LENGTH).optional(),
      method: z.string().max(MAX_GLOB_LENGTH).optional(),
      path: z.string().max(MAX_GLOB_LENGTH).optional(),
      status: z.coerce.number().int().optional(),
      fault: z.string().optional(),
      since: z.coerce.number().int().nonnegative().optional(),
    })
    .strict(),
);
const waitSchema = lazy(() =>
  journalFilterSchema().extend({
    /** Wall-clock time to wait: a long-poll is a transport matter, not simulated time. */
    timeout: z.union([z.string(), z.number().nonnegative()]).default('10s'),
  }),
);
const readJson = (c: Context): Promise<unknown> => readControlJson(c);

function ruleView(rule: FaultRule) {
  return { ...rule };
}

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
  const world = (c: Context): World<S> => namespaces.get(resolveNamespace(c.req.raw));
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
    await next();
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

  control.post('/reset', (c) => {
    const name = resolveNamespace(c.req.raw);
    namespaces.reset(name);
    return c.json({ namespace: name, reset: true });
  });

  control.get('/state', (c) => c.json(exportWorldSnapshot(def, world(c))));
  control.put('/state', async (c) => {
    const w = world(c);
    // As deep as the simulator's own snapshots: a world holds what its API took as given.
    importWorldSnapshot(def, w, await readControlJson(c, snapshotJsonDepth(def)));
    return c.json({ namespace: w.namespace, imported: true });
  });

  control.post('/seed', async (c) => {
    const w = world(c);
    return c.json({ namespace: w.namespace, seeded: def.seed(w, await readJson(c)) }, 201);
  });

  control.get('/faults', (c) => {
    const w = world(c);
    const unfired = c.req.query('unfired');
    const list = unfired === 'true' ? w.faults.unfired() : w.faults.list();
    return c.json({ faults: list.map(ruleView) });
  });
  control.post('/faults', async (c) => {
    const w = world(c);
    // A rule or a list of rules, as JSON or (Content-Type: application/yaml) as YAML.
    const body = /\byaml\b/i.test(c.req.header('content-type') ?? '')
      ? (await parseYamlText(await readControlText(c), 'faults', 'a fault rule')).value
      : await readJson(c);
    if (Array.isArray(body)) {
      // All or nothing: validate every rule before adding any.
      const added: FaultRule[] = [];
      try {
        body.forEach((rule, i) => {
          try {
            added.push(w.faults.add(rule));
          } catch (err) {
            if (err instanceof SimInputError)
              throw new SimInputError(`[${i}].${err.message}`, [i, ...err.segments]);
            throw err;
          }
        });
      } catch (err) {
        for (const rule of added) w.faults.remove(rule.id);
        throw err;
      }
      return c.json({ faults: added.map(ruleView) }, 201);
    }
    return c.json(ruleView(w.faults.add(body)), 201);
  });
  // `/faults/unfired` is served here rather than by a route of its own: a static segment beside `:id`
  // keeps Hono's RegExpRouter (the fast one) from taking the app's routes, which then all went through
  // the slower TrieRouter (bench/, decision 0008).
  control.get('/faults/:id', (c) => {
    if (c.req.param('id') === 'unfired') {
      return c.json({ faults: world(c).faults.unfired().map(ruleView) });
    }
    const rule = world(c).faults.get(c.req.param('id'));
    return rule ? c.json(ruleView(rule)) : controlError(c, 404, `no fault rule "${c.req.param('id')}"`);
  });
  control.delete('/faults/:id', (c) =>
    world(c).faults.remove(c.req.param('id'))
      ? c.body(null, 204)
      : controlError(c, 404, `no fault rule "${c.req.param('id')}"`),
  );
  control.delete('/faults', (c) => {
    world(c).faults.clear();
    return c.body(null, 204);
  });

  control.get('/clock', (c) => c.json(world(c).clock.state()));
  // A partial change is a PATCH (docs/decisions/0020-control-plane-dialect.md); PUT is its older spelling.
  const changeClock = async (c: Context) => {
    const body = parseInput(clockChangeSchema(), (await readJson(c)) ?? {});
    const clock = world(c).clock;
    if (body.mode !== undefined || body.speed !== undefined)
      clock.configure({ mode: body.mode, speed: body.speed });
    if (body.set !== undefined) clock.set(body.set);
    return c.json(clock.state());
  };
  control.patch('/clock', changeClock);
  control.put('/clock', changeClock);
  control.post('/clock/advance', async (c) => {
    const body = parseInput(advanceSchema(), await readJson(c));
    const clock = world(c).clock;
    const by = parseDuration(body.by);
    if (!inTimeRange(clock.now() + by))
      throw new SimInputError(
        `advancing by ${JSON.stringify(body.by)} would pass 9999-12-31T23:59:59.999Z, the latest time the API can write`,
        'by',
      );
    clock.advance(by);
    // Let promise chains that timers started (e.g. delayed responses) settle before answering.
    await new Promise((resolve) => setImmediate(resolve));
    return c.json(clock.state());
  });

  control.get('/journal', (c) => {
    const query = c.req.query();
    const limit = query.limit === undefined ? undefined : Number(query.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new SimInputError('limit must be a positive integer', 'limit');
    }
    const { limit: _ignored, ...filterQuery } = query;
    const filter = parseInput(journalFilterSchema(), filterQuery) as JournalFilter;
    const w = world(c);
    return c.json({ entries: w.journal.list(filter, limit), stats: w.journal.stats() });
  });
  /** One entry by its seq (404 once the ring or the byte budget dropped it). */
  control.get('/journal/:seq', (c) => {
    const seq = Number(c.req.param('seq'));
    if (!Number.isInteger(seq) || seq < 1) throw new SimInputError('seq must be a positive integer', 'seq');
    const entry = world(c).journal.get(seq);
    return entry
      ? c.json({ entry })
      : controlError(c, 404, `no journal entry ${seq} (never recorded, or dropped since)`);
  });
  control.delete('/journal', (c) => {
    world(c).journal.clear();
    return c.body(null, 204);
  });
  control.post('/journal/wait', async (c) => {
    const body = parseInput(waitSchema(), (await readJson(c)) ?? {});
    const { timeout, ...filter } = body;
    const ms = parseDuration(timeout);
    const entry = await world(c).journal.wait(filter as JournalFilter, ms, c.req.raw.signal);
    if (!entry) return controlError(c, 408, `no journal entry matched within ${timeout}`);
    return c.json({ entry });
  });

  control.get('/namespaces', (c) => c.json({ namespaces: namespaces.names() }));
  // The memory budget (docs/decisions/0019): process-wide per kind, and what this namespace holds.
  control.get('/memory', (c) => {
    const w = world(c);
    const kinds: Record<string, { bytes: number; evicted: number }> = {
      // What the budget evicted, as the pool counts it (the journal's `dropped` has the ring's too).
      journal: { bytes: w.journal.bytes(), evicted: w.journal.budgetEvicted() },
      ...w.budget.stats(),
    };
    return c.json({ kinds: namespaces.budget.stats(), namespace: { name: w.namespace, kinds } });
  });
  /** Creates a namespace ahead of its first use (201; 200 when it exists). */
  control.put('/namespaces/:name', (c) => {
    const name = c.req.param('name');
    if (!isValidNamespace(name)) throw new SimInputError(invalidNamespaceMessage(name), 'name');
    const existed = namespaces.has(name);
    namespaces.get(name);
    return c.json({ namespace: name, created: !existed }, existed ? 200 : 201);
  });
  control.delete('/namespaces/:name', (c) =>
    namespaces.delete(c.req.param('name'))
      ? c.body(null, 204)
      : controlError(c, 404, `no namespace "${c.req.param('name')}"`),
  );

  control.post('/scenarios', async (c) => {
    const text = await readControlText(c);
    const source = c.req.query('source') ?? 'scenario';
    const scenario = await parseScenario(text, source);
    return c.json(await applyScenario(def, world(c), scenario, { text, source }), 201);
  });

  def.controlRoutes?.(control, { world, namespaces });
  return control;
}
