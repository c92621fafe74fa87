import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { pythonJsonDumps } from '../src/domain/python-json';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

function setup() {
  h = createHarness();
  h.seed({
    ...TEAM,
    organizations: [...(TEAM.organizations ?? []), { slug: 'other', owner: 'outsider' }],
    projects: [
      { name: 'acme-p', owner: 'bob', org: 'acme' },
      { name: 'other-p', owner: 'outsider', org: 'other' },
    ],
  });
}

describe('bad input gets CVAT status and body', () => {
  it('returns DRF type errors for wrongly typed webhook fields', async () => {
    setup();
    const res = await h.post(
      '/api/webhooks?org=acme',
      aWebhook()
        .forProject(1)
        .with({ is_active: 'maybe', enable_ssl: [], description: true, events: 'create:task' })
        .build(),
      { as: 'bob' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      description: ['Not a valid string.'],
      is_active: ['Must be a valid boolean.'],
      enable_ssl: ['Must be a valid boolean.'],
      events: ['Expected a list of items but got type "str".'],
    });
  });

  it('forbids a project webhook for a project of a foreign organization', async () => {
    setup();
    const res = await h.post('/api/webhooks?org=acme', aWebhook().forProject(2).build(), { as: 'bob' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'You do not have permission to perform this action.' });
  });

  it('forbids reading and changing resources of a foreign organization', async () => {
    setup();
    expect((await h.get('/api/projects/2', { as: 'bob' })).status).toBe(403);
    expect((await h.patch('/api/projects/2', { name: 'x' }, { as: 'bob' })).status).toBe(403);
    expect((await h.get('/api/projects?org=other', { as: 'bob' })).status).toBe(403);
  });

  it('returns the django-filter error for a bad webhook type filter', async () => {
    setup();
    const res = await h.get('/api/webhooks?type=foo', { as: 'admin' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: ['Select a valid choice. foo is not one of the available choices.'] });
  });

  it('returns 400 lists for bad JSON-logic filters and ignores an empty one', async () => {
    setup();
    expect((await h.get('/api/webhooks?filter=', { as: 'admin' })).status).toBe(200);
    expect((await h.get('/api/webhooks?filter=%7B%7D', { as: 'admin' })).body).toEqual([
      "filter shouldn't be empty",
    ]);
    const term = await h.get(`/api/webhooks?filter=${encodeURIComponent('{"==":[{"var":"secret"},"x"]}')}`, {
      as: 'admin',
    });
    expect(term.body).toEqual(["filter: term 'secret' is not supported"]);
  });

  it('returns 404 for a non-numeric delivery id and 500 for an unknown one on redelivery', async () => {
    setup();
    const w = await h.post('/api/webhooks?org=acme', aWebhook().forProject(1).build(), { as: 'bob' });
    expect(
      (await h.post(`/api/webhooks/${w.body.id}/deliveries/abc/redelivery`, undefined, { as: 'bob' })).status,
    ).toBe(404);
    expect(
      (await h.post(`/api/webhooks/${w.body.id}/deliveries/5/redelivery`, undefined, { as: 'bob' })).status,
    ).toBe(500);
  });
});

describe('pythonJsonDumps (property)', () => {
  it('always yields ASCII that parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = pythonJsonDumps(value, { floatKeys: new Set() });
        expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
