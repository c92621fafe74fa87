import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { serverEventRecords } from '../../src/domain/events/server-events';
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
