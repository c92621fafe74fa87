/**
 * The invariants every response is held to, and the error envelopes of each API.
 *
 * - no crash: `app.request` answers (it does not reject) within the time limit;
 * - no unintended 5xx: a 5xx carries `X-Sim-Reason` (the simulator means it: an injected fault, a
 *   simulated CVAT 500, a refusal such as 501 not-simulated). For annotation-sim, a 500 without the header
 *   that FIDELITY.md documents as CVAT's own is not "unintended", but the hardening issue asks that every
 *   5xx carry `X-Sim-Reason` in both simulators, so it is reported as its own kind (`no-sim-reason`);
 * - every 4xx/5xx body is in the API's envelope (Google's for cluster-sim, CVAT's DRF/Django bodies for
 *   annotation-sim, the control plane's `{error:{status,reason,message}}` for `/_sim`);
 * - health stays 200 and Object.prototype stays clean (checked after each batch by the campaign).
 */
import type { FuzzRequest, FuzzResponse, SendOutcome } from './http';
import { type OpenApiDocument, type Schema, schemaProblems } from './openapi';

type ViolationKind =
  | 'crash'
  | 'timeout'
  | 'unintended-5xx'
  | 'no-sim-reason'
  | 'envelope'
  | 'health'
  | 'prototype-pollution'
  | 'isolation';

export interface Violation {
  kind: ViolationKind;
  /** What makes two violations the same bug (normalised: no ids, no numbers). */
  signature: string;
  message: string;
}

/** An API's error envelope check: the problems of one error response (empty when it fits). */
type EnvelopeCheck = (req: FuzzRequest, res: FuzzResponse) => string[];

export interface InvariantOptions {
  /** Label of the API (`cluster-sim API`, `annotation-sim control plane` …). */
  api: string;
  envelope: EnvelopeCheck;
  /** A 5xx without X-Sim-Reason that the simulator documents as deliberate (annotation-sim's CVAT 500s). */
  documented500?: (req: FuzzRequest, res: FuzzResponse) => string | undefined;
}

/** Strips what varies between occurrences of one bug: ids, numbers, quoted values. */
export function normalise(text: string, max = 140): string {
  const at = text.indexOf(' [at ');
  const head = at === -1 ? text : text.slice(0, at);
  const location = at === -1 ? '' : text.slice(at);
  // Quoted input is the varying part: from the first quote to the last, whatever it held inside.
  const unquoted = head.replace(/"[\s\S]*"/, '"…"').replace(/'[^']*'/g, "'…'");
  return `${unquoted}${location}`
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/0x[0-9a-f]+/gi, '<hex>')
    .replace(/\d+/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);
}

/** The template without the API version, so that v1 and v1beta1 twins group together. */
export function routeGroup(req: FuzzRequest): string {
  return `${req.method} ${req.template.replace(/^\/v1(beta1)?\//, '/v*/')}`;
}

/** The server-side cause of a failure, from what the simulator logged, else from the body. */
function causeOf(res: { logs: string[]; text?: string }): string | undefined {
  // An error line rather than a library's warning printed on the way.
  const log =
    res.logs.find((l) => /(Error|unhandled)\b/.test(l) && !/^\(node:\d+\) Warning/.test(l)) ??
    res.logs.find((l) => l.trim() !== '');
  if (log)
    return normalise(
      log.replace(/\[at .*?\]/, (m) => m.replace(/:\d+:\d+/g, '')),
      200,
    );
  return undefined;
}

export function checkOutcome(req: FuzzRequest, outcome: SendOutcome, options: InvariantOptions): Violation[] {
  const api = options.api;
  switch (outcome.kind) {
    case 'unsendable':
      return [];
    case 'threw':
      return [
        {
          kind: 'crash',
          signature: `${api}|crash|${normalise(outcome.error)}`,
          message: `app.request rejected: ${outcome.error}${outcome.logs.length ? `; logged: ${outcome.logs.join(' | ')}` : ''}`,
        },
      ];
    case 'timeout':
      return [
        {
          kind: 'timeout',
          signature: `${api}|timeout|${routeGroup(req)}`,
          message: `no answer within ${outcome.ms} ms`,
        },
      ];
    case 'response':
      return checkResponse(req, outcome.res, options);
  }
}

export function checkResponse(req: FuzzRequest, res: FuzzResponse, options: InvariantOptions): Violation[] {
  const api = options.api;
  const out: Violation[] = [];
  const reason = res.headers.get('x-sim-reason');
  if (res.status >= 500) {
    if (!reason) {
      const documented = options.documented500?.(req, res);
      const cause = causeOf(res) ?? `${routeGroup(req)} → ${normalise(res.text, 80)}`;
      if (documented) {
        out.push({
          kind: 'no-sim-reason',
          signature: `${api}|no-sim-reason|${res.status}|${documented}`,
          message: `${res.status} documented in FIDELITY.md (${documented}) but without X-Sim-Reason`,
        });
      } else {
        out.push({
          kind: 'unintended-5xx',
          signature: `${api}|5xx|${res.status}|${cause}`,
          message: `${res.status} without X-Sim-Reason${res.logs.length ? `; the simulator logged: ${res.logs.join(' | ')}` : ''}`,
        });
      }
    }
  }
  // A HEAD answer has no body to be in an envelope.
  if (res.status >= 400 && req.method !== 'HEAD') {
    const problems = options.envelope(req, res);
    if (problems.length > 0) {
      out.push({
        kind: 'envelope',
        signature: `${api}|envelope|${res.status}|${normalise(problems[0] as string, 100)}`,
        message: `${res.status} not in the ${api}'s error envelope: ${problems.join('; ')}`,
      });
    }
  }
  return out;
}

// --- envelopes ---------------------------------------------------------------------------------------

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** google.rpc.Code names and the HTTP status Google's front end gives each. */
const RPC_HTTP: Record<string, number> = {
  CANCELLED: 499,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
  UNAUTHENTICATED: 401,
};

/** The control plane's envelope: `{"error": {"status", "reason", "message", "path"?}}`, JSON. */
export function controlEnvelope(res: FuzzResponse): string[] {
  const problems: string[] = [];
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('application/json')) problems.push(`content-type "${type}" is not JSON`);
  const parsed = parseJson(res.text);
  if (!parsed.ok) return [...problems, `body is not JSON: ${JSON.stringify(res.text.slice(0, 80))}`];
  const body = parsed.value;
  if (!isObject(body) || !isObject(body.error)) return [...problems, 'no "error" object'];
  const extra = Object.keys(body).filter((k) => k !== 'error');
  if (extra.length > 0) problems.push(`extra top-level keys ${extra.join(', ')}`);
  const e = body.error;
  if (e.status !== res.status)
    problems.push(`error.status ${JSON.stringify(e.status)} is not the HTTP status`);
  if (typeof e.reason !== 'string' || e.reason === '') problems.push('error.reason is not a string');
  if (typeof e.message !== 'string') problems.push('error.message is not a string');
  if (e.path !== undefined && typeof e.path !== 'string') problems.push('error.path is not a string');
  if (problems.length === 0 && 'code' in e) problems.push('looks like the emulated API envelope');
  return problems;
}

/** `1-63 letters, digits, ".", "_" or "-", starting with a letter or digit` (sim-core's namespace rule). */
const NAMESPACE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** The namespace a request selects is malformed (the kernel answers that in the control envelope). */
export function hasInvalidNamespace(req: FuzzRequest): boolean {
  if (req.path.startsWith('/_ns/')) {
    const end = req.path.indexOf('/', 5);
    let name: string;
    try {
      name = decodeURIComponent(req.path.slice(5, end === -1 ? undefined : end));
    } catch {
      return true;
    }
    return name !== '' && !NAMESPACE_RE.test(name);
  }
  const header = req.headers.find(([k]) => k.toLowerCase() === 'x-sim-namespace')?.[1];
  return header !== undefined && header.trim() !== '' && !NAMESPACE_RE.test(header.trim());
}

/**
 * Google's error envelope: `{"error": {code, message, errors[], status, details?}}` as the document's own
 * `Status` schema says, `code` the HTTP status and `status` the google.rpc.Code name that maps to it.
 */
export function googleEnvelope(doc: OpenApiDocument, statusSchema: Schema): (res: FuzzResponse) => string[] {
  return (res) => {
    const problems: string[] = [];
    const type = res.headers.get('content-type') ?? '';
    if (!type.includes('application/json')) problems.push(`content-type "${type}" is not JSON`);
    const parsed = parseJson(res.text);
    if (!parsed.ok) return [...problems, `body is not JSON: ${JSON.stringify(res.text.slice(0, 80))}`];
    const body = parsed.value;
    problems.push(...schemaProblems(doc, statusSchema, body).slice(0, 3));
    if (!isObject(body) || !isObject(body.error)) return problems.length ? problems : ['no "error" object'];
    const extra = Object.keys(body).filter((k) => k !== 'error');
    if (extra.length > 0) problems.push(`extra top-level keys ${extra.join(', ')}`);
    const e = body.error;
    if (e.code !== res.status) problems.push(`error.code ${JSON.stringify(e.code)} is not the HTTP status`);
    const mapped = typeof e.status === 'string' ? RPC_HTTP[e.status] : undefined;
    if (mapped === undefined)
      problems.push(`error.status ${JSON.stringify(e.status)} is not a google.rpc.Code`);
    else if (mapped !== res.status)
      problems.push(`error.status ${e.status} is HTTP ${mapped}, not ${res.status}`);
    if (Array.isArray(e.errors) && e.errors.length === 0) problems.push('error.errors is empty');
    return problems;
  };
}

/** Django's 404 page for unknown URLs (DEBUG off), as annotation-sim serves it. */
const DJANGO_HTML =
  /<title>(Not Found|Server Error \(500\))<\/title>|<h1>(Not Found|Server Error \(500\))<\/h1>/;

/** Whether a value is one of DRF's error shapes: a string, a list of them, a field → errors map (nested). */
function isDrfErrorShape(v: unknown, depth = 0): boolean {
  if (depth > 8) return false;
  if (typeof v === 'string') return true;
  if (Array.isArray(v))
    return v.every((x) => isDrfErrorShape(x, depth + 1) || (isObject(x) && Object.keys(x).length === 0));
  if (isObject(v)) return Object.values(v).every((x) => isDrfErrorShape(x, depth + 1));
  return false;
}

/** The paths of the events and requests endpoints, whose views answer with Django's plain responses too. */
const PLAIN_TEXT_ROUTES = /^\/api\/(events|requests)(\/|$)/;
/** The previews' Django `HttpResponseNotFound` (FIDELITY.md, Previews): a task without data, a project without tasks. */
const PREVIEW_ROUTES = /^\/api\/(tasks|jobs|projects)\/[^/]+\/(preview|data)\/?$/;
const PREVIEW_NOT_FOUND = /^(Task|Project) image preview not found$/;
/** A task's annotations without data: Django's `HttpResponseBadRequest` (FIDELITY.md, Annotations). */
const TASK_ANNOTATIONS = /^\/api\/tasks\/[^/]+\/annotations\/?$/;
const NO_DATA_ANNOTATIONS = 'Exporting annotations from a task without data is not allowed';
/**
 * CVAT 2.73's `HttpResponseGone` pages of the retired export and import-status flows (FIDELITY.md,
 * Annotations and Imports: `get_410_response_for_export_api`, `get_410_response_when_checking_process_status`).
 */
const GONE_PAGE = /^This endpoint (is no longer supported|no longer supports checking the status of the)/;

/** The path the server routes (dot segments resolved as the URL parser does), without `/_ns/<name>`. */
export function apiPath(req: FuzzRequest): string {
  let path = req.path;
  try {
    path = new URL(`http://127.0.0.1${req.path}`).pathname;
  } catch {
    // keep it as sent
  }
  if (path.startsWith('/_ns/')) {
    const end = path.indexOf('/', 5);
    path = end === -1 ? '/' : path.slice(end);
  }
  return path === '' ? '/' : path;
}

/** Whether the request reaches the control plane (`/_sim…`), whatever its path looked like. */
export function reachesControlPlane(req: FuzzRequest): boolean {
  const path = apiPath(req);
  return path === '/_sim' || path.startsWith('/_sim/');
}

/** Whether a request is for cluster-sim's Compute Engine slice (`/compute/v1/…`, after any namespace prefix). */
export function reachesCompute(req: FuzzRequest): boolean {
  const path = apiPath(req);
  return path === '/compute/v1' || path.startsWith('/compute/v1/');
}

/**
 * Compute Engine's error bodies (cluster-sim FIDELITY.md, Compute slice): `{error: {code, message, errors:
 * [{message, domain, reason}]}}`; `status` (a google.rpc.Code matching the HTTP status) and details only
 * where Google's front end answers (credentials, scopes, rate limits) and on the simulator's 501.
 */
export function computeEnvelope(res: FuzzResponse): string[] {
  const parsed = parseJson(res.text);
  if (!parsed.ok) return [`body is not JSON: ${JSON.stringify(res.text.slice(0, 80))}`];
  const body = parsed.value;
  if (!isObject(body) || !isObject(body.error)) return ['no "error" object'];
  const e = body.error;
  const problems: string[] = [];
  if (e.code !== res.status) problems.push(`error.code ${JSON.stringify(e.code)} is not the HTTP status`);
  if (typeof e.message !== 'string') problems.push('error.message is not a string');
  const first = Array.isArray(e.errors) ? e.errors[0] : undefined;
  if (!isObject(first) || typeof first.reason !== 'string' || typeof first.domain !== 'string')
    problems.push('error.errors[0] has no domain and reason');
  if (e.status !== undefined && RPC_HTTP[String(e.status)] !== res.status)
    problems.push(`error.status ${JSON.stringify(e.status)} is not HTTP ${res.status}`);
  return problems;
}

/**
 * CVAT's error bodies, per FIDELITY.md: DRF JSON (`application/vnd.cvat+json`) as `{"detail": …}` for
 * 401/403/404/405/406/415, field→messages maps, bare lists or a bare string for 400s, `{"rq_id"}` for 409;
 * Django's HTML pages for unknown URLs (404) and 500s; Django's plain responses on the events and requests
 * endpoints and the previews' `HttpResponseNotFound`. Every response carries X-Request-Id.
 */
export function cvatEnvelope(req: FuzzRequest, res: FuzzResponse): string[] {
  const problems: string[] = [];
  if (!res.headers.get('x-request-id')) problems.push('no X-Request-Id header');
  const type = res.headers.get('content-type') ?? '';
  const path = apiPath(req);
  if (type.startsWith('text/html')) {
    if (res.status === 500 || (res.status === 404 && DJANGO_HTML.test(res.text))) return problems;
    if (PLAIN_TEXT_ROUTES.test(path) && (res.status === 400 || res.status === 404)) return problems;
    if (res.status === 404 && PREVIEW_ROUTES.test(path) && PREVIEW_NOT_FOUND.test(res.text)) return problems;
    if (res.status === 400 && TASK_ANNOTATIONS.test(path) && res.text === NO_DATA_ANNOTATIONS)
      return problems;
    if (res.status === 410 && GONE_PAGE.test(res.text)) return problems;
    return [...problems, `text/html ${res.status} outside the Django pages FIDELITY.md lists`];
  }
  if (type === '' && res.text === '') {
    // DRF's Response(None): FIDELITY.md lists the deprecated events flow's bodiless answers only below 400.
    return [...problems, `${res.status} with an empty body and no content type`];
  }
  if (!type.startsWith('application/vnd.cvat+json')) {
    return [...problems, `content-type "${type}" is neither CVAT's JSON nor a Django page`];
  }
  const parsed = parseJson(res.text);
  if (!parsed.ok) return [...problems, `body is not JSON: ${JSON.stringify(res.text.slice(0, 80))}`];
  const body = parsed.value;
  if ([401, 403, 405, 406, 415].includes(res.status)) {
    if (!isObject(body) || typeof body.detail !== 'string')
      problems.push(`${res.status} without {"detail": "…"}`);
  } else if (res.status === 404) {
    if (!(isObject(body) && typeof body.detail === 'string') && typeof body !== 'string') {
      problems.push('404 JSON is neither {"detail"} nor a string');
    }
  } else if (res.status === 409 && isObject(body) && 'rq_id' in body) {
    // the export conflict
  } else if (res.status === 500 && typeof body === 'string') {
    // the deprecated events flow's failed job (a JSON string)
  } else if (!isDrfErrorShape(body)) {
    problems.push(`${res.status} body is not a DRF error shape: ${res.text.slice(0, 80)}`);
  }
  return problems;
}
