import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnnotationSim } from '../../src/app';
import type { EventRecord } from '../../src/domain/events/record';
import { eventsOf } from '../../src/domain/events/state';
import { EventStore } from '../../src/domain/events/store';
import { FIRST_CAPACITY, FIRST_SEGMENT_BYTES, MAX_SEGMENT_BYTES } from '../../src/domain/events/store-layout';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const ADMIN = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };
const row = (i: number): EventRecord => ({
  scope: 'create:project',
  obj_name: null,
  obj_id: i,
  obj_val: null,
  source: 'server',
  timestamp: 1_767_225_600_000 + i,
  count: null,
  duration: 0,
  project_id: i,
  task_id: null,
  job_id: null,
  user_id: 1,
  user_name: 'admin',
  user_email: 'admin@localhost',
  org_id: null,
  org_slug: null,
  payload: '{"name": "p"}',
  access_token_id: null,
});

let sim: ReturnType<typeof createAnnotationSim> | undefined;
afterEach(() => {
  sim?.close();
  sim = undefined;
});

describe('event store allocation', () => {
  it('allocates nothing before the first row', () => {
    const store = new EventStore();
    expect(store.allocatedBytes()).toBe(0);
    expect(store.approxBytes()).toBe(0);
  });

  it('grows with the rows it holds: a few rows hold a few KB, never a whole segment up front', () => {
    const store = new EventStore();
    let lineBytes = 0;
    for (const rows of [1, 3, 10, 100, 1_000, 10_000, 50_000]) {
      while (store.length < rows) lineBytes += store.line(store.append(row(store.length))).length;
      const allocated = store.allocatedBytes();
      // Columns (81 bytes a row) for at most twice the rows, lines in at most twice their bytes.
      const columns = Math.max(2 * rows, FIRST_CAPACITY) * 81;
      expect(allocated).toBeLessThanOrEqual(columns + 2 * lineBytes + FIRST_SEGMENT_BYTES);
      if (rows <= 3) expect(allocated).toBeLessThan(8 * 1024);
    }
    // Large stores still write into segments of at most MAX_SEGMENT_BYTES.
    expect(MAX_SEGMENT_BYTES).toBe(4 * 1024 * 1024);
  });

  it('gives a fresh namespace an empty store, and a small one after a write', async () => {
    sim = createAnnotationSim({ clock: { mode: 'manual' } });
    const store = eventsOf(sim.world('fresh').state).store;
    expect(store.allocatedBytes()).toBe(0);
    const res = await sim.app.request('/_ns/fresh/api/projects', {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'p' }),
    });
    expect(res.status).toBe(201);
    expect(store.length).toBeGreaterThan(0);
    expect(store.allocatedBytes()).toBeLessThan(8 * 1024);
  });

  it('releases a namespace’s store when the namespace is deleted', async () => {
    sim = createAnnotationSim({ clock: { mode: 'manual' } });
    for (const ns of ['gone', 'kept']) {
      const res = await sim.app.request(`/_ns/${ns}/api/projects`, {
        method: 'POST',
        headers: { ...ADMIN, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'p' }),
      });
      expect(res.status).toBe(201);
    }
    const gone = new WeakRef(eventsOf(sim.world('gone').state).store);
    const kept = new WeakRef(eventsOf(sim.world('kept').state).store);
    expect((await sim.app.request('/_sim/namespaces/gone', { method: 'DELETE' })).status).toBe(204);
    // A later task: WeakRef targets made in this job are kept until it ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(gone.deref()).toBeUndefined();
    expect(kept.deref()).toBeDefined();
  });
});
