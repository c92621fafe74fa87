import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimClient, type SimClient, SimControlError, SimWaitTimeoutError } from '../src/index';
import { startToySim } from './support/toy-simulator';

const START = '2026-01-01T00:00:00.000Z';

let toy: Awaited<ReturnType<typeof startToySim>>;
let sim: SimClient;

/** Calls the toy's emulated API (what the code under test would do). */
async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${toy.url}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as unknown };
}

beforeEach(async () => {
  toy = await startToySim();
  sim = createSimClient({ baseUrl: toy.url });
});
afterEach(async () => {
  await toy.close();
});

describe('createSimClient', () => {
  it('reads health, with the simulator name and version', async () => {
    expect(await sim.health()).toEqual({
      status: 'ok',
      simulator: 'toy-sim',
      version: '0.0.0',
      namespaces: 0,
    });
    expect(sim.namespace).toBe('default');
    expect(sim.baseUrl).toBe(toy.url);
  });

  it('seeds resources and resets the world', async () => {
    expect(await sim.seed({ widgets: [{ name: 'a', color: 'red' }] })).toEqual({
      namespace: 'default',
      seeded: { widgets: ['a'] },
    });
    expect((await api('GET', '/widgets/a')).body).toEqual({ name: 'a', color: 'red' });
    await sim.reset();
    expect((await api('GET', '/widgets/a')).status).toBe(404);
  });

  it('exports a snapshot and imports it into another namespace', async () => {
    await sim.seed({ widgets: [{ name: 'a', color: 'red' }] });
    await sim.faults.add({ id: 'slow', match: { operation: 'widgets.get' }, effect: { delay: '1s' } });
    await sim.clock.advance('1m');
    const snapshot = await sim.state.export<{ widgets: unknown[] }>();
    expect(snapshot).toMatchObject({
      simulator: 'toy-sim',
      namespace: 'default',
      clock: { mode: 'manual', now: '2026-01-01T00:01:00.000Z' },
      faults: [{ id: 'slow', fired: 0 }],
      state: { widgets: [{ name: 'a', color: 'red' }] },
    });
    const other = sim.withNamespace('copy');
    await other.state.import(snapshot);
    expect(await other.state.export()).toEqual({ ...snapshot, namespace: 'copy' });
  });

  it('manages fault rules: add, addMany, list, get, unfired, remove, clear', async () => {
    const rule = await sim.faults.add({
      match: { operation: 'widgets.get' },
      trigger: { times: 1 },
      effect: { error: { status: 'BUSY', message: 'try later' } },
    });
    expect(rule.id).toBe('rule-1');
    expect(rule.namespace).toBe('default');
    expect(rule.rule).toMatchObject({
      id: 'rule-1',
      phase: 'before',
      matched: 0,
      fired: 0,
      createdAt: START,
    });
    const [two, three] = await sim.faults.addMany([
      { id: 'two', match: { operation: 'widgets.create' }, effect: { delay: '1s' } },
      { id: 'three', match: { operation: 'widgets.paint' }, effect: { paintFails: { reason: 'no paint' } } },
    ]);
    expect([two?.id, three?.id]).toEqual(['two', 'three']);

    expect(await api('GET', '/widgets/a')).toEqual({
      status: 503,
      body: { fault: 'BUSY', message: 'try later' },
    });
    expect(await rule.get()).toMatchObject({ matched: 1, fired: 1, exhausted: true });
    expect(await sim.faults.get('rule-1')).toEqual(await rule.get());
    expect((await sim.faults.list()).map((r) => r.id)).toEqual(['rule-1', 'two', 'three']);
    expect((await sim.faults.list({ unfired: true })).map((r) => r.id)).toEqual(['two', 'three']);
    expect((await sim.faults.unfired()).map((r) => r.id)).toEqual(['two', 'three']);

    await sim.faults.remove('two');
    await three?.remove();
    expect((await sim.faults.list()).map((r) => r.id)).toEqual(['rule-1']);
    await sim.faults.clear();
    expect(await sim.faults.list()).toEqual([]);
  });

  it('adds fault rules from YAML text: one rule, or a list added all or none', async () => {
    const [one, ...none] = await sim.faults.addYaml(
      [
        'id: teapot',
        'match: { operation: widgets.get }',
        'trigger: { times: 1 }',
        'effect:',
        '  http: { status: 418, body: { short: stout } }',
      ].join('\n'),
    );
    expect(none).toEqual([]);
    expect(one?.id).toBe('teapot');
    expect(one?.rule).toMatchObject({ id: 'teapot', trigger: { times: 1 }, fired: 0, createdAt: START });
    expect(await api('GET', '/widgets/a')).toEqual({ status: 418, body: { short: 'stout' } });
    expect((await one?.get())?.fired).toBe(1);

    const list = await sim.faults.addYaml(
      [
        '- id: slow-create',
        '  match: { operation: widgets.create }',
        '  effect: { delay: 1s }',
        '- match: { operation: widgets.paint }',
        '  effect: { paintFails: { reason: out of paint } }',
      ].join('\n'),
    );
    expect(list.map((r) => r.id)).toEqual(['slow-create', 'rule-1']);
    expect(list[1]?.rule.effect).toEqual({ paintFails: { reason: 'out of paint' } });
    expect(await api('POST', '/widgets/a/paint')).toEqual({
      status: 500,
      body: { toyError: 'out of paint' },
    });

    // A bad rule in a list: nothing of it is added, and the error names the rule and the field.
    const error = await sim.faults
      .addYaml('- id: fine\n  effect: { delay: 1s }\n- trigger: { times: 0 }\n  effect: { delay: 1s }\n')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimControlError);
    expect(error).toMatchObject({ status: 400, reason: 'INVALID_INPUT' });
    expect((error as SimControlError).message).toMatch(/^\[1\]\.trigger\.times/);
    // Text that is not YAML at all: a 400 with the line and column.
    await expect(sim.faults.addYaml('effect: { delay: 1s\n')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^faults:\d+:\d+: /),
    });
    expect((await sim.faults.list()).map((r) => r.id)).toEqual(['teapot', 'slow-create', 'rule-1']);
  });

  it('makes a handle for a rule a scenario added, without a request', async () => {
    const result = await sim.scenarios.load({
      faults: [
        { id: 'from-scenario', match: { operation: 'widgets.get' }, effect: { http: { status: 418 } } },
      ],
    });
    const handle = sim.faults.handle(result.faults[0] as string);
    expect((await api('GET', '/widgets/x')).status).toBe(418);
    expect((await handle.get()).fired).toBe(1);
  });

  it('moves, sets and configures the clock', async () => {
    expect(await sim.clock.get()).toEqual({ mode: 'manual', speed: 1, now: START, pendingTimers: 0 });
    expect((await sim.clock.advance('90s')).now).toBe('2026-01-01T00:01:30.000Z');
    expect((await sim.clock.advance(500)).now).toBe('2026-01-01T00:01:30.500Z');
    expect((await sim.clock.set('2027-05-01T00:00:00Z')).now).toBe('2027-05-01T00:00:00.000Z');
    expect(await sim.clock.configure({ mode: 'real', speed: 5 })).toMatchObject({ mode: 'real', speed: 5 });
  });

  it('releases a delayed response when the test advances the clock, without sleeping', async () => {
    await sim.faults.add({ match: { operation: 'widgets.create' }, effect: { delay: '30s' } });
    const pending = api('POST', '/widgets', { name: 'late' });
    // The request is in the simulator, waiting on the world clock: its timer is pending.
    await expect.poll(async () => (await sim.clock.get()).pendingTimers).toBe(1);
    await sim.clock.advance('30s');
    expect((await pending).status).toBe(201);
  });

  it('lists journal entries with filters and a limit, reads stats, and clears', async () => {
    await api('POST', '/widgets', { name: 'a' });
    await api('GET', '/widgets/a');
    await api('GET', '/widgets/zz');
    expect((await sim.journal.list()).map((e) => e.path)).toEqual(['/widgets', '/widgets/a', '/widgets/zz']);
    expect((await sim.journal.list({ status: 404 })).map((e) => e.path)).toEqual(['/widgets/zz']);
    expect((await sim.journal.list({ operation: 'widgets.*', method: 'get' })).length).toBe(2);
    expect((await sim.journal.list({ resource: 'widgets/a' })).map((e) => e.seq)).toEqual([2]);
    expect((await sim.journal.list({ limit: 1 })).map((e) => e.path)).toEqual(['/widgets/zz']);
    expect((await sim.journal.list({ since: 2 })).map((e) => e.seq)).toEqual([3]);
    expect((await sim.journal.list({ path: '/widgets/*' })).length).toBe(2);
    expect(await sim.journal.stats()).toEqual({ capacity: 10_000, size: 3, dropped: 0, total: 3 });
    await sim.journal.clear();
    expect(await sim.journal.list()).toEqual([]);
  });

  it('reads one journal entry by seq; a 404 once the ring dropped it, a 400 for a bad seq', async () => {
    const small = await startToySim({ journalCapacity: 2 });
    try {
      const client = createSimClient({ baseUrl: small.url });
      const send = (path: string) => fetch(`${small.url}${path}`, { method: 'POST' });
      await send('/widgets');
      await send('/widgets/a/paint');
      const first = await client.journal.get(1);
      expect(first).toMatchObject({ seq: 1, method: 'POST', path: '/widgets', operation: 'widgets.create' });
      expect(first).toEqual((await client.journal.list())[0]);
      await send('/widgets/b/paint');
      await expect(client.journal.get(1)).rejects.toMatchObject({
        status: 404,
        reason: 'NOT_FOUND',
        message: 'no journal entry 1 (never recorded, or dropped since)',
      });
      expect(await client.journal.get(3)).toMatchObject({ seq: 3, path: '/widgets/b/paint', status: 202 });
      await expect(client.journal.get(4)).rejects.toMatchObject({ status: 404 });
      await expect(client.journal.get(1.5)).rejects.toMatchObject({ status: 400, path: 'seq' });
      await expect(client.journal.get(0)).rejects.toMatchObject({ status: 400, path: 'seq' });
      // Per namespace: another namespace's journal has no entry 3.
      await expect(client.withNamespace('other').journal.get(3)).rejects.toMatchObject({ status: 404 });
    } finally {
      await small.close();
    }
  });

  it('finds journal entries by the fault that fired for them', async () => {
    const rule = await sim.faults.add({
      match: { operation: 'widgets.get' },
      trigger: { nth: 2 },
      effect: { http: { status: 500 } },
    });
    await api('GET', '/widgets/a');
    await api('GET', '/widgets/a');
    expect(await sim.journal.list({ fault: rule.id })).toMatchObject([
      { seq: 2, status: 500, faults: [rule.id] },
    ]);
  });

  it('loads scenarios from YAML text and from objects', async () => {
    const yaml = [
      'name: busy',
      'clock: { mode: manual, set: 2030-01-01T00:00:00Z }',
      'seed: { widgets: [{ name: seeded, color: gold }] }',
      'faults:',
      '  - { id: busy, match: { operation: widgets.create }, trigger: { times: 1 }, effect: { error: { status: BUSY } } }',
    ].join('\n');
    expect(await sim.scenarios.load(yaml)).toEqual({
      name: 'busy',
      faults: ['busy'],
      seeded: { widgets: ['seeded'] },
      clock: { mode: 'manual', now: '2030-01-01T00:00:00.000Z' },
    });
    expect((await api('GET', '/widgets/seeded')).body).toEqual({ name: 'seeded', color: 'gold' });
    const other = sim.withNamespace('objects');
    expect(
      await other.scenarios.load({ clock: { advance: '1m' }, faults: [{ effect: { delay: '1s' } }] }),
    ).toMatchObject({
      faults: ['rule-1'],
      clock: { now: '2026-01-01T00:01:00.000Z' },
    });
  });

  it('names the scenario source and line in the error of a broken scenario', async () => {
    const error = await sim.scenarios
      .load('faults:\n  - trigger: { times: 0 }\n    effect: { delay: 1s }\n', { source: 'broken.yaml' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimControlError);
    expect((error as SimControlError).message).toMatch(/^broken\.yaml:2:\d+: trigger\.times/);
  });

  it('serves the control plane OpenAPI document', async () => {
    const doc = await sim.openApi();
    expect(doc.openapi).toBe('3.1.0');
  });

  it('reaches simulator-specific control routes through request()', async () => {
    expect(await sim.request('GET', '/_sim/widgets/kinds')).toEqual({ kinds: ['round', 'square'] });
    expect(await sim.request('POST', '/_sim/widgets/a/repaint', { color: 'blue' })).toEqual({
      name: 'a',
      color: 'blue',
    });
    expect(
      await sim.request('GET', '/_sim/journal', undefined, { query: { status: 200, operation: undefined } }),
    ).toEqual({
      entries: [],
      stats: { capacity: 10_000, size: 0, dropped: 0, total: 0 },
    });
    expect(await sim.request('DELETE', '/_sim/journal')).toBeUndefined();
  });
});

describe('SimControlError', () => {
  it('carries status, reason, message and input path of a 400', async () => {
    const error = await sim.faults
      .add({ match: { operation: 'widgets.get' }, trigger: { times: 0 }, effect: { http: { status: 500 } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimControlError);
    expect(error).toMatchObject({
      name: 'SimControlError',
      status: 400,
      reason: 'INVALID_INPUT',
      path: 'trigger.times',
      request: { method: 'POST', url: `${toy.url}/_sim/faults` },
    });
    expect((error as SimControlError).message).toMatch(/^trigger\.times: /);
    expect(String(error)).toMatch(
      /^SimControlError: POST http:\/\/127\.0\.0\.1:\d+\/_sim\/faults → 400 INVALID_INPUT at trigger\.times: /,
    );
  });

  it('is a 404 NOT_FOUND for an unknown rule or namespace', async () => {
    await expect(sim.faults.get('nope')).rejects.toMatchObject({
      status: 404,
      reason: 'NOT_FOUND',
      message: 'no fault rule "nope"',
    });
    await expect(sim.faults.remove('nope')).rejects.toBeInstanceOf(SimControlError);
    await expect(sim.namespaces.delete('never-used')).rejects.toMatchObject({
      status: 404,
      reason: 'NOT_FOUND',
    });
  });

  it('says so when an answer is not the control envelope', async () => {
    // An emulated-API path: unknown /_sim routes answer in the control envelope themselves.
    const error = await sim.request('GET', '/no-such-route').catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 404,
      reason: 'UNEXPECTED_RESPONSE',
      body: '{"toyError":"no such route"}',
    });
    expect((error as Error).message).toMatch(/without the control-plane error envelope: \{"toyError"/);
  });

  it('turns an invalid namespace into a 400 that names it', async () => {
    await expect(sim.withNamespace('not a name!').faults.list()).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^invalid namespace "not a name!"/),
    });
  });
});

describe('admin token', () => {
  it('is sent with every call, and health needs none', async () => {
    const guarded = await startToySim({ adminToken: 's3cret' });
    try {
      const without = createSimClient({ baseUrl: guarded.url });
      expect((await without.health()).status).toBe('ok');
      await expect(without.faults.list()).rejects.toMatchObject({ status: 401, reason: 'UNAUTHENTICATED' });
      await expect(
        createSimClient({ baseUrl: guarded.url, adminToken: 'wrong' }).faults.list(),
      ).rejects.toMatchObject({
        status: 401,
      });
      const withToken = createSimClient({ baseUrl: guarded.url, adminToken: 's3cret' });
      expect(await withToken.faults.list()).toEqual([]);
      expect(await withToken.withNamespace('other').clock.get()).toMatchObject({ mode: 'manual' });
    } finally {
      await guarded.close();
    }
  });
});

describe('namespaces', () => {
  it('keeps worlds apart and deletes them', async () => {
    const a = createSimClient({ baseUrl: toy.url, namespace: 'team-a' });
    const b = a.withNamespace('team-b');
    expect(b.namespace).toBe('team-b');
    await a.seed({ widgets: [{ name: 'w', color: 'red' }] });
    await b.faults.add({ effect: { delay: '1s' } });
    await a.clock.advance('1h');
    expect((await a.state.export()).state).toEqual({ widgets: [{ name: 'w', color: 'red' }] });
    expect((await b.state.export()).state).toEqual({ widgets: [] });
    expect(await a.faults.list()).toEqual([]);
    expect((await b.clock.get()).now).toBe(START);
    expect((await sim.namespaces.list()).sort()).toEqual(['team-a', 'team-b']);
    await sim.namespaces.delete('team-a');
    expect(await sim.namespaces.list()).toEqual(['team-b']);
  });

  it('creates a namespace ahead of its first use, and says when it already existed', async () => {
    expect(await sim.namespaces.create('team-c')).toEqual({ namespace: 'team-c', created: true });
    expect(await sim.namespaces.list()).toEqual(['team-c']);
    expect((await sim.health()).namespaces).toBe(1);
    // The created world is a fresh one, used as is by a client of that namespace.
    const c = sim.withNamespace('team-c');
    await c.seed({ widgets: [{ name: 'w', color: 'teal' }] });
    expect(await sim.namespaces.create('team-c')).toEqual({ namespace: 'team-c', created: false });
    expect((await c.state.export()).state).toEqual({ widgets: [{ name: 'w', color: 'teal' }] });
    expect(await sim.namespaces.list()).toEqual(['team-c']);
    await sim.namespaces.delete('team-c');
    expect(await sim.namespaces.list()).toEqual([]);
  });

  it('refuses to create a namespace with an invalid name, with a 400 that names it', async () => {
    const error = await sim.namespaces.create('not a name!').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimControlError);
    expect(error).toMatchObject({
      status: 400,
      reason: 'INVALID_INPUT',
      path: 'name',
      message: expect.stringMatching(/^invalid namespace "not a name!": 1-63 letters/),
    });
    await expect(sim.namespaces.create('-leading-dash')).rejects.toMatchObject({ status: 400 });
    await expect(sim.namespaces.create('x'.repeat(64))).rejects.toMatchObject({ status: 400 });
    expect(await sim.namespaces.list()).toEqual([]);
  });

  it('sends X-Sim-Namespace through an injected fetch', async () => {
    const seen: { url: string; headers: Record<string, string> }[] = [];
    const spy: typeof fetch = (input, init) => {
      seen.push({ url: String(input), headers: init?.headers as Record<string, string> });
      return fetch(input, init);
    };
    const client = createSimClient({
      baseUrl: `${toy.url}/`,
      namespace: 'spied',
      adminToken: 't',
      fetch: spy,
    });
    await client.clock.get();
    expect(seen).toEqual([
      {
        url: `${toy.url}/_sim/clock`,
        headers: { accept: 'application/json', 'X-Sim-Namespace': 'spied', 'X-Sim-Admin-Token': 't' },
      },
    ]);
  });

  it('takes the namespace from a /_ns/<name> base URL, and withNamespace replaces it', async () => {
    const prefixed = createSimClient({ baseUrl: `${toy.url}/_ns/by-prefix` });
    expect(prefixed.namespace).toBe('by-prefix');
    await prefixed.seed({ widgets: [{ name: 'p', color: 'pink' }] });
    expect((await api('GET', '/_ns/by-prefix/widgets/p')).status).toBe(200);
    const moved = prefixed.withNamespace('elsewhere');
    expect(moved.baseUrl).toBe(toy.url);
    expect((await moved.state.export()).namespace).toBe('elsewhere');
  });
});

describe('journal.wait and journal.waitFor', () => {
  it('resolve at once with an entry that already exists', async () => {
    await api('GET', '/widgets/a');
    expect(await sim.journal.wait({ operation: 'widgets.get' })).toMatchObject({ seq: 1, status: 404 });
    expect(await sim.journal.waitFor({ path: '/widgets/a' })).toMatchObject({ seq: 1 });
  });

  it('resolve as soon as the awaited request arrives', async () => {
    const waiting = sim.journal.waitFor({ operation: 'widgets.create', status: 201 }, { timeout: '10s' });
    await api('GET', '/widgets/a'); // does not match
    await api('POST', '/widgets', { name: 'now' });
    expect(await waiting).toMatchObject({
      seq: 2,
      operation: 'widgets.create',
      requestBody: { name: 'now' },
    });
  });

  it('wait gives undefined on timeout; waitFor throws, listing recent entries', async () => {
    await api('GET', '/widgets/a');
    expect(await sim.journal.wait({ operation: 'widgets.paint' }, 1)).toBeUndefined();
    const error = await sim.journal
      .waitFor({ operation: 'widgets.paint' }, { timeout: '10ms' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimWaitTimeoutError);
    expect((error as Error).message).toBe(
      'no journal entry matching { operation=widgets.paint } arrived within 10ms (namespace "default"). ' +
        'Most recent entries:\n  #1 GET /widgets/a → 404 widgets.get',
    );
  });

  it('waits only in its own namespace', async () => {
    const other = sim.withNamespace('other');
    const waiting = other.journal.waitFor({ operation: 'widgets.create' }, { timeout: '10s' });
    await api('POST', '/widgets', { name: 'in-default' });
    await api('POST', '/widgets', { name: 'in-other' }, { 'x-sim-namespace': 'other' });
    expect((await waiting).requestBody).toEqual({ name: 'in-other' });
  });

  it('passes a bad filter on as a 400', async () => {
    await expect(sim.journal.wait({ since: -1 })).rejects.toMatchObject({ status: 400, path: 'since' });
  });
});
