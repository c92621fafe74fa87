import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import type { DashboardAssets, SimulatorDefinition } from '../definition';
import { readBoundedText } from './body';
import { controlError } from './responses';

/** The request header the dashboard's own calls carry; a cookie alone never authorizes a change. */
export const DASHBOARD_HEADER = 'x-sim-ui';

/** The cookie the dashboard's sign-in sets, one per simulator name (cookies are shared across ports). */
export const dashboardCookie = (simulator: string): string => `sims_admin_${simulator.replace(/\W/g, '_')}`;

/** Paths under `/_sim` the dashboard serves without the token: the page decides, the assets hold no data. */
export const DASHBOARD_PUBLIC = new Set([
  '/_sim/ui',
  '/_sim/ui/',
  '/_sim/ui/login',
  '/_sim/ui/app.js',
  '/_sim/ui/app.css',
]);

// The page loads nothing but its own two files and talks to nothing but its own simulator.
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="app.css">
</head>
<body>
${body}
</body>
</html>
`;
}

/** Largest sign-in form read (it holds one token); the sign-in is open to anyone, so it is kept small. */
const LOGIN_MAX_BODY_BYTES = 64 * 1024;

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * `/_sim/ui/`: the dashboard page, its two assets (`app.js`, `app.css`, loaded on the first request for
 * them, so a simulator nobody looks at never reads them), and, when the control plane has an admin
 * token, a sign-in form that sets an HttpOnly cookie holding it.
 */
export function registerDashboard<S>(
  control: Hono,
  def: SimulatorDefinition<S>,
  adminToken: string | undefined,
): void {
  let assets: Promise<DashboardAssets & { etags: { js: string; css: string } }> | undefined;
  const load = () => {
    if (!def.dashboard) return undefined;
    assets ??= def.dashboard().then((a) => ({
      ...a,
      etags: {
        js: `"${sha256(a.js).toString('hex').slice(0, 16)}"`,
        css: `"${sha256(a.css).toString('hex').slice(0, 16)}"`,
      },
    }));
    return assets;
  };
  const expected = adminToken ? sha256(adminToken) : undefined;
  const cookieName = dashboardCookie(def.name);
  const signedIn = (c: Context) => {
    if (!expected) return true;
    const given = getCookie(c, cookieName);
    return given !== undefined && timingSafeEqual(sha256(given), expected);
  };
  const title = `${def.name} dashboard`;
  const html = (c: Context, body: string, status: 200 | 401 = 200) =>
    c.body(page(title, body), status, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' });
  const loginForm = (error?: string) =>
    `<main class="login" aria-labelledby="login-title">
<h1 id="login-title">${escapeHtml(def.name)} dashboard</h1>
<p>This simulator's control plane needs its admin token.</p>
${error ? `<p role="alert" class="error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="login">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
</main>`;

  const noDashboard = (c: Context) => controlError(c, 404, `${def.name} has no dashboard in this build`);

  control.get('/ui', (c) => c.redirect(`${new URL(c.req.url).pathname}/`, 301));
  control.get('/ui/', (c) => {
    if (!def.dashboard) return noDashboard(c);
    if (!signedIn(c)) return html(c, loginForm());
    return html(
      c,
      `<div id="app" data-simulator="${escapeHtml(def.name)}" data-version="${escapeHtml(def.version)}"><p>Loading the ${escapeHtml(title)}…</p></div>
<script type="module" src="app.js"></script>`,
    );
  });
  control.post('/ui/login', async (c) => {
    if (!expected) return c.redirect('./', 303);
    // Read before any token is checked: bounded, like every other body, so no one can fill the memory.
    const body = await readBoundedText(c.req.raw, LOGIN_MAX_BODY_BYTES);
    if (!body.ok) return controlError(c, 413, `sign-in body larger than ${body.limit} bytes`);
    const type = c.req.header('content-type') ?? '';
    const form = await new Response(body.text, { headers: { 'content-type': type } })
      .formData()
      .catch(() => undefined);
    const field = form?.get('token');
    const token = typeof field === 'string' ? field : '';
    if (!timingSafeEqual(sha256(token), expected))
      return html(c, loginForm('That is not the admin token.'), 401);
    c.header('Set-Cookie', `${cookieName}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`);
    return c.redirect('./', 303);
  });
  const asset = (kind: 'js' | 'css') => async (c: Context) => {
    const loading = load();
    if (!loading) return noDashboard(c);
    const a = await loading;
    const etag = a.etags[kind];
    const headers = {
      ...SECURITY_HEADERS,
      ETag: etag,
      'Content-Type': kind === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
    };
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
    return c.body(a[kind], 200, headers);
  };
  control.get('/ui/app.js', asset('js'));
  control.get('/ui/app.css', asset('css'));
}
