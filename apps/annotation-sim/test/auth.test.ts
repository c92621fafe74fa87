import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

describe('authentication', () => {
  it('returns 401 with WWW-Authenticate: Token when no credentials are sent', async () => {
    h = createHarness();
    const res = await h.get('/api/projects');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(res.headers.get('www-authenticate')).toBe('Token');
    expect(res.headers.get('content-type')).toBe('application/vnd.cvat+json');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs in with username and password and returns the token key with session cookies', async () => {
    h = createHarness();
    const res = await h.post('/api/auth/login', { username: 'admin', password: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ key: expect.stringMatching(/^[0-9a-f]{40}$/) });
    const cookies = res.headers.getSetCookie().join('\n');
    expect(cookies).toMatch(/csrftoken=[0-9a-f]{32}/);
    expect(cookies).toMatch(/sessionid=[0-9a-f]{32}/);
    const self = await h.get('/api/users/self', { token: res.body.key });
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ id: 1, username: 'admin', is_superuser: true });
    // The journal shows the login with its password and the token it answered redacted.
    const journal = await h.sim.app.request('/_sim/journal?operation=auth.create_login');
    const [entry] = ((await journal.json()) as { entries: { requestBody: unknown; responseBody: unknown }[] })
      .entries;
    expect(entry?.requestBody).toEqual({ username: 'admin', password: '[REDACTED]' });
    expect(entry?.responseBody).toEqual({ key: '[REDACTED]' });
  });

  it('returns the same token key on a second login', async () => {
    h = createHarness();
    const a = await h.post('/api/auth/login', { username: 'admin', password: 'admin' });
    const b = await h.post('/api/auth/login', { email: 'admin@localhost', password: 'admin' });
    expect(b.body.key).toBe(a.body.key);
  });

  it('returns 400 non_field_errors for wrong credentials', async () => {
    h = createHarness();
    const res = await h.post('/api/auth/login', { username: 'admin', password: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['Unable to log in with provided credentials.'] });
  });

  it('returns 401 "Invalid token." for an unknown token', async () => {
    h = createHarness();
    const res = await h.get('/api/projects', { token: 'deadbeef' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid token.' });
  });

  it('names the malformed token header like DRF', async () => {
    h = createHarness();
    const empty = await h.get('/api/projects', { headers: { authorization: 'Token' } });
    expect(empty.body).toEqual({ detail: 'Invalid token header. No credentials provided.' });
    const spaces = await h.get('/api/projects', { headers: { authorization: 'Token a b' } });
    expect(spaces.body).toEqual({ detail: 'Invalid token header. Token string should not contain spaces.' });
  });

  it('accepts Basic auth and rejects a wrong password with "Invalid username/password."', async () => {
    h = createHarness();
    expect((await h.get('/api/users/self', { as: 'admin' })).status).toBe(200);
    const bad = await h.get('/api/users/self', {
      headers: { authorization: `Basic ${Buffer.from('admin:x').toString('base64')}` },
    });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ detail: 'Invalid username/password.' });
  });

  it('accepts a Bearer personal access token and refuses writes with a read-only one', async () => {
    h = createHarness();
    h.seed({
      users: [
        { username: 'pat', access_tokens: [{ key: 'rw-token' }, { key: 'ro-token', read_only: true }] },
      ],
    });
    const ok = await h.get('/api/users/self', { headers: { authorization: 'Bearer rw-token' } });
    expect(ok.body.username).toBe('pat');
    const bad = await h.get('/api/users/self', { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ detail: 'Invalid token.' });
    const ro = await h.post(
      '/api/projects',
      { name: 'p' },
      { headers: { authorization: 'Bearer ro-token' } },
    );
    expect(ro.status).toBe(403);
  });

  it('issues a personal access token once, which then authenticates as Bearer until it expires', async () => {
    h = createHarness();
    const created = await h.post(
      '/api/auth/access_tokens',
      { name: 'ci', expiry_date: '2026-01-02T00:00:00Z' },
      { as: 'admin' },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 1,
      name: 'ci',
      read_only: false,
      expiry_date: '2026-01-02T00:00:00Z',
      owner: { username: 'admin' },
    });
    const bearer = { headers: { authorization: `Bearer ${created.body.value}` } };
    expect((await h.get('/api/auth/access_tokens/self', bearer)).body).not.toHaveProperty('value');
    expect((await h.get('/api/users/self', bearer)).body.username).toBe('admin');
    h.advance('1d');
    expect((await h.get('/api/users/self', bearer)).status).toBe(401);
  });

  it('accepts the session cookie and enforces CSRF on unsafe methods', async () => {
    h = createHarness();
    const login = await h.post('/api/auth/login', { username: 'admin', password: 'admin' });
    const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]);
    const cookie = cookies.join('; ');
    const csrf = (cookies.find((c) => c?.startsWith('csrftoken=')) as string).slice('csrftoken='.length);
    expect((await h.get('/api/users/self', { headers: { cookie } })).status).toBe(200);
    const missing = await h.post('/api/projects', { name: 'p' }, { headers: { cookie } });
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({ detail: 'CSRF Failed: CSRF token missing.' });
    const wrong = await h.post(
      '/api/projects',
      { name: 'p' },
      { headers: { cookie, 'x-csrftoken': 'a'.repeat(32) } },
    );
    expect(wrong.body).toEqual({
      detail: "CSRF Failed: CSRF token from the 'X-Csrftoken' HTTP header incorrect.",
    });
    const origin = await h.post(
      '/api/projects',
      { name: 'p' },
      { headers: { cookie, 'x-csrftoken': csrf, origin: 'http://evil.example' } },
    );
    expect(origin.body).toEqual({
      detail: 'CSRF Failed: Origin checking failed - http://evil.example does not match any trusted origins.',
    });
    const good = await h.post(
      '/api/projects',
      { name: 'p' },
      { headers: { cookie, 'x-csrftoken': csrf, origin: 'http://localhost' } },
    );
    expect(good.status).toBe(201);
  });

  it('answers 406 to an Accept header CVAT cannot satisfy', async () => {
    h = createHarness();
    const res = await h.get('/api/users/self', { as: 'admin', headers: { accept: 'application/json' } });
    expect(res.status).toBe(406);
    expect(res.body).toEqual({ detail: 'Could not satisfy the request Accept header.' });
    expect(
      (await h.get('/api/users/self', { as: 'admin', headers: { accept: 'application/vnd.cvat+json' } }))
        .status,
    ).toBe(200);
  });
});

describe('organization context', () => {
  it('returns 404 "<slug> organization does not exist." for an unknown org', async () => {
    h = createHarness();
    const res = await h.get('/api/projects?org=nope', { as: 'admin' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'nope organization does not exist.' });
    const byId = await h.get('/api/projects', { as: 'admin', headers: { 'x-organization': 'ghost' } });
    expect(byId.body).toEqual({ detail: 'ghost organization does not exist.' });
  });

  it('returns 400 lists for conflicting org selectors', async () => {
    h = createHarness();
    h.seed(TEAM);
    const both = await h.get('/api/projects?org=acme&org_id=1', { as: 'admin' });
    expect(both.status).toBe(400);
    expect(both.body).toEqual([
      'You cannot specify "org_id" query parameter with "org" query parameter or "X-Organization" HTTP header at the same time.',
    ]);
    const differ = await h.get('/api/projects?org=acme', {
      as: 'admin',
      headers: { 'x-organization': 'other' },
    });
    expect(differ.body).toEqual([
      'You cannot specify "org" query parameter and "X-Organization" HTTP header with different values.',
    ]);
  });

  it('returns 403 to a non-member listing in an organization', async () => {
    h = createHarness();
    h.seed(TEAM);
    const res = await h.get('/api/tasks?org=acme', { as: 'outsider' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'You do not have permission to perform this action.' });
  });
});
