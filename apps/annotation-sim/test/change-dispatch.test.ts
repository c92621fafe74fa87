// A resource change is made by the domain and handed on at the edge (src/changes-dispatch.ts,
// docs/decisions/0023): the domain records it in its MutationContext; `api()` (or the request runner)
// gives the list to the one dispatcher, which queues the webhooks and logs the server events, in order.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChangeListener } from '../src/changes-dispatch';
import { type createAnnotationDefinition, deliveryIfMade } from '../src/definition';
import type { ResourceChange } from '../src/domain/changes';
import { eventsOf } from '../src/domain/events/state';
import type { TaskRec } from '../src/domain/model';
import type { AnnotationState } from '../src/domain/state';
import { updateTask } from '../src/domain/tasks';
import { api } from '../src/http/api';
import { cvatJson } from '../src/http/respond';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => {
  h?.close();
  vi.restoreAllMocks();
});

/**
 * Org acme with project 1, task 1, and a project webhook on `update:task` (sent nowhere: the sender);
 * `routes` adds routes before the first request.
 */
async function world(listeners: ChangeListener[] = [], routes?: () => void) {
  h = createHarness({ listeners, sender: async () => ({ kind: 'response', status: 200, body: 'ok' }) });
  routes?.();
  h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p' }],
  });
  const hook = aWebhook().forProject(1).withEvents('update:task').build();
  expect((await h.post('/api/webhooks?org=acme', hook, { as: 'alice' })).status).toBe(201);
}

const dispatcher = () => (h.sim.kernel.def as ReturnType<typeof createAnnotationDefinition>).changes;

/** What has happened to a change so far: its delivery queued or sent, its server event logged. */
function seen(state: AnnotationState, scope: string) {
  const engine = deliveryIfMade(state);
  const stats = engine?.stats();
  const deliveries = (stats ? stats.queued + stats.inFlight : 0) + (engine?.journal().entries.length ?? 0);
  const events = [...eventsOf(state).store.rows()].filter((r) => r.scope === scope).length;
  return { deliveries, events };
}

describe('a change made through the API', () => {
  it("reaches the world's subscribers, then webhooks, then the server-event log, then `listeners`", async () => {
    const atListener: ReturnType<typeof seen>[] = [];
    await world([(change, state) => atListener.push(seen(state, change.scope))]);
    const atSubscriber: ReturnType<typeof seen>[] = [];
    h.sim.onChange((change, state) => atSubscriber.push(seen(state, change.scope)));
    const res = await h.patch('/api/tasks/1?org=acme', { name: 'renamed' }, { as: 'alice' });
    expect(res.status).toBe(200);
    // Before the answer came back, the subscriber saw it first (nothing yet), the embedder's listener
    // last (its webhook queued and its server event logged).
    expect(atSubscriber).toEqual([{ deliveries: 0, events: 0 }]);
    expect(atListener).toEqual([{ deliveries: 1, events: 1 }]);
  });

  it('is handed on even when the view fails after making it', async () => {
    const scopes: string[] = [];
    const deps = { auth: { signedUrls: false, secretKey: 'k', trustedOrigins: [] }, strictAccept: true };
    await world([(change) => scopes.push(change.scope)], () => {
      h.sim.app.post(
        '/api/broken-view',
        api({ ...deps, changes: dispatcher() }, (r) => {
          updateTask(r.mutation(), r.state.tasks.get(1) as TaskRec, { name: 'half-done' });
          throw new Error('the view failed after its change');
        }),
      );
      h.sim.app.post(
        '/api/async-view',
        api({ ...deps, changes: dispatcher() }, async (r) => {
          await Promise.resolve();
          updateTask(r.mutation(), r.state.tasks.get(1) as TaskRec, { name: 'after an await' });
          return cvatJson(r.c, {});
        }),
      );
    });
    // Django's 500 page, logged as an unhandled error.
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken = await h.post('/api/broken-view', {}, { as: 'alice' });
    expect(broken.status).toBe(500);
    expect((await h.post('/api/async-view', {}, { as: 'alice' })).status).toBe(200);
    expect(scopes).toEqual(['update:task', 'update:task']);
    expect(seen(h.state(), 'update:task')).toEqual({ deliveries: 2, events: 2 });
  });
});

describe('the domain', () => {
  it('records its changes in its context and hands nothing on by itself', async () => {
    const scopes: string[] = [];
    await world([(change) => scopes.push(change.scope)]);
    const state = h.state();
    const changes: ResourceChange[] = [];
    const ctx = { state, now: h.sim.world().clock.now(), actor: null, changes };
    updateTask(ctx, state.tasks.get(1) as TaskRec, { name: 'direct' });
    expect(changes.map((c) => c.scope)).toEqual(['update:task']);
    expect(changes[0]?.changes?.name).toEqual({ from: 't', to: 'direct' });
    expect(scopes).toEqual([]);
    expect(seen(state, 'update:task')).toEqual({ deliveries: 0, events: 0 });
    // The edge hands them on.
    dispatcher().dispatch(state, changes);
    expect(scopes).toEqual(['update:task']);
    expect(seen(state, 'update:task')).toEqual({ deliveries: 1, events: 1 });
  });

  it('records nothing for a seed', async () => {
    const scopes: string[] = [];
    await world([(change) => scopes.push(change.scope)]);
    h.seed({
      projects: [{ name: 'q', owner: 'alice', org: 'acme' }],
      tasks: [{ name: 'u', owner: 'alice', size: 4 }],
    });
    expect(scopes).toEqual([]);
    expect(seen(h.state(), 'create:task')).toEqual({ deliveries: 0, events: 0 });
  });
});

describe('sim.onChange', () => {
  it("calls a listener with its namespace's changes only, until it is removed", async () => {
    await world();
    const scopes: string[] = [];
    const off = h.sim.onChange((change) => scopes.push(change.scope));
    const other: string[] = [];
    h.sim.onChange((change) => other.push(change.scope), 'other');
    await h.patch('/api/tasks/1?org=acme', { name: 'a' }, { as: 'alice' });
    off();
    await h.patch('/api/tasks/1?org=acme', { name: 'b' }, { as: 'alice' });
    expect(scopes).toEqual(['update:task']);
    expect(other).toEqual([]);
  });
});
