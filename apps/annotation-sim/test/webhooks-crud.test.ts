import { PaginatedWebhookReadList, WebhookEvents, WebhookRead } from '@sims/annotation-schema';
import { afterEach, describe, expect, it } from 'vitest';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

function setup() {
  h = createHarness();
  return h.seed({
    ...TEAM,
    projects: [
      { name: 'sandbox-p', owner: 'erin' },
      { name: 'acme-p', owner: 'dave', org: 'acme' },
      { name: 'acme-q', owner: 'alice', org: 'acme' },
    ],
  });
}

describe('POST /api/webhooks', () => {
  it('returns 201 WebhookRead without secret or last_status, owner the caller, organization from the project, events sorted', async () => {
    setup();
    const body = aWebhook()
      .forProject(2)
      .withEvents('update:task', 'create:issue', 'create:task')
      .withSecret('s3cret')
      .to('http://hooks.example.com/p')
      .build();
    const res = await h.post('/api/webhooks?org=acme', body, { as: 'bob' });
    expect(res.status).toBe(201);
    expect(WebhookRead.strict().parse(res.body)).toBeTruthy();
    expect(res.body).toEqual({
      id: 1,
      url: 'http://localhost/api/webhooks/1',
      target_url: 'http://hooks.example.com/p',
      description: '',
      type: 'project',
      content_type: 'application/json',
      is_active: true,
      enable_ssl: true,
      created_date: '2026-01-01T00:00:00Z',
      updated_date: '2026-01-01T00:00:00Z',
      owner: { url: 'http://localhost/api/users/3', id: 3, username: 'bob', first_name: '', last_name: '' },
      project_id: 2,
      organization: 1,
      events: ['create:issue', 'create:task', 'update:task'],
    });
  });

  it('copies the organization from the project whatever org parameter is sent', async () => {
    setup();
    const res = await h.post('/api/webhooks', aWebhook().forProject(2).build(), { as: 'admin' });
    expect(res.body.organization).toBe(1);
  });

  it.each(['target_url', 'events', 'type'])(
    'returns 400 "This field is required." without %s',
    async (field) => {
      setup();
      const res = await h.post('/api/webhooks', aWebhook().forProject(1).without(field).build(), {
        as: 'admin',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ [field]: ['This field is required.'] });
    },
  );

  it('returns 400 when target_url is not a URL', async () => {
    setup();
    for (const url of ['http://webhooks:2020/payload', 'not a url', 'gopher://x.example.com']) {
      const res = await h.post('/api/webhooks', aWebhook().forProject(1).to(url).build(), { as: 'erin' });
      expect(res.status, url).toBe(400);
      expect(res.body).toEqual({ target_url: ['Enter a valid URL.'] });
    }
  });

  it('accepts localhost, IP and .internal targets', async () => {
    setup();
    for (const url of [
      'http://localhost:8080/x',
      'http://127.0.0.1:1/x',
      'http://webhooks.internal',
      'https://[::1]:8443/h',
    ]) {
      const res = await h.post('/api/webhooks', aWebhook().forProject(1).to(url).build(), { as: 'erin' });
      expect(res.status, url).toBe(201);
    }
  });

  it('returns 400 for over-length fields', async () => {
    setup();
    const res = await h.post(
      '/api/webhooks',
      aWebhook()
        .forProject(1)
        .with({ description: 'd'.repeat(129), secret: 's'.repeat(65) })
        .build(),
      { as: 'erin' },
    );
    expect(res.body).toEqual({
      description: ['Ensure this field has no more than 128 characters.'],
      secret: ['Ensure this field has no more than 64 characters.'],
    });
  });

  it('returns 400 for an unknown event key and for a key not allowed on project webhooks', async () => {
    setup();
    const unknown = await h.post(
      '/api/webhooks',
      aWebhook().forProject(1).withEvents('create:task', 'some:event').build(),
      { as: 'erin' },
    );
    expect(unknown.body).toEqual({ events: ['"some:event" is not a valid choice.'] });
    const notAllowed = await h.post(
      '/api/webhooks',
      aWebhook().forProject(1).withEvents('update:organization').build(),
      { as: 'erin' },
    );
    expect(notAllowed.status).toBe(400);
    expect(notAllowed.body).toEqual({ non_field_errors: ['Invalid events list for project webhook'] });
    const organization = await h.post(
      '/api/webhooks',
      aWebhook().forProject(1).withEvents('create:organization').build(),
      { as: 'erin' },
    );
    expect(organization.body).toEqual({ events: ['"create:organization" is not a valid choice.'] });
  });

  it('accepts an empty events list and de-duplicates events', async () => {
    setup();
    const empty = await h.post('/api/webhooks', aWebhook().forProject(1).withEvents().build(), {
      as: 'erin',
    });
    expect(empty.body.events).toEqual([]);
    const dup = await h.post(
      '/api/webhooks',
      aWebhook().forProject(1).withEvents('create:task', 'create:task').build(),
      { as: 'erin' },
    );
    expect(dup.body.events).toEqual(['create:task']);
  });

  it('returns 400 field errors for type and content_type outside their enums (admin)', async () => {
    setup();
    const type = await h.post('/api/webhooks', aWebhook().forProject(1).with({ type: 'some_type' }).build(), {
      as: 'admin',
    });
    expect(type.body).toEqual({ type: ['"some_type" is not a valid choice.'] });
    const ct = await h.post(
      '/api/webhooks',
      aWebhook().forProject(1).with({ content_type: 'text/plain' }).build(),
      { as: 'admin' },
    );
    expect(ct.body).toEqual({ content_type: ['"text/plain" is not a valid choice.'] });
  });

  it('returns 403 to a non-admin sending a type outside the enum', async () => {
    setup();
    const res = await h.post('/api/webhooks', aWebhook().forProject(1).with({ type: 'some_type' }).build(), {
      as: 'erin',
    });
    expect(res.status).toBe(403);
  });

  it('returns 500 for a project webhook without project_id and for an organization webhook with one (CVAT quirk)', async () => {
    setup();
    const noProject = await h.post('/api/webhooks', aWebhook().with({ type: 'project' }).build(), {
      as: 'admin',
    });
    expect(noProject.status).toBe(500);
    // Django's own 500 page: `content_type="text/html"`, no charset.
    expect(noProject.headers.get('content-type')).toBe('text/html');
    expect(noProject.text).toContain('<title>Server Error (500)</title>');
    const orgWithProject = await h.post(
      '/api/webhooks?org=acme',
      aWebhook().forProject(2).with({ type: 'organization' }).build(),
      { as: 'admin' },
    );
    expect(orgWithProject.status).toBe(500);
  });

  it('returns 400 instead of 500 when the constraint quirk is switched off', async () => {
    h = createHarness({ quirks: { webhookConstraint500: false } });
    const res = await h.post('/api/webhooks', aWebhook().with({ type: 'project' }).build(), { as: 'admin' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ project_id: ['A project webhook needs project_id.'] });
  });

  it('returns 400 list "Could not find project with provided id: N" for an unknown project', async () => {
    setup();
    const res = await h.post('/api/webhooks', aWebhook().forProject(42).build(), { as: 'erin' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(['Could not find project with provided id: 42']);
  });

  it('returns 404 for an organization that does not exist', async () => {
    setup();
    for (const q of ['?org=ghost', '?org_id=77']) {
      const res = await h.post(`/api/webhooks${q}`, aWebhook().forOrganization().build(), { as: 'admin' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: `${q.split('=')[1]} organization does not exist.` });
    }
  });
});

describe('webhook permissions', () => {
  it('lets a sandbox project owner with user privilege create a project webhook', async () => {
    setup();
    expect((await h.post('/api/webhooks', aWebhook().forProject(1).build(), { as: 'erin' })).status).toBe(
      201,
    );
  });

  it('forbids worker-privilege users and non-owners in the sandbox', async () => {
    setup();
    h.seed({ projects: [{ name: 'w-p', owner: 'wanda' }], tasks: [] });
    expect((await h.post('/api/webhooks', aWebhook().forProject(4).build(), { as: 'wanda' })).status).toBe(
      403,
    );
    expect((await h.post('/api/webhooks', aWebhook().forProject(1).build(), { as: 'outsider' })).status).toBe(
      403,
    );
  });

  it('in an org: maintainer and owner create any, a worker only on a project he owns, a supervisor not on others', async () => {
    setup();
    const org = { headers: { 'x-organization': 'acme' } };
    expect(
      (await h.post('/api/webhooks', aWebhook().forProject(3).build(), { as: 'bob', ...org })).status,
    ).toBe(201);
    expect(
      (await h.post('/api/webhooks', aWebhook().forProject(3).build(), { as: 'alice', ...org })).status,
    ).toBe(201);
    expect(
      (await h.post('/api/webhooks', aWebhook().forProject(2).build(), { as: 'dave', ...org })).status,
    ).toBe(201);
    expect(
      (await h.post('/api/webhooks', aWebhook().forProject(3).build(), { as: 'dave', ...org })).status,
    ).toBe(403);
    expect(
      (await h.post('/api/webhooks', aWebhook().forProject(3).build(), { as: 'carol', ...org })).status,
    ).toBe(403);
  });

  it('requires maintainer or owner for organization webhooks, and admin in the sandbox', async () => {
    setup();
    const org = { headers: { 'x-organization': 'acme' } };
    const orgHook = aWebhook().forOrganization().withEvents('update:organization').build();
    expect((await h.post('/api/webhooks', orgHook, { as: 'carol', ...org })).status).toBe(403);
    const created = await h.post('/api/webhooks', orgHook, { as: 'bob', ...org });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'organization', project_id: null, organization: 1 });
    expect((await h.post('/api/webhooks', orgHook, { as: 'erin' })).status).toBe(403);
  });

  it('checks object permissions under the webhook own organization and 404s before 403', async () => {
    setup();
    const created = await h.post('/api/webhooks?org=acme', aWebhook().forProject(3).build(), { as: 'bob' });
    const id = created.body.id;
    expect((await h.get(`/api/webhooks/${id}`, { as: 'dave' })).status).toBe(403);
    expect((await h.get(`/api/webhooks/${id}`, { as: 'alice' })).status).toBe(200);
    expect((await h.get(`/api/webhooks/${id}?org=`, { as: 'bob' })).status).toBe(200);
    expect((await h.get(`/api/webhooks/${id}`, { as: 'outsider' })).status).toBe(403);
    const missing = await h.get('/api/webhooks/999', { as: 'outsider' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'No Webhook matches the given query.' });
  });

  it('returns 403 to a non-member listing with an org parameter', async () => {
    setup();
    const res = await h.get('/api/webhooks?org=acme', { as: 'outsider' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'You do not have permission to perform this action.' });
  });
});

describe('GET/PATCH/PUT/DELETE /api/webhooks', () => {
  it('lists by visibility: org="" gives sandbox webhooks only, admins see all', async () => {
    setup();
    await h.post('/api/webhooks', aWebhook().forProject(1).build(), { as: 'erin' });
    await h.post('/api/webhooks?org=acme', aWebhook().forProject(2).build(), { as: 'dave' });
    await h.post('/api/webhooks?org=acme', aWebhook().forProject(3).build(), { as: 'bob' });
    const ids = (b: { results: { id: number }[] }) => b.results.map((w) => w.id);
    const admin = await h.get('/api/webhooks', { as: 'admin' });
    expect(PaginatedWebhookReadList.parse(admin.body)).toBeTruthy();
    expect(ids(admin.body)).toEqual([3, 2, 1]);
    expect(ids((await h.get('/api/webhooks?org=', { as: 'admin' })).body)).toEqual([1]);
    expect(ids((await h.get('/api/webhooks?org=acme', { as: 'dave' })).body)).toEqual([2]);
    expect(ids((await h.get('/api/webhooks?org=acme', { as: 'bob' })).body)).toEqual([3, 2]);
    expect(ids((await h.get('/api/webhooks', { as: 'dave' })).body)).toEqual([2]);
    expect(ids((await h.get('/api/webhooks?sort=id&project_id=2', { as: 'admin' })).body)).toEqual([2]);
    expect(ids((await h.get('/api/webhooks?search=bob', { as: 'admin' })).body)).toEqual([3]);
    expect(
      ids(
        (
          await h.get(`/api/webhooks?filter=${encodeURIComponent('{"==":[{"var":"owner"},"dave"]}')}`, {
            as: 'admin',
          })
        ).body,
      ),
    ).toEqual([2]);
  });

  it('PATCH ignores type and project_id and re-sorts events', async () => {
    setup();
    const created = await h.post('/api/webhooks', aWebhook().forProject(1).build(), { as: 'erin' });
    h.advance('1s');
    const res = await h.patch(
      `/api/webhooks/${created.body.id}`,
      { type: 'organization', project_id: 2, events: ['delete:task', 'create:job'], is_active: false },
      { as: 'erin' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'project',
      project_id: 1,
      events: ['create:job', 'delete:task'],
      is_active: false,
      updated_date: '2026-01-01T00:00:01Z',
    });
    const invalid = await h.patch(
      `/api/webhooks/${created.body.id}`,
      { events: ['update:organization'] },
      { as: 'erin' },
    );
    expect(invalid.body).toEqual({ non_field_errors: ['Invalid events list for project webhook'] });
  });

  it('PUT requires target_url and events but not type', async () => {
    setup();
    const created = await h.post('/api/webhooks', aWebhook().forProject(1).build(), { as: 'erin' });
    const missing = await h.put(`/api/webhooks/${created.body.id}`, { description: 'x' }, { as: 'erin' });
    expect(missing.body).toEqual({
      target_url: ['This field is required.'],
      events: ['This field is required.'],
    });
    const ok = await h.put(
      `/api/webhooks/${created.body.id}`,
      { target_url: 'http://a.example.com/', events: ['create:task'] },
      { as: 'erin' },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.target_url).toBe('http://a.example.com/');
  });

  it('DELETE returns 204 and a later GET returns 404', async () => {
    setup();
    const created = await h.post('/api/webhooks', aWebhook().forProject(1).build(), { as: 'erin' });
    const del = await h.del(`/api/webhooks/${created.body.id}`, { as: 'erin' });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const get = await h.get(`/api/webhooks/${created.body.id}`, { as: 'erin' });
    expect(get.body).toEqual({ detail: 'No Webhook matches the given query.' });
  });
});

describe('GET /api/webhooks/events', () => {
  it('answers anonymous callers with the 2.73 catalogue in declaration order', async () => {
    h = createHarness();
    const all = await h.get('/api/webhooks/events');
    expect(all.status).toBe(200);
    expect(WebhookEvents.parse(all.body)).toBeTruthy();
    expect(all.body.webhook_type).toBe('all');
    expect(all.body.events).toHaveLength(28);
    expect(all.body.events[0]).toEqual({ key: 'create:project', group: { display_name: 'Project' } });
    expect(all.body.events[15]).toEqual({
      key: 'update:organization',
      group: { display_name: 'Organization' },
    });
    const project = await h.get('/api/webhooks/events?type=project');
    expect(project.body.events.map((e: { key: string }) => e.key)).toEqual([
      'create:task',
      'update:task',
      'delete:task',
      'create:job',
      'update:job',
      'delete:job',
      'create:issue',
      'update:issue',
      'delete:issue',
      'create:comment',
      'update:comment',
      'delete:comment',
      'completed:request[export:annotations]',
      'completed:request[export:dataset]',
      'completed:request[export:backup]',
      'completed:request[create:task]',
      'completed:request[merge:task]',
      'completed:request[merge:job]',
      'completed:request[calculate:quality]',
      'update:project',
      'delete:project',
    ]);
  });

  it('returns 400 "Incorrect value of type parameter" as a bare JSON string', async () => {
    h = createHarness();
    const res = await h.get('/api/webhooks/events?type=foo');
    expect(res.status).toBe(400);
    expect(res.text).toBe('"Incorrect value of type parameter"');
  });

  it('still returns 401 for an invalid token', async () => {
    h = createHarness();
    expect((await h.get('/api/webhooks/events', { token: 'bad' })).status).toBe(401);
  });
});
