import { controlError, lazy, parseDuration, parseInput, readControlJson, type SimEnv } from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import * as z from 'zod';
import type { EgressSettings } from '../delivery/egress';
import type { DeliveryEngine, OutboundEntry } from '../delivery/engine';
import type { AnnotationState } from '../domain/state';

const WAIT_LIMIT_MS = 60_000;
const DEFAULT_WAIT = '10s';

/** `PATCH /_sim/deliveries/settings`; the egress settings themselves are checked by `configureEgress`. */
const settingsSchema = lazy(() => z.object({ egress: z.unknown().optional() }).strict());

/** A journal id or a filter value as given (`3` or `"3"`); compared as text. */
const idOrText = () => z.union([z.number(), z.string()]);

/**
 * `POST /_sim/deliveries/wait`: a filter and how long to wait in wall time (a long-poll is a transport
 * matter, not simulated time), as `/_sim/journal/wait` takes it: `timeout` is `"2s"` or milliseconds.
 * `timeoutMs` (milliseconds) is the older spelling, still sent by `@sims/sim-client`.
 */
const waitSchema = lazy(() =>
  z
    .object({
      webhook: idOrText().optional(),
      event: z.string().optional(),
      deliveryId: idOrText().optional(),
      timeout: z.union([z.string().min(1), z.number().nonnegative()]).optional(),
      timeoutMs: z.number().nonnegative().optional(),
    })
    .refine((b) => b.timeout === undefined || b.timeoutMs === undefined, {
      message: 'give timeout or timeoutMs, not both',
      path: ['timeout'],
    }),
);

function matcher(q: { webhook?: string | number; event?: string; deliveryId?: string | number }) {
  return (e: OutboundEntry) =>
    (q.webhook === undefined || String(e.webhookId) === String(q.webhook)) &&
    (q.event === undefined || e.event === q.event) &&
    (q.deliveryId === undefined || String(e.deliveryId) === String(q.deliveryId));
}

/** The deliveries' per-world settings as the control plane shows them. */
export interface DeliverySettings {
  egress: EgressSettings;
}

/**
 * A world's delivery engine as the control routes reach it. It is made by the first delivery
 * (definition.ts): what only reads answers for a world that has none the empty answers a new engine would
 * give, and makes none.
 */
export interface DeliveryEngines {
  /** The world's engine, made if it is not yet. */
  of(state: AnnotationState): DeliveryEngine;
  /** The world's engine if it was made. */
  ifMade(state: AnnotationState): DeliveryEngine | undefined;
  /** The settings an engine starts with. */
  initialSettings(): DeliverySettings;
}

/** The queue state of an engine with nothing queued, as `stats()` answers it. */
const emptyStats = (): ReturnType<DeliveryEngine['stats']> => ({
  queued: 0,
  inFlight: 0,
  scheduledRetries: 0,
});

/**
 * `/_sim/deliveries`: the outbound journal (each request with its raw body and headers as sent),
 * waiting for deliveries, the engine's queue state, and the world's delivery settings (egress policy).
 * Changing the settings and waiting for a delivery make the engine (a delivery would); the rest answers a
 * world that never delivered as an empty engine would.
 */
export function registerDeliveryControlRoutes(
  control: Hono<SimEnv<AnnotationState>>,
  engines: DeliveryEngines,
  worldOf: (c: Context) => { state: AnnotationState },
) {
  control.get('/deliveries', (c) => {
    const engine = engines.ifMade(worldOf(c).state);
    if (!engine) return c.json({ entries: [], dropped: 0, stats: emptyStats() });
    const q = { webhook: c.req.query('webhook'), event: c.req.query('event') };
    const { entries, dropped } = engine.journal();
    return c.json({ entries: entries.filter(matcher(q)), dropped, stats: engine.stats() });
  });
  control.delete('/deliveries', (c) => {
    // An engine not made has an empty journal.
    engines.ifMade(worldOf(c).state)?.clearJournal();
    return c.body(null, 204);
  });
  control.get('/deliveries/stats', (c) => c.json(engines.ifMade(worldOf(c).state)?.stats() ?? emptyStats()));
  const settingsOf = (engine: DeliveryEngine): DeliverySettings => ({ egress: engine.egress() });
  control.get('/deliveries/settings', (c) => {
    const engine = engines.ifMade(worldOf(c).state);
    return c.json(engine ? settingsOf(engine) : engines.initialSettings());
  });
  /** `{egress: {policy?, allow?}}`: `allow` replaces the list; what is not given stays. */
  control.patch('/deliveries/settings', async (c) => {
    const engine = engines.of(worldOf(c).state);
    const { egress } = parseInput(settingsSchema(), (await readControlJson(c)) ?? {});
    if (egress !== undefined) engine.configureEgress(egress);
    return c.json(settingsOf(engine));
  });
  /** Long-poll (wall time, at most a minute) until a journal entry matches `{webhook?, event?, deliveryId?}`. */
  control.post('/deliveries/wait', async (c) => {
    const { timeout, timeoutMs, ...filter } = parseInput(waitSchema(), (await readControlJson(c)) ?? {});
    const ms = parseDuration(timeout ?? timeoutMs ?? DEFAULT_WAIT);
    const engine = engines.of(worldOf(c).state);
    const entry = await engine.waitFor(matcher(filter), Math.min(ms, WAIT_LIMIT_MS));
    if (!entry) return controlError(c, 408, 'no delivery matched in time');
    return c.json({ entry });
  });
  /** Resolves when nothing is queued or in flight (scheduled retries wait for the clock). */
  control.post('/deliveries/idle', async (c) => {
    const engine = engines.ifMade(worldOf(c).state);
    // Nothing was ever queued where no engine was made.
    if (!engine) return c.json(emptyStats());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([
      engine.idle().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), WAIT_LIMIT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) return controlError(c, 408, 'deliveries still in flight');
    return c.json(engine.stats());
  });
}

const ok = { '200': { description: 'OK' } };
/** A JSON body with these top-level fields. */
const body = (description: string, properties: Record<string, unknown>) => ({
  required: false,
  description,
  content: { 'application/json': { schema: { type: 'object', properties } } },
});
/** `/_sim/openapi.json` entries of the delivery control routes. */
export const DELIVERY_CONTROL_OPENAPI: Record<string, unknown> = {
  '/_sim/deliveries': {
    get: {
      summary: 'The outbound delivery journal (raw bodies and headers as sent); ?webhook=&event=',
      responses: ok,
    },
    delete: { summary: 'Empty the outbound journal', responses: { '204': { description: 'emptied' } } },
  },
  '/_sim/deliveries/stats': {
    get: { summary: 'Queued, in-flight and scheduled-retry counts', responses: ok },
  },
  '/_sim/deliveries/wait': {
    post: {
      summary:
        'Long-poll until a delivery matching {webhook?, event?, deliveryId?} is journaled; timeout: "10s" or ms (wall time, default 10s, at most 60s; timeoutMs: the older spelling, in ms)',
      requestBody: body('What to wait for (a filter) and how long', {
        webhook: {},
        event: { type: 'string' },
        deliveryId: {},
        timeout: {},
        timeoutMs: { type: 'number' },
      }),
      responses: {
        ...ok,
        '400': { description: 'invalid filter or timeout' },
        '408': { description: 'no match in time' },
      },
    },
  },
  '/_sim/deliveries/idle': { post: { summary: 'Return when nothing is queued or in flight', responses: ok } },
  '/_sim/deliveries/settings': {
    get: { summary: "The world's delivery settings: { egress: { policy, allow } }", responses: ok },
    patch: {
      summary:
        'Change the egress policy: { egress: { policy?: "metadata-only" | "cvat-proxy", allow?: ["127.0.0.1", "10.0.0.0/8", "host.name"] } } (allow replaces the list)',
      requestBody: body('The settings to change; what is not given stays', { egress: { type: 'object' } }),
      responses: { ...ok, '400': { description: 'invalid settings' } },
    },
  },
};
