import { createSimKernel, type SimEnv, type SimulatorDefinition, type World } from '@sims/sim-core';
import type { Context } from 'hono';
import { registerEventControlRoutes } from '../../../src/control/events';
import type { EventsCaller, OrgRole } from '../../../src/domain/events/export';
import { type ResourceChange, recordResourceChange } from '../../../src/domain/events/server-events';
import {
  createEventsState,
  type EventsState,
  exportEventsState,
  importEventsState,
} from '../../../src/domain/events/state';
import { eventsFaults } from '../../../src/domain/fault-effects';
import { registerEventRoutes } from '../../../src/http/events/routes';
import { CVAT_JSON } from '../../../src/http/respond';

/**
 * A minimal stand-in for the resource layer (users, tokens, organizations), so the events API can be
 * tested on its own: `Authorization: Token <username>-token` authenticates, `X-Organization`, `org`
 * and `org_id` select an organization, and `emit(change)` feeds the server event log.
 */
interface TestUser {
  id: number;
  username: string;
  email: string;
  privilege: 'admin' | 'user' | 'worker';
}
interface TestOrg {
  id: number;
  slug: string;
  members: Map<number, OrgRole>;
}
export interface TestState {
  users: TestUser[];
  orgs: TestOrg[];
  events: EventsState;
}

const START = '2026-08-12T10:00:00Z';
export const START_MS = Date.parse(START);

const definition: SimulatorDefinition<TestState> = {
  name: 'events-test-sim',
  version: '0.0.0',
  createState: () => ({
    users: [
      { id: 1, username: 'admin', email: 'admin@example.com', privilege: 'admin' },
      { id: 2, username: 'alice', email: 'alice@example.com', privilege: 'user' },
      { id: 3, username: 'bob', email: '', privilege: 'worker' },
      { id: 4, username: 'carol', email: 'carol@example.com', privilege: 'user' },
    ],
    orgs: [
      {
        id: 10,
        slug: 'acme',
        members: new Map<number, OrgRole>([
          [2, 'owner'],
          [3, 'worker'],
        ]),
      },
    ],
    events: createEventsState(),
  }),
  exportState: (w) => ({ events: exportEventsState(w.state.events) }),
  importState: (w, snapshot) => {
    w.state.events = importEventsState((snapshot as { events: unknown }).events, w.clock);
  },
  seed: () => ({}),
  renderFaultError: (c, error) => c.json({ detail: error.message ?? 'fault' }, Number(error.status) as 500),
  domainEffects: { ...eventsFaults },
  controlRoutes: (control, tools) => registerEventControlRoutes(control, tools.world, (s) => s.events),
};

function unauthorized(detail: string): Response {
  return new Response(JSON.stringify({ detail }), {
    status: 401,
    headers: { 'content-type': CVAT_JSON, 'www-authenticate': 'Token' },
  });
}

function identify(c: Context<SimEnv<TestState>>): EventsCaller | Response {
  const state = c.var.sim.world.state;
  const auth = c.req.header('authorization');
  if (!auth) return unauthorized('Authentication credentials were not provided.');
  const user = state.users.find((u) => auth === `Token ${u.username}-token`);
  if (!user) return unauthorized('Invalid token.');
  const slug = c.req.header('x-organization') ?? c.req.query('org');
  const orgId = c.req.query('org_id');
  let org: TestOrg | undefined;
  if (orgId) org = state.orgs.find((o) => String(o.id) === orgId);
  else if (slug) org = state.orgs.find((o) => o.slug === slug);
  if ((orgId || slug) && !org) {
    return new Response(JSON.stringify({ detail: `${orgId || slug} organization does not exist.` }), {
      status: 404,
      headers: { 'content-type': CVAT_JSON },
    });
  }
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    isAdmin: user.privilege === 'admin',
    privilege: user.privilege,
    org: org ? { id: org.id, slug: org.slug } : null,
    role: org ? (org.members.get(user.id) ?? null) : null,
  };
}

export type Who = 'admin' | 'alice' | 'bob' | 'carol' | null;

export interface RequestOptions extends RequestInit {
  as?: Who;
  org?: string;
}

/**
 * One events simulator on a manual clock starting at {@link START}, with typed helpers.
 *
 * @example const h = createHarness(); await h.request('/api/events', { method: 'POST', json: {...} })
 */
export function createHarness() {
  const kernel = createSimKernel(definition, { seed: 42, clock: { mode: 'manual', start: START } });
  registerEventRoutes(kernel, {
    events: (s) => s.events,
    route: (handler) => async (c) => {
      const caller = identify(c);
      return caller instanceof Response ? caller : handler(c, caller);
    },
  });
  const world = (): World<TestState> => kernel.namespaces.get('default');
  return {
    kernel,
    app: kernel.app,
    world,
    events: () => world().state.events,
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
      return kernel.app.request(path, { ...init, headers });
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
    /** What the resource layer's `emit(change)` does for the events module. */
    emit(change: ResourceChange) {
      recordResourceChange(world().state.events, change, world().clock.now());
    },
    close: () => kernel.close(),
  };
}

export type Harness = ReturnType<typeof createHarness>;

/** A client events batch sent at `sent` with events at the given times. */
export function batch(sent: string, events: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  return { timestamp: sent, events, ...extra };
}
