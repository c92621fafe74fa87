import { controlError, readControlJson, type SimEnv, SimInputError } from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import type { EgressSettings } from '../delivery/egress';
import type { DeliveryEngine, OutboundEntry } from '../delivery/engine';
import type { AnnotationState } from '../domain/state';

const WAIT_LIMIT_MS = 60_000;

function matcher(q: { webhook?: string | number; event?: string; deliveryId?: string | number }) {
  return (e: OutboundEntry) =>
    (q.webhook === undefined || String(e.webhookId) === String(q.webhook)) &&
    (q.event === undefined || e.event === q.event) &&
    (q.deliveryId === undefined || String(e.deliveryId) === String(q.deliveryId));
}

/** A control-plane JSON object body (empty: `{}`); anything else is a SimInputError (400). */
async function objectBody(c: Context): Promise<Record<string, unknown>> {
  // Bounded in size and depth (sim-core); `undefined` when empty.
  const v = (await readControlJson(c)) ?? {};
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new SimInputError('expected a JSON object');
  return v as Record<string, unknown>;
}

/** The deliveries' per-world settings as the control plane shows them. */
export interface DeliverySettings {
  egress: EgressSettings;
}

/**
 * `/_sim/deliveries`: the outbound journal (each request with its raw body and headers as sent),
 * waiting for deliveries, the engine's queue state, and the world's delivery settings (egress policy).
 */
export function registerDeliveryControlRoutes(
  control: Hono<SimEnv<AnnotationState>>,
  engineOf: (state: AnnotationState) => DeliveryEngine,
  worldOf: (c: Context) => { state: AnnotationState },
) {
  control.get('/deliveries', (c) => {
    const engine = engineOf(worldOf(c).state);
    const q = { webhook: c.req.query('webhook'), event: c.req.query('event') };
    const { entries, dropped } = engine.journal();
    return c.json({ entries: entries.filter(matcher(q)), dropped, stats: engine.stats() });
  });
  control.delete('/deliveries', (c) => {
    engineOf(worldOf(c).state).clearJournal();
    return c.body(null, 204);
  });
  control.get('/deliveries/stats', (c) => c.json(engineOf(worldOf(c).state).stats()));
  const settingsOf = (engine: DeliveryEngine): DeliverySettings => ({ egress: engine.egress() });
  control.get('/deliveries/settings', (c) => c.json(settingsOf(engineOf(worldOf(c).state))));
  /** `{egress: {policy?, allow?}}`: `allow` replaces the list; what is not given stays. */
  control.patch('/deliveries/settings', async (c) => {
    const engine = engineOf(worldOf(c).state);
    const { egress, ...rest } = await objectBody(c);
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new SimInputError(`unknown field(s) ${unknown.map((k) => `"${k}"`).join(', ')}`, unknown[0]);
    if (egress !== undefined) engine.configureEgress(egress);
    return c.json(settingsOf(engine));
  });
  /** Long-poll (wall time) until a journal entry matches; `{webhook?, event?, timeoutMs?}`. */
  control.post('/deliveries/wait', async (c) => {
    const body = (await objectBody(c)) as {
      webhook?: number;
      event?: string;
      timeoutMs?: number;
    };
    const engine = engineOf(worldOf(c).state);
    const entry = await engine.waitFor(matcher(body), Math.min(body.timeoutMs ?? 10_000, WAIT_LIMIT_MS));
    if (!entry) return controlError(c, 408, 'no delivery matched in time');
    return c.json({ entry });
  });
  /** Resolves when nothing is queued or in flight (scheduled retries wait for the clock). */
  control.post('/deliveries/idle', async (c) => {
    const engine = engineOf(worldOf(c).state);
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
