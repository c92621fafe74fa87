import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { serverEventRecords } from '../../src/domain/events/server-events';
import { pythonStr as pyStr, renderDrfJson } from '../../src/domain/python-json';
import { createHarness, type Harness, START_MS } from './support/harness';

const csvRows = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

let h: Harness;
afterEach(() => h?.close());

const actor = {
  id: 2,
  username: 'alice',
  email: 'alice@example.com',
  requestId: 'b9d1c0a4-1111-4222-8333-444455556666',
};
const task = {
  url: 'http://localhost/api/tasks/3',
  id: 3,
  name: 'Street signs',
  project_id: 1,
  mode: 'annotation',
  owner: { url: 'http://localhost/api/users/2', id: 2, username: 'alice' },
  assignee: null,
  status: 'annotation',
  organization: null,
  labels: { count: 2 },
  segment_size: 5,
};

describe('server events', () => {
  it('logs one create row with CVAT object fields and a cleaned, compact payload', () => {
    const [r, ...rest] = serverEventRecords(
      { scope: 'create:task', resource: task, actor, org: null, time: START_MS },
      0,
    );
    expect(rest).toEqual([]);
    expect(r).toEqual({
      scope: 'create:task',
      obj_id: 3,
      obj_name: 'Street signs',
      obj_val: null,
      source: 'server',
      timestamp: START_MS,
      count: null,
      duration: 0,
      project_id: 1,
      task_id: 3,
      job_id: null,
      user_id: 2,
      user_name: 'alice',
      user_email: 'alice@example.com',
      org_id: null,
      org_slug: null,
      payload:
        '{"project_id":1,"mode":"annotation","owner":{"id":2,"username":"alice"},"assignee":null,"status":"annotation","labels":{"count":2},"segment_size":5,"request":{"id":"b9d1c0a4-1111-4222-8333-444455556666"}}',
      access_token_id: null,
    });
  });

  it('logs one update row per changed field, with the new value as Python str() and the old one in the payload', () => {
    const before = { ...task, name: 'Old', assignee: null, segment_size: 5 };
    const after = {
      ...task,
      name: 'New',
      assignee: { url: 'x', id: 4, username: 'carol' },
      labels: { count: 3 },
    };
    const rows = serverEventRecords(
      { scope: 'update:task', resource: after, before, actor, org: { id: 10, slug: 'acme' } },
      START_MS,
    );
    expect(rows.map((r) => [r.obj_name, r.obj_id, r.obj_val, r.payload])).toEqual([
      ['name', null, 'New', '{"old_value":"Old","request":{"id":"b9d1c0a4-1111-4222-8333-444455556666"}}'],
      [
        'assignee',
        4,
        "{'id': 4, 'username': 'carol'}",
        '{"old_value":null,"request":{"id":"b9d1c0a4-1111-4222-8333-444455556666"}}',
      ],
    ]);
    expect(rows.every((r) => r.scope === 'update:task' && r.org_id === 10 && r.org_slug === 'acme')).toBe(
      true,
    );
  });

  it('logs delete rows with the object fields only', () => {
    const [r] = serverEventRecords(
      { scope: 'delete:job', resource: { id: 9, task_id: 3, project_id: 1 }, actor: null },
      START_MS,
    );
    expect(r).toMatchObject({
      scope: 'delete:job',
      obj_id: 9,
      obj_name: null,
      job_id: 9,
      task_id: 3,
      project_id: 1,
      user_id: null,
    });
    expect(r?.payload).toBe('{"request":{}}');
  });

  it('uses name, username, display_name and message as obj_name the way CVAT picks them', () => {
    const name = (scope: string, resource: Record<string, unknown>) =>
      serverEventRecords({ scope, resource }, 0)[0]?.obj_name;
    expect(name('create:project', { id: 1, name: 'P' })).toBe('P');
    expect(name('create:organization', { id: 1, name: 'Acme', slug: 'acme' })).toBe('Acme');
    expect(name('create:user', { id: 1, username: 'u' })).toBe('u');
    expect(name('create:comment', { id: 1, message: 'hi', issue: 4 })).toBe('hi');
    expect(name('create:issue', { id: 1, job: 4 })).toBeNull();
    expect(name('create:job', { id: 1 })).toBeNull();
  });

  it('writes an empty e-mail as NULL and carries the access token id', () => {
    const [r] = serverEventRecords(
      {
        scope: 'create:project',
        resource: { id: 1, name: 'P' },
        actor: { id: 3, username: 'bob', email: '' },
        accessTokenId: 12,
      },
      0,
    );
    expect(r).toMatchObject({ user_email: null, access_token_id: 12 });
  });

  it('logs nothing for scopes CVAT does not log (invitation updates, webhooks pings)', () => {
    expect(serverEventRecords({ scope: 'update:invitation', resource: { key: 'k' } }, 0)).toEqual([]);
    expect(serverEventRecords({ scope: 'ping', resource: {} }, 0)).toEqual([]);
  });

  it('puts resource changes into the exported log without the test writing them', async () => {
    h = createHarness();
    h.emit({ scope: 'create:project', resource: { id: 1, name: 'P' }, actor, org: null });
    h.emit({ scope: 'create:task', resource: task, actor, org: null });
    h.emit({ scope: 'delete:task', resource: task, actor, org: null });
    const start = await h.request('/api/events/export?project_id=1', { method: 'POST' });
    const { rq_id } = (await start.json()) as { rq_id: string };
    await h.advance('2s');
    const res = await h.request(`/api/events/download?rq_id=${encodeURIComponent(rq_id)}`);
    const rows = csvRows(await res.text());
    expect(rows.map((r) => r.scope)).toEqual(['create:project', 'create:task', 'delete:task']);
  });

  it('drops server events while the store is disconnected', () => {
    h = createHarness();
    h.events().settings.storeConnected = false;
    h.emit({ scope: 'create:project', resource: { id: 1, name: 'P' } });
    expect(h.events().store.length).toBe(0);
  });
});

describe('server events of updates (property)', () => {
  // The plain definition: every field of the new representation but labels and url whose value is not
  // deeply equal to the old one is a row; its payload is DRF JSON of {old_value, request}.
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  const stripUrl = (v: unknown) =>
    isObj(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'url')) : v;
  const deepEqual = (a: unknown, b: unknown): boolean => {
    if (a === b) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  };
  const expectedRows = (r: Record<string, unknown>, before: Record<string, unknown>, request: unknown) =>
    Object.entries(r)
      .filter(([k, v]) => k !== 'labels' && k !== 'url' && !deepEqual(before[k] ?? null, v ?? null))
      .map(([k, v]) => ({
        obj_name: k,
        obj_id: isObj(v) && typeof v.id === 'number' && Number.isInteger(v.id) ? v.id : null,
        obj_val: pyStr(stripUrl(v) ?? null),
        payload: renderDrfJson({ old_value: stripUrl(before[k]) ?? null, request }),
      }));

  const leaf = fc.oneof(
    fc.constant(null),
    fc.constant(undefined),
    fc.boolean(),
    fc.integer({ min: -3, max: 3 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom('', 'a', 'é"\\\n', '2026-01-01T00:00:00Z'),
  );
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, leaf, tie('arr'), tie('obj')),
    arr: fc.array(tie('v'), { maxLength: 3 }),
    obj: fc.dictionary(fc.constantFrom('id', 'url', 'name', 'count', 'x'), tie('v'), { maxKeys: 4 }),
  })).v;
  const keys = fc.constantFrom(
    'name',
    'url',
    'labels',
    'owner',
    'assignee',
    'status',
    'jobs',
    'subset',
    'id',
  );

  it('writes exactly the plain definition`s rows, in the field order of the new representation', () => {
    fc.assert(
      fc.property(
        fc.dictionary(keys, value, { maxKeys: 8 }),
        fc.dictionary(keys, value, { maxKeys: 8 }),
        fc.boolean(),
        (resource, before, sameObjects) => {
          // Often the old representation shares values (or equal copies) with the new one.
          const old = sameObjects ? { ...before, ...structuredClone(resource), name: before.name } : before;
          const change = { scope: 'update:task', resource, before: old, actor, org: null, time: START_MS };
          const rows = serverEventRecords(change, 0);
          expect(
            rows.map(({ obj_name, obj_id, obj_val, payload }) => ({ obj_name, obj_id, obj_val, payload })),
          ).toEqual(expectedRows(resource, old, { id: actor.requestId }));
          const [deleted] = serverEventRecords({ ...change, scope: 'delete:task' }, 0);
          for (const row of rows) {
            const { obj_name: _n, obj_id: _i, obj_val: _v, payload: _p, ...rest } = row;
            const { obj_name: _dn, obj_id: _di, obj_val: _dv, payload: _dp, ...deletedRest } = deleted ?? {};
            expect(rest).toEqual({ ...deletedRest, scope: 'update:task' });
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
