import type { World } from '@sims/sim-core';
import { createAnnotationSim } from '../../../src/app';
import { type ResourceChange, recordResourceChange } from '../../../src/domain/events/server-events';
import { createEventsState, EVENTS_EXTENSION, eventsOf } from '../../../src/domain/events/state';
import type { AnnotationState } from '../../../src/domain/state';

const START = '2026-08-12T10:00:00Z';
export const START_MS = Date.parse(START);

/**
 * The annotation simulator with the cast the events tests use: `admin` (1, superuser), `alice` (2,
 * owner of organization `acme`, id 10), `bob` (3, worker privilege, worker in `acme`, no email) and
 * `carol` (4); `Authorization: Token <username>-token` authenticates each. The event log starts empty
 * (the seed's own server events are dropped).
 */
function createEventsSim() {
  const sim = createAnnotationSim({ seed: 42, clock: { mode: 'manual', start: START }, admin: false });
  const world = sim.world();
  // The organization gets id 10, as the tests name it.
  world.state.seq.organizations = 9;
  sim.kernel.def.seed(world, {
    users: [
      {
        username: 'admin',
        email: 'admin@example.com',
        privilege: 'admin',
        is_superuser: true,
        token: 'admin-token',
      },
      { username: 'alice', email: 'alice@example.com', token: 'alice-token' },
      { username: 'bob', email: '', privilege: 'worker', token: 'bob-token' },
      { username: 'carol', email: 'carol@example.com', token: 'carol-token' },
    ],
    organizations: [{ slug: 'acme', owner: 'alice', members: [{ user: 'bob', role: 'worker' }] }],
  });
  world.state.extensions.set(EVENTS_EXTENSION, createEventsState());
  return sim;
}

export type Who = 'admin' | 'alice' | 'bob' | 'carol' | null;

export interface RequestOptions extends RequestInit {
  as?: Who;
  org?: string;
}

/**
 * One annotation simulator on a manual clock starting at {@link START}, with typed helpers for the
 * events API.
 *
 * @example const h = createHarness(); await h.request('/api/events', { method: 'POST', json: {...} })
 */
export function createHarness() {
  const sim = createEventsSim();
  const kernel = sim.kernel;
  const world = (): World<AnnotationState> => kernel.namespaces.get('default');
  return {
    kernel,
    app: kernel.app,
    world,
    events: () => eventsOf(world().state),
    async request(path: string, options: RequestOptions & { json?: unknown } = {}) {
      const { as = 'admin', org, json, ...init } = options;
      const headers = new Headers(init.headers);
      if (as) headers.set('authorization', `Token ${as}-token`);
      if (org !== undefined) headers.set('x-organization', org);
      if (json !== undefined) {
        headers.set('content-type', 'application/json');
        init.body = JSON.stringify(json);
        init.method ??= 'POST';
      }
      return kernel.app.request(path.startsWith('http') ? path : `http://localhost${path}`, {
        ...init,
        headers,
      });
    },
    /** Advances the world clock through the control plane (as a test client would). */
    async advance(by: string | number) {
      const res = await kernel.app.request('/_sim/clock/advance', {
        method: 'POST',
        body: JSON.stringify({ by }),
      });
      if (res.status !== 200) throw new Error(`advance failed: ${await res.text()}`);
    },
    async addFault(rule: unknown) {
      const res = await kernel.app.request('/_sim/faults', { method: 'POST', body: JSON.stringify(rule) });
      if (res.status !== 201) throw new Error(`fault rejected: ${await res.text()}`);
      return res.json();
    },
    /** What a resource change does to the event log (the server events it records). */
    emit(change: ResourceChange) {
      recordResourceChange(eventsOf(world().state), change, world().clock.now());
    },
    close: () => sim.close(),
  };
}

export type Harness = ReturnType<typeof createHarness>;

/** A client events batch sent at `sent` with events at the given times. */
export function batch(sent: string, events: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  return { timestamp: sent, events, ...extra };
}
