import type { RequestSim, World } from '@sims/sim-core';
import type { Context, Handler } from 'hono';
import type { ChangeDispatcher } from '../changes-dispatch';
import type { Actor, ResourceChange } from '../domain/changes';
import { fail, notFound, ok, type Result } from '../domain/errors';
import type { UserRec } from '../domain/model';
import type { MutationContext } from '../domain/mutation';
import type { OrgContext } from '../domain/org-context';
import { PythonJsonError, parsePythonJson } from '../domain/python-json-parse';
import type { AnnotationData, AnnotationState } from '../domain/state';
import { type Authenticated, type AuthOptions, authenticate } from './auth';
import { orgContextOf } from './org-context';
import { type RequestSchema, validateFields } from './parse';
import { queryValue } from './query-values';
import { CVAT_JSON, cvatJson, renderApiError } from './respond';

/** What routes need from the app beyond the request. */
export interface RouteDeps {
  auth: AuthOptions;
  /** DRF content negotiation: a bare `Accept: application/json` gets 406 like CVAT's renderer set. */
  strictAccept: boolean;
  /** Where the changes a request made go when its view returns: webhooks and the server-event log. */
  changes: ChangeDispatcher;
}

/**
 * A route's request body as a DRF serializer reads it: its fields (a request schema of
 * `@sims/annotation-schema`, built on first use) and whether it is a partial update (PATCH).
 */
export interface BodySpec {
  schema: () => RequestSchema;
  partial: boolean;
}

/**
 * One request of the emulated API: state, clock, caller, organization context, and the body of `B` its
 * route row declares (read with {@link ApiRequest.body} when the view asks, as DRF reads it).
 */
export class ApiRequest<B = unknown> {
  readonly sim: RequestSim<AnnotationState>;
  readonly world: World<AnnotationState>;
  readonly state: AnnotationState;
  readonly now: number;
  /**
   * The changes the domain made for this request, in order ({@link mutation} gives the list to the
   * domain); {@link api} hands them on when the view returns.
   */
  readonly changes: ResourceChange[] = [];
  private authCache: Result<Authenticated | undefined> | undefined;
  private orgCache: Result<OrgContext> | undefined;
  private paramsCache: URLSearchParams | undefined;

  constructor(
    readonly c: Context,
    readonly deps: RouteDeps,
    private readonly bodySpec?: BodySpec,
  ) {
    this.sim = c.get('sim') as RequestSim<AnnotationState>;
    this.world = this.sim.world;
    this.state = this.world.state;
    this.now = this.world.clock.now();
  }

  /** The caller if authenticated, else undefined, or the 401/403 for bad credentials. */
  optionalAuth(): Result<Authenticated | undefined> {
    this.authCache ??= authenticate(this.c, this.state, this.deps.auth, this.now);
    return this.authCache;
  }

  /** The caller, or 401 "Authentication credentials were not provided." (or the 401/403 of bad ones). */
  authenticated(): Result<Authenticated> {
    const auth = this.optionalAuth();
    if (!auth.ok) return auth;
    return auth.value === undefined ? fail({ code: 'NOT_AUTHENTICATED' }) : ok(auth.value);
  }

  /**
   * The caller the edge authenticated ({@link api} refuses an unauthenticated request before the view
   * runs). A view of an `anonymous` route reads {@link optionalAuth} instead: asking it for a caller
   * it may not have is a bug of the view, not the client's error.
   */
  auth(): Authenticated {
    const auth = this.authenticated();
    if (!auth.ok) throw new Error(`${this.c.req.method} ${this.c.req.path}: no authenticated caller`);
    return auth.value;
  }

  user(): UserRec {
    return this.auth().user;
  }

  /** The request's organization context (query `org`, `org_id`, header `X-Organization`), or its 400/404. */
  orgContext(): Result<OrgContext> {
    this.orgCache ??= orgContextOf(this.c, this.state);
    return this.orgCache;
  }

  /** The request body as DRF's JSONParser gives it (`{}` when empty), or its 415 / 400 / 500 answer. */
  parsedBody(): Result<unknown> {
    const raw = this.sim.rawBody ?? '';
    if (this.sim.jsonOverBudget === undefined && bodyIsBlank(this.sim)) return ok({});
    const type = (this.c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type !== 'application/json')
      return fail({ code: 'UNSUPPORTED_MEDIA_TYPE', mediaType: this.c.req.header('content-type') ?? '' });
    if (this.sim.jsonOverBudget !== undefined) {
      // Past the simulator's JSON budget (FIDELITY.md, Limits): never parsed, answered as DRF answers
      // JSON its parser refuses. CVAT would parse it.
      return fail({ code: 'PARSE_ERROR', detail: `JSON parse error - ${this.sim.jsonError}` });
    }
    if (this.sim.jsonTooDeep !== undefined) {
      // Python's json module recurses: past its recursion limit a RecursionError escapes DRF's JSONParser
      // (which catches only ValueError) and Django answers its 500 page.
      return fail({
        code: 'SERVER_ERROR',
        reason: 'RecursionError: maximum recursion depth exceeded while decoding a JSON object',
      });
    }
    if (this.sim.jsonError !== undefined) {
      let message = pythonJsonError(raw, this.sim.jsonError);
      try {
        if (raw.length <= PYTHON_MESSAGE_MAX_CHARS) parsePythonJson(raw);
      } catch (err) {
        // Python's json module message for the same text.
        if (err instanceof PythonJsonError) message = err.message;
      }
      return fail({ code: 'PARSE_ERROR', detail: `JSON parse error - ${message}` });
    }
    return ok(this.sim.json);
  }

  /**
   * The body checked against the route row's schema with DRF's errors (`serializer.is_valid()`), or its
   * 415 / 400 / 500 answer. Read when the view asks, not before: DRF parses `request.data` lazily, so a
   * missing record (404) or a refused permission (403) answers before a bad body does.
   */
  body(): Result<B> {
    const raw = this.parsedBody();
    return raw.ok ? this.bodyFrom(raw.value) : raw;
  }

  /** `data` (a body the view assembled, such as a multipart form's fields) checked like {@link body}. */
  bodyFrom(data: unknown): Result<B> {
    const spec = this.bodySpec;
    if (spec === undefined)
      throw new Error(`${this.c.req.method} ${this.c.req.path}: no body in its route row`);
    const v = validateFields(data, spec.schema(), spec.partial);
    return v.ok ? ok(v.value as B) : fail({ code: 'INVALID', errors: v.errors });
  }

  /** A query parameter as DRF's `request.query_params.get(name)` reads it: the last of repeated values. */
  query(name: string): string | undefined {
    this.paramsCache ??= new URL(this.c.req.url).searchParams;
    return queryValue(this.paramsCache, name);
  }

  actor(): Actor {
    const auth = this.auth();
    const u = auth.user;
    return {
      kind: 'user',
      id: u.id,
      username: u.username,
      email: u.email,
      requestId: this.sim.requestId,
      accessTokenId: auth.accessTokenId ?? null,
      userAgent: this.c.req.header('user-agent') ?? null,
    };
  }

  mutation(actor: Actor | null = this.actor()): MutationContext {
    return {
      state: this.state,
      now: this.now,
      actor,
      hex: (n) => this.world.ids.hex(n),
      changes: this.changes,
    };
  }

  /** A path id as DRF routes it (`\d+`); anything else is 404 "Not found.". */
  idParam(name: string): Result<number> {
    const raw = this.c.req.param(name) ?? '';
    return /^\d+$/.test(raw) ? ok(Number(raw)) : fail({ code: 'NOT_FOUND', detail: 'Not found.' });
  }

  /** A record by id, or DRF's 404 `No <Model> matches the given query.`. */
  find<T>(map: Map<number, T>, id: number, model: string): Result<T> {
    const rec = map.get(id);
    return rec === undefined ? fail(notFound(model)) : ok(rec);
  }

  /** The record the path's `:id` names: 404 for an id DRF would not route or a record that is not there. */
  record<T>(map: Map<number, T>, model: string): Result<T> {
    const id = this.idParam('id');
    return id.ok ? this.find(map, id.value, model) : id;
  }
}

/**
 * Media types the kernel decodes and parses as JSON within the JSON budget (with bodies that name no
 * type): those the events API takes (events/routes.ts), a superset of `parsedBody`'s.
 */
export const JSON_MEDIA_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

/**
 * annotation-sim's `limits.bytesBodies`: a body whose Content-Type is not JSON (a multipart upload, a
 * TUS chunk, anything else) is kept as bytes up to the 100 MiB body limit, never decoded or parsed:
 * its routes read it as multipart or only measure it, and the others answer it 415 unread.
 */
export function keptAsBytes(contentType: string | undefined): boolean {
  return contentType !== undefined && !JSON_MEDIA_TYPE.test(contentType);
}

/** Whether a request has no body, or only whitespace (a body kept as bytes: ASCII whitespace). */
function bodyIsBlank(sim: { rawBody?: string; bodyBytes?: Uint8Array }): boolean {
  const bytes = sim.bodyBytes;
  if (bytes === undefined) return (sim.rawBody ?? '').trim() === '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    // space, \t \n \v \f \r
    if (b !== 0x20 && (b < 0x09 || b > 0x0d)) return false;
  }
  return true;
}

/**
 * Longest malformed body whose error message is Python's own (`parsePythonJson`, which builds the values
 * it reads, at ~100 bytes and 3 µs each: 1 MiB took 1.7 s and 45 MB); a longer one gets the message made
 * from V8's position (`pythonJsonError`), so a malformed body within the JSON budget stays cheap.
 */
export const PYTHON_MESSAGE_MAX_CHARS = 256 * 1024;

/** Python's json error message for the first problem V8 reports (position when it says one). */
function pythonJsonError(raw: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  const pos = m ? Number(m[1]) : /Unexpected end/.test(message) ? raw.length : 0;
  const before = raw.slice(0, pos);
  const line = before.split('\n').length;
  const col = pos - before.lastIndexOf('\n');
  const what = /property name/.test(message)
    ? 'Expecting property name enclosed in double quotes'
    : 'Expecting value';
  return `${what}: line ${line} column ${col} (char ${pos})`;
}

/**
 * The base of links in answers: the request's scheme, its Host header (else the URL's host) and, so
 * that links lead back into the same namespace, a `/_ns/<name>` path prefix. Consecutive requests
 * nearly always share it: the world's last one is reused while the URL's origin and the Host header are
 * the same and there is no prefix (a URL parse per request was a tenth of a GET's cost: bench/).
 */
function baseUrlOf(data: AnnotationData, requestUrl: string, host: string | undefined): string {
  const pathStart = requestUrl.indexOf('/', requestUrl.indexOf('//') + 2);
  const namespaced = pathStart !== -1 && requestUrl.startsWith('/_ns/', pathStart);
  const from = data.baseUrlFrom;
  if (
    from !== undefined &&
    !namespaced &&
    from.host === host &&
    from.origin.length === pathStart &&
    requestUrl.startsWith(from.origin)
  ) {
    return data.baseUrl;
  }
  const url = new URL(requestUrl);
  const prefix = /^\/_ns\/[^/]+/.exec(url.pathname)?.[0] ?? '';
  data.baseUrlFrom =
    !namespaced && pathStart !== -1 ? { origin: requestUrl.slice(0, pathStart), host } : undefined;
  return `${url.protocol}//${host ?? url.host}${prefix}`;
}

/**
 * Wraps a route handler: builds the ApiRequest, records the base URL for absolute `url` fields,
 * checks the Accept header and authenticates (unless `anonymous`); the handler returns its refusals,
 * rendered by `renderApiError`. The changes the handler's domain calls made go to the change dispatcher
 * when it returns (or throws), before the response leaves: their webhooks are queued and their server
 * events logged in the order they were made, as the request's answer is sent.
 */
export function api<B = unknown>(
  deps: RouteDeps,
  fn: (r: ApiRequest<B>) => Response | Promise<Response>,
  options: { anonymous?: boolean; body?: BodySpec } = {},
): Handler {
  return (c) => {
    const r = new ApiRequest<B>(c, deps, options.body);
    r.state.baseUrl = baseUrlOf(r.state, c.req.url, c.req.header('host'));
    if (deps.strictAccept && !acceptable(c.req.header('accept'))) {
      // DRF renders a failed negotiation with its first renderer (force=True): CVAT's own JSON type.
      return cvatJson(c, { detail: 'Could not satisfy the request Accept header.' }, 406);
    }
    // DRF authenticates and checks IsAuthenticated before the view looks anything up: 401 before 404.
    if (!options.anonymous) {
      const auth = r.authenticated();
      if (!auth.ok) return renderApiError(c, auth.error);
    }
    let answer: Response | Promise<Response>;
    try {
      answer = fn(r);
    } finally {
      dispatchChanges(deps, r);
    }
    // An async view's changes after its first await go when it settles (none makes any today).
    return answer instanceof Promise ? answer.finally(() => dispatchChanges(deps, r)) : answer;
  };
}

/** Hands on the changes a request made so far (none: nothing to do). */
function dispatchChanges(deps: RouteDeps, r: ApiRequest<unknown>): void {
  if (r.changes.length > 0) deps.changes.dispatch(r.state, r.changes.splice(0));
}

/** DRF negotiation against CVAT's renderer (`application/vnd.cvat+json`). */
function acceptable(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const type = (part.split(';')[0] ?? '').trim().toLowerCase();
    return type === '*/*' || type === 'application/*' || type === CVAT_JSON;
  });
}
