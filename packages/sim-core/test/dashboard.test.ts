import { describe, expect, it } from 'vitest';
import type { SimulatorDefinition } from '../src/definition';
import { createSimKernel, type KernelOptions } from '../src/http/kernel';
import { createJournal, type JournalEntry } from '../src/journal';
import { createJournalBudget } from '../src/journal-budget';
import { call } from './support/http';
import { createToySim, type ToyState, toyDefinition } from './support/toy-simulator';

const START = '2026-01-01T00:00:00.000Z';
const JS = 'document.body.dataset.ready = "yes";';
const CSS = 'body { margin: 0 }';
const TOKEN = 's3cret';
const COOKIE = 'sims_admin_toy_sim';

/** The toy simulator with a dashboard whose assets are counted as they are loaded. */
function dashboardSim(options: KernelOptions = {}, extra: Partial<SimulatorDefinition<ToyState>> = {}) {
  const loads = { count: 0 };
  const def: SimulatorDefinition<ToyState> = {
    ...toyDefinition,
    dashboard: async () => {
      loads.count++;
      return { js: JS, css: CSS };
    },
    ...extra,
  };
  const kernel = createSimKernel(def, { seed: 1, clock: { mode: 'manual', start: START }, ...options });
  return { ...kernel, loads };
}

const get = (
  app: { request: (path: string, init?: RequestInit) => Response | Promise<Response> },
  path: string,
  headers: Record<string, string> = {},
) => app.request(path, { headers });

/** POSTs an HTML form (application/x-www-form-urlencoded) to the sign-in. */
const signIn = (
  app: { request: (path: string, init?: RequestInit) => Response | Promise<Response> },
  fields: Record<string, string>,
  path = '/_sim/ui/login',
) =>
  app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

function expectSecurityHeaders(res: Response) {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).toContain("form-action 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("base-uri 'none'");
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('cache-control')).toBe('no-cache');
}

describe('dashboard page and assets (/_sim/ui/)', () => {
  it('answers 404 in the control envelope when the simulator has no dashboard', async () => {
    const { app } = createToySim();
    for (const path of ['/_sim/ui/', '/_sim/ui/app.js', '/_sim/ui/app.css']) {
      const res = await call(app, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({
        error: { status: 404, reason: 'NOT_FOUND', message: 'toy-sim has no dashboard in this build' },
      });
    }
  });

  it('redirects /_sim/ui to /_sim/ui/ (301), keeping a namespace prefix', async () => {
    const { app } = dashboardSim();
    const res = await get(app, '/_sim/ui');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/_sim/ui/');
    const prefixed = await get(app, '/_ns/team-a/_sim/ui');
    expect(prefixed.status).toBe(301);
    expect(prefixed.headers.get('location')).toBe('/_ns/team-a/_sim/ui/');
  });

  it('serves the page with the simulator name and version, its two assets and security headers', async () => {
    const { app, loads } = dashboardSim();
    const res = await get(app, '/_sim/ui/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectSecurityHeaders(res);
    const html = await res.text();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<title>toy-sim dashboard</title>');
    expect(html).toContain('<div id="app" data-simulator="toy-sim" data-version="0.0.0">');
    expect(html).toContain('<script type="module" src="app.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="app.css">');
    // No sign-in without an admin token.
    expect(html).not.toContain('<form');
    // The page alone does not load the assets: a simulator nobody looks at never reads them.
    expect(loads.count).toBe(0);
    // The page is served under a namespace prefix too.
    expect((await get(app, '/_ns/team-a/_sim/ui/')).status).toBe(200);
  });

  it('escapes the name and version it writes into the page', async () => {
    const { app } = dashboardSim({}, { name: 'x<y>"z', version: '1.0&<b>' });
    const html = await (await get(app, '/_sim/ui/')).text();
    expect(html).toContain('<title>x&#60;y&#62;&#34;z dashboard</title>');
    expect(html).toContain('data-simulator="x&#60;y&#62;&#34;z" data-version="1.0&#38;&#60;b&#62;"');
    expect(html).not.toContain('<y>');
    expect(html).not.toContain('<b>');
  });

  it('serves app.js and app.css with their types and ETags, and 304 for a matching If-None-Match', async () => {
    const { app, loads } = dashboardSim();
    const js = await get(app, '/_sim/ui/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expectSecurityHeaders(js);
    expect(await js.text()).toBe(JS);
    const jsTag = js.headers.get('etag') as string;
    expect(jsTag).toMatch(/^"[0-9a-f]{16}"$/);

    const css = await get(app, '/_sim/ui/app.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toBe(CSS);
    const cssTag = css.headers.get('etag') as string;
    expect(cssTag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(cssTag).not.toBe(jsTag);

    const notModified = await get(app, '/_sim/ui/app.js', { 'if-none-match': jsTag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(jsTag);
    expect(await notModified.text()).toBe('');
    expect((await get(app, '/_sim/ui/app.css', { 'if-none-match': cssTag })).status).toBe(304);
    // Another asset's tag, or a stale one, gets the whole file again.
    const stale = await get(app, '/_sim/ui/app.css', { 'if-none-match': jsTag });
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(CSS);
    expect((await get(app, '/_sim/ui/app.js', { 'if-none-match': '"0000000000000000"' })).status).toBe(200);

    // The same build gives the same tags in another process (a hash of the content), and loads once.
    const again = dashboardSim();
    expect((await get(again.app, '/_sim/ui/app.js')).headers.get('etag')).toBe(jsTag);
    expect(loads.count).toBe(1);
  });

  it('leaves the emulated API and the rest of the control plane as they were', async () => {
    const { app } = dashboardSim();
    expect((await call(app, 'GET', '/_sim/ui/nope')).body.error.reason).toBe('NOT_FOUND');
    expect((await call(app, 'GET', '/_sim/health')).status).toBe(200);
  });
});

describe('dashboard sign-in (admin token)', () => {
  it('shows a sign-in form instead of the app until signed in; the assets stay public', async () => {
    const { app } = dashboardSim({ adminToken: TOKEN });
    const res = await get(app, '/_sim/ui/');
    expect(res.status).toBe(200);
    expectSecurityHeaders(res);
    const html = await res.text();
    expect(html).toContain('<form method="post" action="login">');
    expect(html).toContain('name="token" type="password"');
    expect(html).not.toContain('id="app"');
    expect(html).not.toContain('role="alert"');
    expect((await get(app, '/_sim/ui/app.js')).status).toBe(200);
    expect((await get(app, '/_sim/ui/app.css')).status).toBe(200);
    expect((await get(app, '/_sim/ui')).status).toBe(301);
    // Everything else under /_sim still needs the token.
    const denied = await call(app, 'GET', '/_sim/faults');
    expect(denied.status).toBe(401);
    expect(denied.body.error.reason).toBe('UNAUTHENTICATED');
    expect((await call(app, 'GET', '/_sim/stream')).status).toBe(401);
  });

  it('answers a wrong or missing token with 401, the form and an alert, and sets no cookie', async () => {
    const { app } = dashboardSim({ adminToken: TOKEN });
    const attempts: Record<string, string>[] = [
      { token: 'wrong' },
      { token: '' },
      {},
      { token: `${TOKEN}x` },
    ];
    for (const fields of attempts) {
      const res = await signIn(app, fields);
      expect(res.status, JSON.stringify(fields)).toBe(401);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expectSecurityHeaders(res);
      const html = await res.text();
      expect(html).toContain('<p role="alert" class="error">That is not the admin token.</p>');
      expect(html).toContain('<form method="post" action="login">');
    }
    // A body that is not a form at all is a wrong token too, not a failure.
    const junk = await app.request('/_sim/ui/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"token":"s3cret"',
    });
    expect(junk.status).toBe(401);
  });

  it('reads at most 64 KiB of a sign-in (it is open to anyone) and answers more with 413', async () => {
    const { app } = dashboardSim({ adminToken: TOKEN });
    const big = `token=${TOKEN}&pad=${'x'.repeat(64 * 1024)}`;
    const declared = await signIn(app, { token: TOKEN, pad: 'x'.repeat(64 * 1024) });
    expect(declared.status).toBe(413);
    expect(declared.headers.get('set-cookie')).toBeNull();
    expect(((await declared.json()) as { error: { message: string } }).error.message).toBe(
      'sign-in body larger than 65536 bytes',
    );
    // Streamed without a Content-Length: cut off as the bytes pass the limit.
    const bytes = new TextEncoder().encode(big);
    const streamed = await app.request('/_sim/ui/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 8192) controller.enqueue(bytes.slice(at, at + 8192));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    // Just under the limit is read.
    const fits = await signIn(app, { token: TOKEN, pad: 'x'.repeat(60 * 1024) });
    expect(fits.status).toBe(303);
  });

  it('sets an HttpOnly SameSite=Strict cookie for the right token and 303s to the page', async () => {
    const { app } = dashboardSim({ adminToken: TOKEN });
    const res = await signIn(app, { token: TOKEN });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('./');
    const cookie = res.headers.get('set-cookie') as string;
    expect(cookie).toBe(`${COOKIE}=${TOKEN}; Path=/; HttpOnly; SameSite=Strict`);
    // Following the redirect with the cookie: the app, not the form.
    const html = await (await get(app, '/_sim/ui/', { cookie: `${COOKIE}=${TOKEN}` })).text();
    expect(html).toContain('id="app"');
    expect(html).not.toContain('<form');
    // A multipart form (what some clients send) works as well.
    const form = new FormData();
    form.set('token', TOKEN);
    const multipart = await app.request('/_sim/ui/login', { method: 'POST', body: form });
    expect(multipart.status).toBe(303);
    // Signing in under a namespace prefix works the same.
    expect((await signIn(app, { token: TOKEN }, '/_ns/team-a/_sim/ui/login')).status).toBe(303);
  });

  it('round-trips a token with characters a cookie cannot hold as they are', async () => {
    const token = 'a b;c=d%e"f,g';
    const { app } = dashboardSim({ adminToken: token });
    const res = await signIn(app, { token });
    expect(res.status).toBe(303);
    const setCookie = res.headers.get('set-cookie') as string;
    const pair = setCookie.split(';')[0] as string;
    expect(pair).toBe(`${COOKIE}=${encodeURIComponent(token)}`);
    expect((await call(app, 'GET', '/_sim/faults', undefined, { cookie: pair })).status).toBe(200);
    expect((await get(app, '/_sim/ui/', { cookie: pair })).status).toBe(200);
    expect(await (await get(app, '/_sim/ui/', { cookie: pair })).text()).toContain('id="app"');
  });

  it('names the cookie after the simulator (non-word characters as "_")', async () => {
    const { app } = dashboardSim({ adminToken: TOKEN }, { name: 'my.sim-2' });
    const cookie = (await signIn(app, { token: TOKEN })).headers.get('set-cookie') as string;
    expect(cookie.startsWith(`sims_admin_my_sim_2=${TOKEN};`)).toBe(true);
    // Another simulator's cookie (same host, another port) is not this one's.
    expect((await call(app, 'GET', '/_sim/faults', undefined, { cookie: `${COOKIE}=${TOKEN}` })).status).toBe(
      401,
    );
    expect(
      (await call(app, 'GET', '/_sim/faults', undefined, { cookie: `sims_admin_my_sim_2=${TOKEN}` })).status,
    ).toBe(200);
  });

  it('without an admin token, the sign-in just redirects to the page and sets nothing', async () => {
    const { app } = dashboardSim();
    const res = await signIn(app, { token: 'anything' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('./');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('accepts the cookie for reads anywhere under /_sim, and for changes only with X-Sim-UI: 1', async () => {
    const { app } = dashboardSim({ adminToken: TOKEN });
    const cookie = `other=1; ${COOKIE}=${TOKEN}`;
    const rule = { id: 'r1', match: { operation: 'widgets.get' }, effect: { delay: '1s' } };

    // Reads: GET and HEAD, plain and under a namespace prefix, and simulator-added control routes.
    expect((await call(app, 'GET', '/_sim/faults', undefined, { cookie })).status).toBe(200);
    expect((await call(app, 'GET', '/_sim/journal', undefined, { cookie })).status).toBe(200);
    expect((await call(app, 'GET', '/_ns/team-a/_sim/faults', undefined, { cookie })).status).toBe(200);
    expect((await app.request('/_sim/namespaces', { method: 'HEAD', headers: { cookie } })).status).toBe(200);
    expect((await call(app, 'HEAD', '/_sim/namespaces')).status).toBe(401);

    // Changes: the cookie alone (what a cross-site form could send) is refused.
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const path =
        method === 'POST' ? '/_sim/faults' : method === 'PUT' ? '/_sim/namespaces/x' : '/_sim/faults';
      const res = await call(app, method, path, method === 'POST' ? rule : undefined, { cookie });
      expect(res.status, method).toBe(401);
      expect(res.body.error.reason).toBe('UNAUTHENTICATED');
    }
    expect((await call(app, 'POST', '/_sim/faults', rule, { cookie, 'x-sim-ui': '0' })).status).toBe(401);
    expect((await call(app, 'POST', '/_sim/faults', rule, { cookie, 'x-sim-ui': 'true' })).status).toBe(401);
    // Nothing was added by the refused calls.
    expect((await call(app, 'GET', '/_sim/faults', undefined, { cookie })).body.faults).toEqual([]);

    // With the dashboard's own header the cookie stands for the token.
    const added = await call(app, 'POST', '/_sim/faults', rule, { cookie, 'X-Sim-UI': '1' });
    expect(added.status).toBe(201);
    expect(added.body.id).toBe('r1');
    expect(
      (await call(app, 'PUT', '/_sim/namespaces/x', undefined, { cookie, 'x-sim-ui': '1' })).status,
    ).toBe(201);
    expect(
      (await call(app, 'DELETE', '/_sim/faults/r1', undefined, { cookie, 'x-sim-ui': '1' })).status,
    ).toBe(204);
    // The header without a cookie is nothing.
    expect((await call(app, 'POST', '/_sim/faults', rule, { 'x-sim-ui': '1' })).status).toBe(401);
  });

  it('refuses a wrong cookie, and lets an explicit token header win over the cookie', async () => {
    const { app } = dashboardSim({ adminToken: TOKEN });
    const good = `${COOKIE}=${TOKEN}`;
    expect((await call(app, 'GET', '/_sim/faults', undefined, { cookie: `${COOKIE}=nope` })).status).toBe(
      401,
    );
    expect((await call(app, 'GET', '/_sim/faults', undefined, { cookie: `${COOKIE}=` })).status).toBe(401);
    expect(
      (await call(app, 'POST', '/_sim/faults', {}, { cookie: `${COOKIE}=nope`, 'x-sim-ui': '1' })).status,
    ).toBe(401);
    // A wrong token given explicitly is refused even with a good cookie beside it.
    expect(
      (await call(app, 'GET', '/_sim/faults', undefined, { cookie: good, 'x-sim-admin-token': 'nope' }))
        .status,
    ).toBe(401);
    expect(
      (await call(app, 'GET', '/_sim/faults', undefined, { cookie: good, authorization: 'Bearer nope' }))
        .status,
    ).toBe(401);
    // The page itself shows the form again for a wrong cookie.
    expect(await (await get(app, '/_sim/ui/', { cookie: `${COOKIE}=nope` })).text()).toContain('<form');
    // The emulated API is not behind the token at all.
    expect((await call(app, 'GET', '/widgets/a')).status).toBe(404);
  });
});

describe('reading a namespace that does not exist', () => {
  it('answers as a new world would and does not create it, so a deleted namespace stays deleted', async () => {
    const { app } = createToySim({ clock: { mode: 'manual', start: '2026-01-01T00:00:00.000Z' } });
    await call(app, 'POST', '/_ns/gone/widgets', { name: 'w' });
    expect((await call(app, 'DELETE', '/_sim/namespaces/gone')).status).toBe(204);
    // What a dashboard still showing the namespace polls after it was deleted.
    for (const path of ['/state', '/faults', '/clock', '/journal', '/memory']) {
      const res = await call(app, 'GET', `/_ns/gone/_sim${path}`);
      expect(res.status, path).toBe(200);
    }
    expect((await call(app, 'GET', '/_ns/gone/_sim/state')).body.state).toEqual({
      widgets: [],
      nextWidget: 1,
    });
    expect((await call(app, 'GET', '/_ns/gone/_sim/journal')).body.entries).toEqual([]);
    expect((await call(app, 'GET', '/_sim/namespaces')).body.namespaces).toEqual([]);
    // A change creates it, as before.
    expect(
      (await call(app, 'POST', '/_ns/gone/_sim/faults', { match: {}, effect: { error: { status: 503 } } }))
        .status,
    ).toBe(201);
    expect((await call(app, 'GET', '/_sim/namespaces')).body.namespaces).toEqual(['gone']);
  });
});

describe('PUT /_sim/namespaces/:name', () => {
  it('creates a namespace (201), says when it existed (200), and lists it', async () => {
    const { app } = createToySim();
    const created = await call(app, 'PUT', '/_sim/namespaces/team-a');
    expect(created).toMatchObject({ status: 201, body: { namespace: 'team-a', created: true } });
    const again = await call(app, 'PUT', '/_sim/namespaces/team-a');
    expect(again).toMatchObject({ status: 200, body: { namespace: 'team-a', created: false } });
    expect((await call(app, 'GET', '/_sim/namespaces')).body.namespaces).toEqual(['team-a']);
    // An existing namespace keeps what it holds.
    await call(app, 'POST', '/_ns/team-a/widgets', { name: 'w' });
    expect((await call(app, 'PUT', '/_sim/namespaces/team-a')).status).toBe(200);
    expect((await call(app, 'GET', '/_ns/team-a/widgets/w')).status).toBe(200);
    // One made by use answers 200 too.
    await call(app, 'GET', '/_ns/used/widgets/x');
    expect((await call(app, 'PUT', '/_sim/namespaces/used')).status).toBe(200);
    expect((await call(app, 'PUT', '/_sim/namespaces/a.b_c-9')).status).toBe(201);
  });

  it('refuses an invalid name with a 400 and creates nothing', async () => {
    const { app } = createToySim();
    for (const name of ['-leading', '.dot', 'sp%20ace', 'x'.repeat(64), 'semi%3Bcolon']) {
      const res = await call(app, 'PUT', `/_sim/namespaces/${name}`);
      expect(res.status, name).toBe(400);
      expect(res.body.error).toMatchObject({ reason: 'INVALID_INPUT', path: 'name' });
      expect(res.body.error.message).toMatch(/^invalid namespace ".*": 1-63 letters, digits/);
    }
    expect((await call(app, 'PUT', `/_sim/namespaces/${'x'.repeat(63)}`)).status).toBe(201);
    expect((await call(app, 'GET', '/_sim/namespaces')).body.namespaces).toEqual(['x'.repeat(63)]);
  });

  it('answers 507 past maxNamespaces', async () => {
    const { app } = createToySim({ maxNamespaces: 1 });
    expect((await call(app, 'PUT', '/_sim/namespaces/one')).status).toBe(201);
    expect((await call(app, 'PUT', '/_sim/namespaces/one')).status).toBe(200);
    const full = await call(app, 'PUT', '/_sim/namespaces/two');
    expect(full.status).toBe(507);
    expect(full.body.error.reason).toBe('NAMESPACE_LIMIT');
    expect((await call(app, 'GET', '/_sim/namespaces')).body.namespaces).toEqual(['one']);
  });

  it('needs the admin token when one is set', async () => {
    const { app } = createToySim({ adminToken: TOKEN });
    expect((await call(app, 'PUT', '/_sim/namespaces/a')).status).toBe(401);
    expect(
      (await call(app, 'PUT', '/_sim/namespaces/a', undefined, { 'x-sim-admin-token': TOKEN })).status,
    ).toBe(201);
  });
});

describe('GET /_sim/journal/:seq', () => {
  it('returns one entry by its seq, in the namespace the request selects', async () => {
    const { app } = createToySim({ clock: { mode: 'manual', start: START } });
    await call(app, 'POST', '/widgets', { name: 'a' });
    await call(app, 'GET', '/widgets/a');
    await call(app, 'GET', '/_ns/other/widgets/zz');
    const all = (await call(app, 'GET', '/_sim/journal')).body.entries as JournalEntry[];
    const one = await call(app, 'GET', '/_sim/journal/2');
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ entry: all[1] });
    expect(one.body.entry).toMatchObject({ seq: 2, method: 'GET', path: '/widgets/a', status: 200 });
    expect((await call(app, 'GET', '/_sim/journal/1')).body.entry).toMatchObject({
      seq: 1,
      method: 'POST',
      operation: 'widgets.create',
      status: 201,
    });
    // Namespaces have journals of their own: seq 1 of "other" is its GET.
    expect((await call(app, 'GET', '/_ns/other/_sim/journal/1')).body.entry).toMatchObject({
      seq: 1,
      path: '/widgets/zz',
      namespace: 'other',
    });
    expect(
      (await call(app, 'GET', '/_sim/journal/1', undefined, { 'x-sim-namespace': 'other' })).body.entry,
    ).toMatchObject({ path: '/widgets/zz' });
    expect((await call(app, 'GET', '/_ns/other/_sim/journal/2')).status).toBe(404);
  });

  it('answers 404 for a seq never recorded and 400 for one that is not a positive integer', async () => {
    const { app } = createToySim();
    await call(app, 'GET', '/widgets/a');
    const missing = await call(app, 'GET', '/_sim/journal/2');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({
      reason: 'NOT_FOUND',
      message: 'no journal entry 2 (never recorded, or dropped since)',
    });
    expect((await call(app, 'GET', '/_sim/journal/99999999999')).status).toBe(404);
    for (const bad of ['0', '-1', '1.5', 'abc', 'NaN', 'Infinity']) {
      const res = await call(app, 'GET', `/_sim/journal/${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatchObject({ message: 'seq must be a positive integer', path: 'seq' });
    }
  });

  it('answers 404 once the ring dropped an entry, and after the journal was cleared', async () => {
    const { app } = createToySim({ journalCapacity: 3 });
    for (let i = 0; i < 5; i++) await call(app, 'GET', `/widgets/w${i}`);
    expect((await call(app, 'GET', '/_sim/journal')).body.stats).toMatchObject({ size: 3, dropped: 2 });
    for (const seq of [1, 2]) expect((await call(app, 'GET', `/_sim/journal/${seq}`)).status).toBe(404);
    for (const seq of [3, 4, 5]) {
      const res = await call(app, 'GET', `/_sim/journal/${seq}`);
      expect(res.body.entry).toMatchObject({ seq, path: `/widgets/w${seq - 1}` });
    }
    expect((await call(app, 'DELETE', '/_sim/journal')).status).toBe(204);
    for (const seq of [1, 3, 4, 5, 6])
      expect((await call(app, 'GET', `/_sim/journal/${seq}`)).status).toBe(404);
    // Seqs go on after a clear: the next entry is 6, not 1.
    await call(app, 'GET', '/widgets/after');
    expect((await call(app, 'GET', '/_sim/journal/6')).body.entry).toMatchObject({
      seq: 6,
      path: '/widgets/after',
    });
    expect((await call(app, 'GET', '/_sim/journal/1')).status).toBe(404);
  });

  it('starts again at 1 in a reset world', async () => {
    const { app } = createToySim();
    await call(app, 'GET', '/widgets/a');
    await call(app, 'GET', '/widgets/b');
    await call(app, 'POST', '/_sim/reset');
    expect((await call(app, 'GET', '/_sim/journal/1')).status).toBe(404);
    await call(app, 'GET', '/widgets/c');
    expect((await call(app, 'GET', '/_sim/journal/1')).body.entry.path).toBe('/widgets/c');
  });
});

describe('journal.get', () => {
  const entry = (path: string): Omit<JournalEntry, 'seq'> => ({
    requestId: path,
    time: START,
    namespace: 'default',
    method: 'GET',
    path,
    query: {},
    status: 200,
    durationMs: 0,
    headers: {},
    faults: [],
  });

  it('finds entries by seq across the ring growing and wrapping', () => {
    const journal = createJournal({ capacity: 40 });
    expect(journal.get(1)).toBeUndefined();
    expect(journal.get(0)).toBeUndefined();
    // Past 16 the ring grows (16 → 32 → 40); past 40 it wraps and drops the oldest.
    for (let i = 1; i <= 100; i++) {
      journal.record(entry(`/e${i}`));
      // Every held entry is found, at every step.
      const held = journal.list();
      for (const e of held) expect(journal.get(e.seq)?.path).toBe(`/e${e.seq}`);
      expect(journal.get(held[0]!.seq - 1)).toBeUndefined();
      expect(journal.get(i + 1)).toBeUndefined();
    }
    expect(journal.stats()).toMatchObject({ size: 40, dropped: 60 });
    expect(journal.get(60)).toBeUndefined();
    expect(journal.get(61)?.path).toBe('/e61');
    expect(journal.get(100)?.path).toBe('/e100');
    expect(journal.get(-5)).toBeUndefined();
  });

  it('finds nothing after a clear, and the entries recorded after it', () => {
    const journal = createJournal({ capacity: 3 });
    for (let i = 1; i <= 4; i++) journal.record(entry(`/e${i}`));
    journal.clear();
    for (let seq = 0; seq <= 5; seq++) expect(journal.get(seq)).toBeUndefined();
    journal.record(entry('/e5'));
    expect(journal.get(5)?.path).toBe('/e5');
    expect(journal.get(4)).toBeUndefined();
    expect(journal.get(6)).toBeUndefined();
    journal.record(entry('/e6'));
    journal.record(entry('/e7'));
    journal.record(entry('/e8'));
    expect([5, 6, 7, 8].map((s) => journal.get(s)?.path)).toEqual([undefined, '/e6', '/e7', '/e8']);
  });

  it('finds nothing the byte budget dropped', () => {
    const one = 200 + JSON.stringify({ seq: 1, ...entry('/e1') }).length;
    // Room for about two entries in all.
    const budget = createJournalBudget(Math.floor(one * 2.5));
    const journal = createJournal({ capacity: 100, budget });
    for (let i = 1; i <= 5; i++) journal.record(entry(`/e${i}`));
    const held = journal.list().map((e) => e.seq);
    expect(held.length).toBeLessThan(5);
    expect(held.at(-1)).toBe(5);
    for (let seq = 1; seq <= 5; seq++)
      expect(journal.get(seq)?.seq, String(seq)).toBe(held.includes(seq) ? seq : undefined);
  });
});

describe('POST /_sim/faults as YAML', () => {
  const yaml = (app: ReturnType<typeof createToySim>['app'], text: string, type = 'application/yaml') =>
    call(app, 'POST', '/_sim/faults', text, { 'content-type': type });

  it('adds one rule', async () => {
    const { app } = createToySim();
    const res = await yaml(
      app,
      'id: slow-get\nmatch:\n  operation: widgets.get\ntrigger: {times: 2}\neffect:\n  delay: 2s\n',
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: 'slow-get',
      match: { operation: 'widgets.get' },
      trigger: { times: 2 },
    });
    expect((await call(app, 'GET', '/_sim/faults/slow-get')).status).toBe(200);
  });

  it('adds a list of rules, with other YAML media types and a namespace', async () => {
    const { app } = createToySim();
    const list = `- id: a
  match: {operation: widgets.get}
  effect: {delay: 1s}
- id: b
  match: {operation: widgets.create}
  effect: {error: {status: X}}
`;
    const res = await yaml(app, list, 'text/yaml; charset=utf-8');
    expect(res.status).toBe(201);
    expect(res.body.faults.map((r: { id: string }) => r.id)).toEqual(['a', 'b']);
    expect(
      (await call(app, 'POST', '/_ns/n1/_sim/faults', list, { 'content-type': 'application/x-yaml' })).status,
    ).toBe(201);
    expect((await call(app, 'GET', '/_ns/n1/_sim/faults')).body.faults).toHaveLength(2);
    // JSON is YAML: a JSON body sent as YAML is read the same.
    const json = await yaml(
      app,
      JSON.stringify({ id: 'c', match: { operation: 'x' }, effect: { delay: '1s' } }),
    );
    expect(json).toMatchObject({ status: 201, body: { id: 'c' } });
  });

  it('answers bad YAML with a 400 naming faults:<line>:<col>', async () => {
    const { app } = createToySim();
    const res = await yaml(app, 'id: a\neffect: {delay: 1s\n');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe('INVALID_INPUT');
    expect(res.body.error.message).toBe(
      'faults:3:1: Flow map in block collection must be sufficiently indented and end with a }',
    );
    const duplicate = await yaml(app, 'id: a\nid: b\n');
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.message).toBe('faults:2:1: Map keys must be unique');
    expect((await call(app, 'GET', '/_sim/faults')).body.faults).toEqual([]);
  });

  it('answers YAML nested too deep with a 400 before parsing it', async () => {
    const { app } = createToySim();
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    const res = await yaml(app, deep);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'faults:1:100: nested 100 levels deep; a fault rule nests at most 64',
    );
    const block = Array.from({ length: 80 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n');
    const blockRes = await yaml(app, block);
    expect(blockRes.status).toBe(400);
    expect(blockRes.body.error.message).toMatch(/^faults:\d+:\d+: nested \d+ levels deep/);
  });

  it('answers an alias bomb with a 400, not a crash', async () => {
    const { app } = createToySim();
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const next = String.fromCharCode(97 + i);
      lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    const res = await yaml(app, lines.join('\n'));
    expect(res.status).toBe(400);
    // One line with the place of the first alias, like every other bad file.
    expect(res.body.error.message).toMatch(/^faults:2:\d+: Excessive alias count/);
  });

  it('adds none of a list when one rule is invalid, naming its index', async () => {
    const { app } = createToySim();
    const res = await yaml(app, '- id: ok\n  effect: {delay: 1s}\n- id: bad\n  effect: {nope: 1}\n');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^\[1\]\./);
    expect((await call(app, 'GET', '/_sim/faults')).body.faults).toEqual([]);
  });
});
