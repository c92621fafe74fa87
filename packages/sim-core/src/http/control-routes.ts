import type { Context, Hono } from 'hono';
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
import { invalidNamespaceMessage, isValidNamespace } from '../world';
import { exportWorldSnapshot, importWorldSnapshot, snapshotJsonDepth } from '../world-snapshot';
import type { Namespaces, World } from '../world-types';
import { readControlJson, readControlText } from './body';
import { resolveNamespace } from './namespace';
import type { SimEnv } from './request-context';
import { controlError } from './responses';

/**
 * sim-core's own control routes, in groups (a world's state, its fault rules, its clock, its journal, the
 * namespaces): what `createControlPlane` (control-plane.ts) mounts under `/_sim` before a simulator's own.
 */

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

/** What every group acts through: the definition, the world a request selects, and all namespaces. */
export interface ControlRouteTools<S> {
  def: SimulatorDefinition<S>;
  world: (c: Context) => World<S>;
  namespaces: Namespaces<S>;
}

type Control<S> = Hono<SimEnv<S>>;

/** Reset, state export and import, seed and scenarios: what a world holds, replaced or added to. */
export function registerWorldRoutes<S>(
  control: Control<S>,
  { def, world, namespaces }: ControlRouteTools<S>,
): void {
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

  control.post('/scenarios', async (c) => {
    const text = await readControlText(c);
    const source = c.req.query('source') ?? 'scenario';
    const scenario = await parseScenario(text, source);
    return c.json(await applyScenario(def, world(c), scenario, { text, source }), 201);
  });
}

/** A world's fault rules: list, add (one or a list, JSON or YAML, all or nothing), read, remove. */
export function registerFaultRoutes<S>(control: Control<S>, { world }: ControlRouteTools<S>): void {
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
}

/** A world's clock: read, change (mode, speed, time), advance. */
export function registerClockRoutes<S>(control: Control<S>, { world }: ControlRouteTools<S>): void {
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
}

/** A world's request journal: list, one entry, clear, wait. */
export function registerJournalRoutes<S>(control: Control<S>, { world }: ControlRouteTools<S>): void {
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
}

/** The namespaces: list, create ahead of use, delete; and the memory budget they draw on. */
export function registerNamespaceRoutes<S>(
  control: Control<S>,
  { world, namespaces }: ControlRouteTools<S>,
): void {
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
}
