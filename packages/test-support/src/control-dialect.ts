import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The control plane's dialect (docs/decisions/0020-control-plane-dialect.md), checked over every route a
 * simulator's `/_sim/openapi.json` lists. Each app's `test/control-dialect.test.ts` calls
 * `checkControlDialect` and expects no violations; the report also says what was probed, so that a test
 * can tell a walk that checked nothing from one that found nothing wrong.
 */

/** Sends one request to the simulator under test (in process, `app.request`). */
export type Send = (
  method: string,
  path: string,
  init?: { body?: string; contentType?: string },
) => Promise<Response>;

/** Something that answers requests in process, as a Hono app's `request` does. */
interface InProcessApp {
  request(url: string, init: RequestInit): Response | Promise<Response>;
}

/** A `Send` over a simulator's app in process (`sim.app`): the body and its content type as given. */
export function appSender(app: InProcessApp): Send {
  return (method, path, init = {}) =>
    Promise.resolve(
      app.request(`http://localhost${path}`, {
        method,
        body: init.body,
        headers: init.contentType ? { 'content-type': init.contentType } : {},
      }),
    );
}

/** The older forms sim-core's own control routes still serve, and what replaces each (every app has them). */
export const KERNEL_ALIASES: Readonly<Record<string, string>> = { 'PUT /_sim/clock': 'PATCH /_sim/clock' };

export interface ControlDialectOptions {
  send: Send;
  /** The same simulator with an admin token set, sent to without it: every guarded route is a 401. */
  sendWithoutToken: Send;
  /** The deprecated aliases the simulator serves: `"METHOD path"` → the `"METHOD path"` that replaces it. */
  aliases: Record<string, string>;
}

export interface ControlDialectReport {
  violations: string[];
  /** `"METHOD path"` of every operation the document lists. */
  operations: string[];
  /** Operations probed with an id that names nothing (404 expected). */
  missingIds: string[];
  /** Operations sent a malformed JSON body (400 when they take a body). */
  badBodies: string[];
  /** Settings-like paths probed with PATCH. */
  settings: string[];
  /** Operations whose body names the one thing they act on (each must be a listed alias). */
  idInBody: string[];
  /** `/complete` and `/fail` routes: finishing work by hand. */
  finishing: string[];
}

/** An id nothing in a fresh world has: numeric, so it is also a well-formed journal seq. */
const MISSING = '987654321';
/** Kernel routes that create or replace the whole thing their path names: a PUT is right there. */
const WHOLE = new Set(['PUT /_sim/state', 'PUT /_sim/namespaces/{name}']);
/** Routes the admin token does not guard (health checks; the dashboard's sign-in page). */
const OPEN = new Set(['GET /_sim/health', 'GET /_sim/ui/']);
const REASONS: Record<number, string> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
};
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
/** A body field that names one thing: `id`, `rq_id`, `…_id`, `…Id`. */
const ID_FIELD = /^(id|rq_id|.+_id|.+Id)$/;
const JSON_TYPE = { contentType: 'application/json' };

interface Operation {
  key: string;
  method: string;
  path: string;
  spec: Record<string, unknown>;
}

/** What one walk shares: the simulator, the document's operations by key, and the report it fills. */
interface Walk {
  options: ControlDialectOptions;
  byKey: Map<string, Operation>;
  report: ControlDialectReport;
  violation(key: string, what: string): void;
}

/** An OpenAPI document as far as the walk reads it. */
interface Document {
  paths?: Record<string, Record<string, Record<string, unknown>>>;
}

function operationsOf(doc: Document): Operation[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({
      key: `${m.toUpperCase()} ${path}`,
      method: m.toUpperCase(),
      path,
      spec: item[m] as Record<string, unknown>,
    })),
  );
}

const hasParams = (path: string) => /\{[^}]+\}/.test(path);
const withMissing = (path: string) => path.replace(/\{[^}]+\}/g, MISSING);
const declares = (o: Operation, status: string) =>
  Object.keys((o.spec.responses as object) ?? {}).includes(status);

/** The top-level fields a body declares: its schema's properties and the `{ a, b?: … }` of its description. */
function bodyFields(spec: Record<string, unknown>): string[] {
  const body = spec.requestBody as
    | { description?: string; content?: Record<string, { schema?: { properties?: object } }> }
    | undefined;
  if (!body) return [];
  const fields = new Set<string>();
  for (const media of Object.values(body.content ?? {}))
    for (const name of Object.keys(media.schema?.properties ?? {})) fields.add(name);
  for (const braces of (body.description ?? '').match(/\{[^{}]*\}/g) ?? [])
    for (const m of braces.matchAll(/([A-Za-z_]\w*)\??\s*(?=[:,}])/g)) fields.add(m[1] as string);
  return [...fields];
}

/** What is wrong with an answer, if it is not the control plane's error envelope for `status`. */
async function envelopeProblem(res: Response, status: number): Promise<string | undefined> {
  const text = await res.text();
  if (res.status !== status) return `answered ${res.status}, not ${status}: ${text.slice(0, 200)}`;
  if (!(res.headers.get('content-type') ?? '').includes('application/json')) return `not JSON: ${text}`;
  let body: { error?: Record<string, unknown> } & Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  const error = body.error;
  const keys = Object.keys(error ?? {}).filter((k) => k !== 'path');
  if (Object.keys(body).join() !== 'error' || !error || keys.sort().join() !== 'message,reason,status')
    return `not the control envelope { error: { status, reason, message, path? } }: ${text.slice(0, 200)}`;
  if (error.status !== status || typeof error.message !== 'string') return `a wrong envelope: ${text}`;
  if (REASONS[status] && error.reason !== REASONS[status]) return `reason ${String(error.reason)}: ${text}`;
  if (error.path !== undefined && typeof error.path !== 'string') return `a path that is not text: ${text}`;
  return undefined;
}

/** Deprecated operations are exactly the listed aliases, each naming a replacement the document serves. */
function checkAliases(walk: Walk, ops: Operation[]): void {
  const { aliases } = walk.options;
  for (const o of ops.filter((op) => op.spec.deprecated === true)) {
    const by = o.spec['x-replaced-by'];
    if (aliases[o.key] === undefined) walk.violation(o.key, 'deprecated but not a listed alias');
    else if (by !== aliases[o.key]) walk.violation(o.key, `x-replaced-by is ${String(by)}`);
    if (typeof by !== 'string' || !walk.byKey.has(by) || walk.byKey.get(by)?.spec.deprecated)
      walk.violation(o.key, `replaced by ${String(by)}, which the document does not serve`);
  }
  for (const key of Object.keys(aliases))
    if (!walk.byKey.get(key)?.spec.deprecated)
      walk.violation(key, 'a listed alias the document does not mark deprecated');
}

/**
 * Acting on one thing takes its id in the path, never in the body (a creation naming what it creates and
 * a long-poll's filter aside). An older form that does is an alias, and still answers as it did: a thing
 * its body names that is missing is a 400 on that field.
 */
async function checkIdInBody(walk: Walk, o: Operation): Promise<void> {
  const ids = bodyFields(o.spec).filter((f) => ID_FIELD.test(f));
  if (ids.length === 0 || declares(o, '201') || o.path.endsWith('/wait')) return;
  walk.report.idInBody.push(o.key);
  if (!o.spec.deprecated) {
    walk.violation(o.key, `takes the id of what it acts on in its body (${ids.join(', ')})`);
    return;
  }
  const body = JSON.stringify(Object.fromEntries(ids.map((f) => [f, MISSING])));
  const res = await walk.options.send(o.method, o.path, { body, ...JSON_TYPE });
  const problem = await envelopeProblem(res.clone(), 400);
  if (problem) walk.violation(o.key, `the alias naming a missing thing: ${problem}`);
  else if (!ids.includes(((await res.json()) as { error: { path?: string } }).error.path ?? ''))
    walk.violation(o.key, 'the alias refuses a missing thing without naming its field');
}

/** Finishing work by hand is `POST …/{id}/complete` and `POST …/{id}/fail`, always both. */
function checkFinishing(walk: Walk, o: Operation): void {
  if (!/\/(complete|fail)$/.test(o.path)) return;
  walk.report.finishing.push(o.key);
  if (o.spec.deprecated) return;
  const sibling = o.path.replace(/(complete|fail)$/, (act) => (act === 'complete' ? 'fail' : 'complete'));
  if (o.method !== 'POST' || !/\/\{[^}]+\}\/(complete|fail)$/.test(o.path))
    walk.violation(o.key, 'finishing work is POST …/{id}/complete or …/{id}/fail');
  if (!walk.byKey.has(`POST ${sibling}`)) walk.violation(o.key, `no POST ${sibling} beside it`);
}

/** A thing the path names that does not exist: the route's own 404, declared, before any body is read. */
async function probeMissing(walk: Walk, o: Operation): Promise<void> {
  if (o.method === 'PUT' && WHOLE.has(o.key)) return; // it creates what its path names
  walk.report.missingIds.push(o.key);
  if (!declares(o, '404')) walk.violation(o.key, 'does not declare its 404');
  const res = await walk.options.send(o.method, withMissing(o.path));
  const problem = await envelopeProblem(res.clone(), 404);
  if (problem) return walk.violation(o.key, `naming a missing thing: ${problem}`);
  const message = ((await res.json()) as { error: { message: string } }).error.message;
  // The kernel's "no route" is a 404 too: the route itself must answer, naming what it did not find.
  if (message.startsWith('no route for') || !message.includes(MISSING))
    walk.violation(o.key, `a 404 that does not name the missing ${MISSING}: ${message}`);
}

/** A malformed body is a 400 where the route declares one; a route that declares none reads none. */
async function probeBadBody(walk: Walk, o: Operation): Promise<void> {
  walk.report.badBodies.push(o.key);
  const res = await walk.options.send(o.method, o.path, { body: '{', ...JSON_TYPE });
  if (o.spec.requestBody) {
    const problem = await envelopeProblem(res, 400);
    if (problem) walk.violation(o.key, `a malformed body: ${problem}`);
  } else if (res.status === 400) {
    walk.violation(o.key, `reads a body its entry does not declare (${await res.text()})`);
  }
}

/**
 * A settings-like document (…/settings, or one with a PUT alias) is read with GET and changed in part with
 * PATCH: `{}` changes nothing, an unknown field is a 400, and a PUT alias answers as the PATCH does.
 */
async function checkSettings(walk: Walk, path: string): Promise<void> {
  const { send } = walk.options;
  walk.report.settings.push(path);
  if (!walk.byKey.has(`GET ${path}`)) walk.violation(`GET ${path}`, 'a settings document nobody can read');
  if (!walk.byKey.has(`PATCH ${path}`) || walk.byKey.get(`PATCH ${path}`)?.spec.deprecated)
    return walk.violation(`PATCH ${path}`, 'settings are changed with PATCH');
  const read = await send('GET', path);
  const before = await read.text();
  if (read.status !== 200) return walk.violation(`GET ${path}`, `answered ${read.status}: ${before}`);
  const unchanged = async (method: string) => {
    const res = await send(method, path, { ...JSON_TYPE, body: '{}' });
    const text = await res.text();
    if (res.status !== 200 || JSON.stringify(JSON.parse(text)) !== JSON.stringify(JSON.parse(before)))
      walk.violation(
        `${method} ${path}`,
        `{} answered ${res.status} or other settings: ${text.slice(0, 200)}`,
      );
  };
  await unchanged('PATCH');
  if (walk.byKey.has(`PUT ${path}`)) await unchanged('PUT');
  const unknown = await send('PATCH', path, { ...JSON_TYPE, body: '{"noSuchSetting":1}' });
  const problem = await envelopeProblem(unknown, 400);
  if (problem) walk.violation(`PATCH ${path}`, `an unknown setting: ${problem}`);
}

async function checkOperation(walk: Walk, o: Operation): Promise<void> {
  await checkIdInBody(walk, o);
  checkFinishing(walk, o);
  if (o.method === 'PUT' && !WHOLE.has(o.key) && (!o.spec.deprecated || !walk.byKey.has(`PATCH ${o.path}`)))
    walk.violation(o.key, 'a PUT that is not a whole replacement: PATCH changes part');
  if (!OPEN.has(o.key)) {
    const res = await walk.options.sendWithoutToken(o.method, withMissing(o.path));
    const problem = await envelopeProblem(res, 401);
    if (problem) walk.violation(o.key, `without the admin token: ${problem}`);
  }
  if (hasParams(o.path)) await probeMissing(walk, o);
  else if (o.method !== 'GET') await probeBadBody(walk, o);
  else if (!JSON.stringify(o.spec.responses ?? {}).includes('text/event-stream')) {
    // Every read the document lists is served (an endless event stream is not waited for).
    const res = await walk.options.send('GET', o.path);
    if (res.status >= 400) walk.violation(o.key, `GET answered ${res.status}: ${await res.text()}`);
  }
}

/**
 * Walks every operation of the simulator's control OpenAPI document and checks the dialect: error
 * answers are the control envelope (a 401 without the admin token on every guarded route); a missing id
 * is a 404 (declared, and before the body is read); a body the route takes is declared and a malformed one
 * is a 400; settings are changed with PATCH (a PUT is a whole replacement or a deprecated alias of that
 * PATCH); no route but a listed alias takes the id of the one thing it acts on in its body; finishing work
 * is `POST …/{id}/complete` and `…/{id}/fail`.
 *
 * @example expect((await checkControlDialect({ send, sendWithoutToken, aliases })).violations).toEqual([])
 */
export async function checkControlDialect(options: ControlDialectOptions): Promise<ControlDialectReport> {
  const ops = operationsOf((await (await options.send('GET', '/_sim/openapi.json')).json()) as Document);
  const report: ControlDialectReport = {
    violations: [],
    operations: ops.map((o) => o.key),
    missingIds: [],
    badBodies: [],
    settings: [],
    idInBody: [],
    finishing: [],
  };
  const walk: Walk = {
    options,
    byKey: new Map(ops.map((o) => [o.key, o])),
    report,
    violation: (key, what) => report.violations.push(`${key}: ${what}`),
  };
  checkAliases(walk, ops);
  for (const o of ops) await checkOperation(walk, o);
  const settings = ops.filter(
    (o) => o.path.endsWith('/settings') || (o.method === 'PUT' && !WHOLE.has(o.key)),
  );
  for (const path of new Set(settings.map((o) => o.path))) await checkSettings(walk, path);
  return report;
}

/**
 * Lines of a folder's TypeScript files that write a control error envelope by hand (a `reason:` literal)
 * instead of calling sim-core's `controlError`.
 *
 * @example expect(await handBuiltEnvelopes(new URL('../src/control/', import.meta.url))).toEqual([])
 */
export async function handBuiltEnvelopes(folder: URL): Promise<string[]> {
  const dir = fileURLToPath(folder);
  const found: string[] = [];
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.ts')).sort()) {
    const lines = (await readFile(join(dir, name), 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (/\breason:\s*['"`]/.test(line)) found.push(`${name}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}
