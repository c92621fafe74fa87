// A namespace costs what it uses (hardening: "nothing allocated up front that the namespace has not
// used"): a namespace only touched holds no delivery engine, no empty table but the seeded admin's, no
// event-store columns and no functions of its own; each is made by its first use, and the control plane,
// snapshots and deletion see such a namespace as they always did.
import { afterEach, describe, expect, it } from 'vitest';
import { type createAnnotationDefinition, deliveryIfMade } from '../src/definition';
import type { OutboundRequest, OutboundResult } from '../src/delivery/sender';
import { eventsOf } from '../src/domain/events/state';
import { TABLES } from '../src/domain/state-tables';
import { aWebhook } from './support/builders';
import { createHarness, type Harness } from './support/harness';

/** A state's count of the tables it made (src/domain/state-tables.ts). */
const tablesMade = (state: object) => (state as { tablesMade(): number }).tablesMade();

let h: Harness;
const sent: OutboundRequest[] = [];
afterEach(() => {
  h?.close();
  sent.length = 0;
});
function harness() {
  const sender = async (req: OutboundRequest): Promise<OutboundResult> => {
    sent.push(req);
    return { kind: 'response', status: 200, body: 'ok' };
  };
  h = createHarness({ sender });
  return h;
}

describe('a touched namespace', () => {
  it('makes no delivery engine, empty tables, event columns or per-world functions', () => {
    const { sim } = harness();
    const worlds = Array.from({ length: 50 }, (_, i) => sim.world(`touched-${i}`));
    for (const world of worlds) {
      expect(deliveryIfMade(world.state)).toBeUndefined();
      // The users table holds the seeded admin; the thirteen others are not made yet.
      expect(tablesMade(world.state)).toBe(1);
      expect(eventsOf(world.state).store.allocatedBytes()).toBe(0);
    }
    // No function of its own (changes are handed on by the simulator's one dispatcher, not the state).
    for (const world of worlds)
      expect(Object.values(world.state).filter((v) => typeof v === 'function')).toEqual([]);
  });

  it('shows empty stores in the control plane, as before', async () => {
    harness();
    const events = await h.get('/_ns/quiet/_sim/events');
    expect(events.status).toBe(200);
    expect(events.body).toMatchObject({ stored: 0, dropped: 0, evicted: 0, jobs: [] });
    expect((await h.get('/_ns/quiet/_sim/deliveries/stats')).body).toEqual({
      queued: 0,
      inFlight: 0,
      scheduledRetries: 0,
    });
    expect((await h.get('/_ns/quiet/_sim/deliveries')).body).toMatchObject({ entries: [], dropped: 0 });
    expect((await h.get('/_ns/quiet/_sim/deliveries/settings')).body).toEqual({
      egress: { policy: 'metadata-only', allow: [] },
    });
    expect((await h.get('/_ns/quiet/api/projects', { as: 'admin' })).body.count).toBe(0);
  });

  it('exports, imports, resets and deletes without making what it never used', async () => {
    const { sim } = harness();
    const exported = await h.get('/_ns/snap/_sim/state');
    expect(exported.status).toBe(200);
    expect(deliveryIfMade(sim.world('snap').state)).toBeUndefined();
    expect(exported.body.state.delivery).toEqual({ egress: { policy: 'metadata-only', allow: [] } });
    const put = await h.put('/_ns/copy/_sim/state', exported.body);
    expect(put.status).toBe(200);
    const again = await h.get('/_ns/copy/_sim/state');
    expect(again.body).toEqual({ ...exported.body, namespace: 'copy' });
    expect((await h.post('/_ns/snap/_sim/reset')).status).toBeLessThan(300);
    expect(deliveryIfMade(sim.world('snap').state)).toBeUndefined();
    expect((await h.del('/_sim/namespaces/snap')).status).toBe(204);
    expect(sim.namespaces.has('snap')).toBe(false);
  });

  it('sends nothing for a change that lands after its namespace was deleted', async () => {
    const { sim } = harness();
    h.seed({ users: [{ username: 'u' }], projects: [{ name: 'p', owner: 'u' }] });
    const hook = await h.post(
      '/api/webhooks',
      aWebhook().forProject(1).withEvents('update:project').build(),
      {
        as: 'u',
      },
    );
    expect(hook.status).toBe(201);
    const state = sim.world().state;
    expect(deliveryIfMade(state)).toBeUndefined();
    expect((await h.del('/_sim/namespaces/default')).status).toBe(204);
    // A request in flight when the namespace went changes the project of the old state: its changes
    // are handed on with that state when it returns.
    const project = state.projects.get(1) as unknown as Record<string, unknown>;
    const { changes } = sim.kernel.def as ReturnType<typeof createAnnotationDefinition>;
    changes.dispatch(state, [
      {
        scope: 'update:project',
        action: 'update',
        kind: 'project',
        id: 1,
        resource: { ...project, name: 'late' },
        before: project,
        changes: { name: { from: 'p', to: 'late' } },
        actor: null,
        org: null,
        projectId: 1,
        taskId: null,
        jobId: null,
        time: new Date(0).toISOString(),
      } as unknown as Parameters<typeof changes.dispatch>[1][number],
    ]);
    const engine = deliveryIfMade(state);
    expect(engine).toBeDefined();
    expect(engine?.stats()).toEqual({ queued: 0, inFlight: 0, scheduledRetries: 0 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent).toEqual([]);
  });

  it('makes the delivery engine with the first webhook delivery, and delivers it', async () => {
    const { sim } = harness();
    h.seed({ users: [{ username: 'u' }], projects: [{ name: 'p', owner: 'u' }] });
    expect(deliveryIfMade(sim.world().state)).toBeUndefined();
    const hook = await h.post(
      '/api/webhooks',
      aWebhook().forProject(1).withEvents('update:project').build(),
      {
        as: 'u',
      },
    );
    expect(hook.status).toBe(201);
    await h.patch('/api/projects/1', { name: 'renamed' }, { as: 'u' });
    expect(deliveryIfMade(sim.world().state)).toBeDefined();
    await h.idle();
    expect(sent.map((r) => JSON.parse(r.body.toString()).event)).toEqual(['update:project']);
    expect((await h.get('/_sim/deliveries/stats')).body).toEqual({
      queued: 0,
      inFlight: 0,
      scheduledRetries: 0,
    });
  });
});

describe('what only reads', () => {
  it('answers the delivery views of a namespace that never delivered without making its engine', async () => {
    const { sim } = harness();
    const stats = { queued: 0, inFlight: 0, scheduledRetries: 0 };
    const views: [string, () => Promise<{ status: number; text: string }>, number, unknown][] = [
      ['GET /deliveries', () => h.get('/_ns/ro/_sim/deliveries'), 200, { entries: [], dropped: 0, stats }],
      [
        'GET /deliveries?webhook&event',
        () => h.get('/_ns/ro/_sim/deliveries?webhook=1&event=update:project'),
        200,
        { entries: [], dropped: 0, stats },
      ],
      ['GET /deliveries/stats', () => h.get('/_ns/ro/_sim/deliveries/stats'), 200, stats],
      [
        'GET /deliveries/settings',
        () => h.get('/_ns/ro/_sim/deliveries/settings'),
        200,
        { egress: { policy: 'metadata-only', allow: [] } },
      ],
      ['POST /deliveries/idle', () => h.post('/_ns/ro/_sim/deliveries/idle', {}), 200, stats],
      ['DELETE /deliveries', () => h.del('/_ns/ro/_sim/deliveries'), 204, ''],
    ];
    for (const [name, call, status, body] of views) {
      const res = await call();
      expect({ name, status: res.status }).toEqual({ name, status });
      // The same bytes as an empty engine answers.
      expect(res.text).toBe(body === '' ? '' : JSON.stringify(body));
      expect({ name, made: deliveryIfMade(sim.world('ro').state) !== undefined }).toEqual({
        name,
        made: false,
      });
      expect({ name, tables: tablesMade(sim.world('ro').state) }).toEqual({ name, tables: 1 });
    }
  });

  it('exports a snapshot without making a table, unmade tables written empty', async () => {
    const { sim } = harness();
    const exported = await h.get('/_ns/snap/_sim/state');
    expect(exported.status).toBe(200);
    const state = sim.world('snap').state;
    expect(tablesMade(state)).toBe(1);
    expect(deliveryIfMade(state)).toBeUndefined();
    expect(eventsOf(state).store.allocatedBytes()).toBe(0);
    const snapshot = exported.body.state as Record<string, unknown>;
    expect(Object.keys(snapshot)).toEqual(['seq', 'baseUrl', ...TABLES, 'extensions', 'delivery']);
    for (const t of TABLES) if (t !== 'users') expect({ t, rows: snapshot[t] }).toEqual({ t, rows: [] });
    expect((snapshot.users as unknown[]).length).toBe(1);
  });

  it('imports making only the tables and the engine the snapshot fills', async () => {
    const { sim } = harness();
    const empty = (await h.get('/_ns/snap/_sim/state')).body;
    expect((await h.put('/_ns/copy/_sim/state', empty)).status).toBe(200);
    const copy = sim.world('copy').state;
    expect(deliveryIfMade(copy)).toBeUndefined();
    expect(tablesMade(copy)).toBe(1);
    expect((await h.get('/_ns/copy/_sim/state')).body).toEqual({ ...empty, namespace: 'copy' });

    // Rows make their table; egress settings other than the starting ones make the engine.
    h.seed({ users: [{ username: 'u' }], projects: [{ name: 'p', owner: 'u' }] });
    const seeded = (await h.get('/_sim/state')).body;
    expect((await h.put('/_ns/full/_sim/state', seeded)).status).toBe(200);
    const full = sim.world('full').state;
    expect(deliveryIfMade(full)).toBeUndefined();
    expect(tablesMade(full)).toBe(2);
    expect((await h.get('/_ns/full/_sim/state')).body).toEqual({ ...seeded, namespace: 'full' });
    const opened = { ...seeded, state: { ...seeded.state, delivery: { egress: { allow: ['127.0.0.1'] } } } };
    expect((await h.put('/_ns/open/_sim/state', opened)).status).toBe(200);
    expect(deliveryIfMade(sim.world('open').state)).toBeDefined();
    expect((await h.get('/_ns/open/_sim/deliveries/settings')).body).toEqual({
      egress: { policy: 'metadata-only', allow: ['127.0.0.1'] },
    });

    // A made table is emptied by a snapshot without rows, a made engine set back to its settings.
    expect((await h.put('/_ns/open/_sim/state', { ...empty, namespace: 'open' })).status).toBe(200);
    expect((await h.get('/_ns/open/_sim/state')).body).toEqual({ ...empty, namespace: 'open' });
    expect((await h.get('/_ns/open/_sim/deliveries/settings')).body).toEqual({
      egress: { policy: 'metadata-only', allow: [] },
    });
    expect((await h.get('/_ns/open/api/projects', { as: 'admin' })).body.count).toBe(0);
  });
});
