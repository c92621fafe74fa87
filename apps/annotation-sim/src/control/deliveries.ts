import { controlError, type SimEnv } from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import type { DeliveryEngine, OutboundEntry } from '../delivery/engine';
import type { AnnotationState } from '../domain/state';

const WAIT_LIMIT_MS = 60_000;

function matcher(q: { webhook?: string | number; event?: string; deliveryId?: string | number }) {
  return (e: OutboundEntry) =>
    (q.webhook === undefined || String(e.webhookId) === String(q.webhook)) &&
    (q.event === undefined || e.event === q.event) &&
    (q.deliveryId === undefined || String(e.deliveryId) === String(q.deliveryId));
}

/**
 * `/_sim/deliveries`: the outbound journal (each request with its raw body and headers as sent),
 * waiting for deliveries, and the engine's queue state.
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
  /** Long-poll (wall time) until a journal entry matches; `{webhook?, event?, timeoutMs?}`. */
  control.post('/deliveries/wait', async (c) => {
    const body = ((await c.req.json().catch(() => ({}))) ?? {}) as {
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
