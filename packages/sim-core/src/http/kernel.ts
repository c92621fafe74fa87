import { Http2ServerRequest } from 'node:http2';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { SimInputError } from '../duration';
import type { FaultRule, RequestFacts } from '../faults/engine';
import { DeferredJournalEntry, type JournalEntry } from '../journal';

import type { SimulatorDefinition } from '../simulator';
import {
  createNamespaces,
  NamespaceLimitError,
  type Namespaces,
  type NamespacesOptions,
  type World,
} from '../world';
import { jsonTooDeep, readBoundedText } from './body';
import { adminTokenGuard, createControlPlane } from './control-plane';
import { dashboardCookie } from './dashboard';
import { namespaceAwareGetPath, resolveNamespace } from './namespace';
import { fieldKey, isSecretHeader, redactJson, redactQuery, redactText } from './redact';
import { controlError } from './responses';
import { createRouter } from './router';

/** What every emulated-API handler can read from `c.var.sim`. */
export interface RequestSim<S> {
  world: World<S>;
  namespace: string;
  /** A per-request id (uuid), seeded per world. */
  requestId: string;
  /** The API operation the route named, e.g. `nodePools.update`. */
  operation?: string;
  resource?: string;
  /** Ids of the fault rules that fired for this request. */
  fired: string[];
  /** The request body as text (read once by `operation()` for methods that carry one). */
  rawBody?: string;
  /** The request body parsed as JSON; `undefined` when absent or malformed (see `jsonError`). */
  json?: unknown;
  /** Set when the body is present but is not valid JSON (or nests too deep: `jsonTooDeep`). */
  jsonError?: string;
  /** Set when the body is JSON nested deeper than the simulator's `limits.maxJsonDepth`. */
  jsonTooDeep?: { key: string; maxDepth: number };
  /** The facts fault rules match against. */
  facts(): RequestFacts;
  /**
   * Takes a domain effect of `kind` (e.g. `operationFails`) if a rule matches this request and fires;
   * the rule's id is added to `fired` so the journal says it fired.
   */
  takeEffect<T = unknown>(kind: string): T | undefined;
}

export interface SimEnv<S> {
  Bindings: Partial<HttpBindings>;
  Variables: { sim: RequestSim<S> };
}

/**
 * Besides these: `seed`, `clock`, `journalCapacity` (entries per namespace), `journalMaxBytes` (all
 * namespaces' journals together, default 64 MiB) and `maxNamespaces` (default 1,000).
 */
export interface KernelOptions extends NamespacesOptions {
  /** When set, control-plane calls (except health) need `Authorization: Bearer <token>` or `X-Sim-Admin-Token`. */
  adminToken?: string;
  /** Journal: capture request/response bodies up to this many bytes (0 turns capture off). Default 16 KiB. */
  journalBodyLimit?: number;
  /** Largest emulated-API request body read, in bytes; default the simulator's `limits.maxBodyBytes`. */
  maxBodyBytes?: number;
  /** Longest a `hang` connection fault holds a request, in wall ms (it ends sooner if the client leaves). */
  hangLimitMs?: number;
  /** Called with every journaled request (the CLI's `--log debug` prints them). */
  requestLog?: (entry: JournalEntry) => void;
  /**
   * Called when an emulated-API request has its response (`c.res`), before it is journaled: for headers
   * every answer carries. Cheaper than a middleware of its own (one async layer less per request).
   */
  onResponse?: (c: Context<SimEnv<unknown>>) => void;
}

export interface SimKernel<S> {
  /** The Hono app: add the emulated API's routes to it. */
  app: Hono<SimEnv<S>>;
  namespaces: Namespaces<S>;
  def: SimulatorDefinition<S>;
  /**
   * Route middleware naming the API operation: runs `before` fault rules, the handler, then `after` rules.
   *
   * @example app.put('/v1beta1/projects/:p/…', kernel.operation('nodePools.update', (c) => name(c)), handler)
   */
  operation(
    name: string | ((c: Context<SimEnv<S>>) => string),
    resource?: (c: Context<SimEnv<S>>) => string | undefined,
  ): MiddlewareHandler<SimEnv<S>>;
  close(): void;
}

const DEFAULT_SENSITIVE = [
  'authorization',
  'cookie',
  'proxy-authorization',
  'x-csrftoken',
  'x-api-key',
  'x-sim-admin-token',
  'x-auth-token',
  'x-access-token',
  'x-goog-api-key',
  'x-csrf-token',
  'x-xsrf-token',
];
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Request bodies past this are refused unless the simulator says otherwise (`limits`). */
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** JSON nested deeper than this is refused unless the simulator says otherwise (`limits`). */
const DEFAULT_MAX_JSON_DEPTH = 100;

/** A simulated connection fault, thrown when there is no socket to act on (`app.request()` tests). */
export class SimulatedConnectionFault extends Error {
  override readonly name = 'SimulatedConnectionFault';
  constructor(readonly kind: 'reset' | 'hang' | 'truncate') {
    super(`simulated connection fault: ${kind}`);
  }
}

/** What a journal entry keeps of a body past the capture limit: its size and the start of it. */
interface TruncatedText {
  size: number;
  preview: string;
}

const PREVIEW_CHARS = 256;

/**
 * A body text as a journal entry keeps it: whole up to the capture limit (shared through `slots`),
 * past it only its size and a preview, so an entry never holds a body it will not show.
 */
function keptText(
  slots: LastInSlot,
  slot: string,
  text: string | undefined,
  limit: number,
): string | TruncatedText | undefined {
  if (text === undefined || limit === 0) return undefined;
  if (text.length <= limit) return slots.get(slot, text);
  // A copy: a slice of a long string would keep the whole string alive.
  const preview = Buffer.from(text.slice(0, PREVIEW_CHARS), 'utf16le').toString('utf16le');
  return { size: text.length, preview };
}

const keptSize = (text: string | TruncatedText | undefined): number =>
  text === undefined ? 0 : typeof text === 'string' ? text.length : text.preview.length + 16;

/** A body as the journal shows it: parsed JSON or text, secret-looking fields redacted (redact.ts). */
function capture(
  value: string | TruncatedText | undefined,
  limit: number,
  secretFields: ReadonlySet<string>,
): unknown {
  if (value === undefined || value === '' || limit === 0) return undefined;
  const preview = (text: string) => redactText(text, secretFields);
  if (typeof value !== 'string')
    return { truncated: true, size: value.size, preview: preview(value.preview) };
  if (value.length > limit)
    return { truncated: true, size: value.length, preview: preview(value.slice(0, PREVIEW_CHARS)) };
  try {
    // Parsed afresh at every build: redacting it changes nothing the simulator keeps.
    return redactJson(JSON.parse(value), secretFields);
  } catch {
    return redactText(value, secretFields);
  }
}

/** @hono/node-server's private key of a lightweight Response's `[status, body, headers]` (see `knownBody`). */
let cacheKey: symbol | undefined;

/**
 * A response's body text when it is known without reading the body: @hono/node-server's lightweight
 * Response keeps `[status, body, headers]` under a private symbol (description `cache`) until something
 * touches `.body` or `.clone()`. Touching them builds a native Response and a tee of web streams, and the
 * server then copies the stream instead of one `end(string)`: under load that was a third of the CPU
 * (bench/, issue 8). `null` for no body; `undefined` when unknown (a stream, a native Response).
 * Its content type and length come from the headers it was made with.
 */
function knownBody(res: Response): { text: string; type: string; length: number } | null | undefined {
  if (cacheKey === undefined) {
    cacheKey = Object.getOwnPropertySymbols(res).find((key) => key.description === 'cache');
    if (cacheKey === undefined) return undefined;
  }
  const cache = (res as unknown as Record<symbol, unknown>)[cacheKey];
  if (!Array.isArray(cache)) return undefined;
  const body: unknown = cache[1];
  if (body === null || body === undefined) return null;
  if (typeof body !== 'string') return undefined;
  // The headers as given (a plain record stays one: making it a Headers object costs as much again).
  const headers: unknown = cache[2];
  let type: string | undefined;
  let length: string | undefined;
  if (headers === undefined || headers === null) type = 'text/plain; charset=UTF-8';
  else if (headers instanceof Headers) {
    type = headers.get('content-type') ?? undefined;
    length = headers.get('content-length') ?? undefined;
  } else if (Array.isArray(headers)) {
    for (const [name, value] of headers as [string, string][]) {
      const lower = name.toLowerCase();
      if (lower === 'content-type') type = String(value);
      else if (lower === 'content-length') length = String(value);
    }
  } else {
    for (const name in headers as Record<string, unknown>) {
      const value = (headers as Record<string, unknown>)[name];
      const lower = name.length === 12 || name.length === 14 ? name.toLowerCase() : '';
      if (lower === 'content-type') type = String(value);
      else if (lower === 'content-length') length = String(value);
    }
  }
  return { text: body, type: type ?? '', length: Number(length ?? 0) };
}

function queryOf(url: string): Record<string, string> {
  const q = url.indexOf('?');
  if (q === -1) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(url.slice(q + 1))) if (!(k in out)) out[k] = v;
  return out;
}

/** What every recorded request's journal entry shares: redaction and the body limit. */
interface EntryContext {
  sensitive: ReadonlySet<string>;
  /** The simulator's own secret field names (`sensitiveFields`), as `fieldKey` gives them. */
  secretFields: ReadonlySet<string>;
  bodyLimit: number;
}

function redact(name: string, value: string, sensitive: ReadonlySet<string>): string {
  if (!sensitive.has(name) && !isSecretHeader(name)) return value;
  const space = value.indexOf(' ');
  return space > 0 && name === 'authorization' ? `${value.slice(0, space)} [REDACTED]` : '[REDACTED]';
}

/**
 * Request header lines as one string (`name\nvalue\n…`): one flat string per journal entry instead of
 * an array of strings or a Headers object. Entries live for 10,000 requests, so everything they hold is
 * promoted by the GC, and fewer, flatter objects cost it less (bench/, issue 8).
 * From Node's `rawHeaders` when served by @hono/node-server, so that recording never builds a Headers.
 */
function headerLines(raw: readonly string[] | Headers): string {
  if (!(raw instanceof Headers)) return raw.join('\n');
  let lines = '';
  raw.forEach((value, name) => {
    lines += lines === '' ? `${name}\n${value}` : `\n${name}\n${value}`;
  });
  return lines;
}

/**
 * Request headers as a Headers object lists them (lower-case names in order, repeated ones joined,
 * values trimmed), credentials redacted.
 */
function journalHeaders(lines: string, sensitive: ReadonlySet<string>): Record<string, string> {
  const raw = lines === '' ? [] : lines.split('\n');
  const joined = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (name.startsWith(':')) continue;
    const value = (raw[i + 1] as string).trim();
    const before = joined.get(name);
    joined.set(name, before === undefined ? value : `${before}${name === 'cookie' ? '; ' : ', '}${value}`);
  }
  const out: Record<string, string> = {};
  for (const name of [...joined.keys()].sort())
    out[name] = redact(name, joined.get(name) as string, sensitive);
  return out;
}

/**
 * Hands out one instance per distinct string seen lately. A journal entry keeps its request's url,
 * path, resource, header lines and bodies for 10,000 requests; clients repeat them, so keeping a shared
 * instance lets each request's own copy die young instead of being promoted by the GC (bench/, issue
 * 8). Bounded: forgets everything when full. For short strings (a lookup hashes the whole string).
 */
class Interner {
  readonly #seen = new Map<string, string>();
  constructor(readonly capacity: number) {}
  get<T extends string | undefined>(value: T): T {
    if (value === undefined || value.length > 4096) return value;
    const seen = this.#seen.get(value);
    if (seen !== undefined) return seen as T;
    if (this.#seen.size >= this.capacity) this.#seen.clear();
    this.#seen.set(value, value);
    return value;
  }
}

/**
 * The same sharing for long strings (header lines, bodies), against the last one kept in the same slot
 * (a method and path): a response text is a new string on every request, and hashing it for
 * {@link Interner} cost ~1.5 µs of a ~31 µs GET /api/tasks/{id} (issue 8); one comparison with the
 * last text of that slot costs a length check and at most one memcmp. Bounded like {@link Interner}.
 */
class LastInSlot {
  readonly #last = new Map<string, string>();
  constructor(readonly capacity: number) {}
  get<T extends string | undefined>(slot: string, value: T): T {
    if (value === undefined) return value;
    const last = this.#last.get(slot);
    // Equal text: hand back the instance already kept (the new one dies young).
    if (last === value) return last as T;
    if (this.#last.size >= this.capacity) this.#last.clear();
    this.#last.set(slot, value);
    return value;
  }
}

/** The faults of the many entries for which none fired (one array fewer per entry kept). */
const NO_FAULTS: string[] = [];

/** A request as the kernel records it: its headers, query, bodies and time are made into an entry when read. */
class RequestEntry extends DeferredJournalEntry {
  constructor(
    readonly requestId: string,
    private readonly timeMs: number,
    readonly namespace: string,
    readonly operation: string | undefined,
    readonly resource: string | undefined,
    readonly method: string,
    readonly path: string,
    readonly status: number,
    /** Wall time answering, in whole microseconds (a small integer is stored inline; a fraction is not). */
    private readonly durationUs: number,
    readonly faults: string[],
    private readonly url: string,
    private readonly headerLines: string,
    private readonly requestText: string | TruncatedText | undefined,
    private readonly responseText: string | TruncatedText | undefined,
    private readonly context: EntryContext,
  ) {
    super();
  }

  protected build(): Omit<JournalEntry, 'seq'> {
    const { bodyLimit, sensitive, secretFields } = this.context;
    return {
      requestId: this.requestId,
      time: new Date(this.timeMs).toISOString(),
      namespace: this.namespace,
      operation: this.operation,
      resource: this.resource,
      method: this.method,
      path: this.path,
      query: redactQuery(queryOf(this.url), secretFields),
      headers: journalHeaders(this.headerLines, sensitive),
      requestBody: this.requestText ? capture(this.requestText, bodyLimit, secretFields) : undefined,
      status: this.status,
      responseBody:
        this.responseText === undefined ? undefined : capture(this.responseText, bodyLimit, secretFields),
      durationMs: this.durationUs / 1000,
      faults: this.faults === NO_FAULTS ? [] : this.faults,
    };
  }

  /** Counts every kept string in full, also those shared with other entries (an upper bound). */
  override byteSize(): number {
    return (
      super.byteSize() +
      this.url.length +
      this.headerLines.length +
      keptSize(this.requestText) +
      keptSize(this.responseText)
    );
  }
}

/** `c.var.sim`: made for every emulated-API request, so its methods live on the prototype. */
class RequestContext<S> implements RequestSim<S> {
  operation?: string;
  resource?: string;
  fired: string[] = [];
  rawBody?: string;
  json?: unknown;
  jsonError?: string;
  jsonTooDeep?: { key: string; maxDepth: number };
  #facts: RequestFacts | undefined;
  readonly #c: Context<SimEnv<S>>;

  constructor(
    readonly world: World<S>,
    readonly namespace: string,
    readonly requestId: string,
    c: Context<SimEnv<S>>,
  ) {
    this.#c = c;
  }

  facts(): RequestFacts {
    const c = this.#c;
    this.#facts ??= {
      method: c.req.method,
      path: c.req.path,
      headers: Object.fromEntries(c.req.raw.headers),
      query: queryOf(c.req.url),
    };
    this.#facts.operation = this.operation;
    this.#facts.resource = this.resource;
    this.#facts.body = this.json;
    return this.#facts;
  }

  takeEffect<T>(kind: string): T | undefined {
    // No rules, nothing to take: skip building the request facts (a headers copy per call).
    if (this.world.faults.size() === 0) return undefined;
    const taken = this.world.faults.take<T>(this.facts(), kind);
    if (!taken) return undefined;
    this.fired.push(taken.rule.id);
    return taken.value;
  }
}

/**
 * Builds the shared part of a simulator: namespaces of worlds, the request context and journal
 * middleware, the fault phases, and the control plane at `/_sim`.
 *
 * @example
 * const kernel = createSimKernel(clusterDefinition, { seed: 42, clock: { mode: 'manual' } });
 * kernel.app.get('/v1beta1/…', kernel.operation('nodePools.get'), (c) => c.json(…));
 */
export function createSimKernel<S>(def: SimulatorDefinition<S>, options: KernelOptions = {}): SimKernel<S> {
  const namespaces = createNamespaces(def, options);
  const bodyLimit = options.journalBodyLimit ?? 16 * 1024;
  const hangLimit = options.hangLimitMs ?? 600_000;
  const maxBodyBytes = options.maxBodyBytes ?? def.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxJsonDepth = def.limits?.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const sensitive = new Set([
    ...DEFAULT_SENSITIVE,
    ...(def.sensitiveHeaders ?? []).map((h) => h.toLowerCase()),
  ]);
  const app = new Hono<SimEnv<S>>({ getPath: namespaceAwareGetPath, router: createRouter() });
  /** Requests a connection fault answered on the socket itself (RESPONSE_ALREADY_SENT). */
  const answeredOnSocket = new WeakSet<Context<SimEnv<S>>>();

  const secretFields = new Set((def.sensitiveFields ?? []).map(fieldKey));
  const entryContext: EntryContext = { sensitive, secretFields, bodyLimit };
  const interned = new Interner(1024);
  const headerLinesKept = new LastInSlot(1024);
  const requestBodies = new LastInSlot(1024);
  const responseTexts = new LastInSlot(1024);

  const guard = adminTokenGuard(options.adminToken, dashboardCookie(def.name));
  app.use('/_sim', guard);
  app.use('/_sim/*', guard);

  // Request context + journal for the emulated API (the control plane is not journaled).
  app.use('*', async (c, next) => {
    if (c.req.path === '/_sim' || c.req.path.startsWith('/_sim/')) return next();
    let namespace: string;
    try {
      namespace = resolveNamespace(c.req.raw);
    } catch (err) {
      return controlError(c, 400, (err as Error).message);
    }
    let world: World<S>;
    try {
      world = namespaces.get(namespace);
    } catch (err) {
      // Past maxNamespaces: the control plane's answer, not the emulated API's (docs/decisions/0015).
      if (err instanceof NamespaceLimitError) return controlError(c, 507, err.message);
      throw err;
    }
    const started = performance.now();
    const timeMs = world.clock.now();
    const sim = new RequestContext(world, namespace, world.ids.uuid(), c);
    c.set('sim', sim);
    let status = 0;
    try {
      await next();
      if (options.onResponse) options.onResponse(c as unknown as Context<SimEnv<unknown>>);
      // A connection fault answered on the socket itself: there is no HTTP status to record.
      status = c.res === RESPONSE_ALREADY_SENT ? 0 : c.res.status;
      // A response marked already sent (RESPONSE_ALREADY_SENT, or Hono's copy of it when a handler had
      // answered first) must reach @hono/node-server as a native Response: 2.1.8 writes the head of a
      // lightweight one again. Reading `.body` makes it native.
      if (answeredOnSocket.has(c)) void c.res.body;
    } finally {
      let responseText: string | undefined;
      const known = bodyLimit > 0 && c.finalized && status !== 0 ? knownBody(c.res) : null;
      if (known !== null && (known !== undefined || c.res.body)) {
        const type = known?.type ?? c.res.headers.get('content-type') ?? '';
        const length = known?.length ?? Number(c.res.headers.get('content-length') ?? 0);
        if (
          (type.includes('json') || type.startsWith('text/')) &&
          length <= bodyLimit &&
          !type.includes('csv')
        ) {
          responseText = known?.text ?? (await c.res.clone().text());
        }
      }
      const incoming = c.env?.incoming;
      const path = interned.get(c.req.path);
      const method = c.req.method;
      const slot = method === 'GET' ? path : `${method} ${path}`;
      const entry = world.journal.record(
        new RequestEntry(
          sim.requestId,
          timeMs,
          namespace,
          sim.operation,
          interned.get(sim.resource),
          method,
          path,
          status,
          Math.round((performance.now() - started) * 1000),
          sim.fired.length === 0 ? NO_FAULTS : sim.fired,
          interned.get(c.req.url),
          headerLinesKept.get(
            slot,
            headerLines(
              incoming && !(incoming instanceof Http2ServerRequest) ? incoming.rawHeaders : c.req.raw.headers,
            ),
          ),
          keptText(requestBodies, slot, sim.rawBody, bodyLimit),
          keptText(responseTexts, slot, responseText, bodyLimit),
          entryContext,
        ),
      );
      if (options.requestLog) options.requestLog(entry.entry());
    }
  });

  async function applyTerminal(
    c: Context<SimEnv<S>>,
    rule: FaultRule,
    phase: 'before' | 'after',
  ): Promise<Response> {
    const e = rule.effect;
    if (e.error !== undefined) {
      // Said on every answer a rule made, so a test (and the fuzz suite) tells a fault from a bug.
      const res = await def.renderFaultError(c, e.error);
      if (!res.headers.has('x-sim-reason')) res.headers.set('x-sim-reason', `fault:${rule.id}`);
      return res;
    }
    if (e.http !== undefined) {
      const body = e.http.body;
      const headers = new Headers(e.http.headers ?? {});
      if (!headers.has('x-sim-reason')) headers.set('x-sim-reason', `fault:${rule.id}`);
      if (body !== undefined && typeof body !== 'string' && !headers.has('content-type')) {
        headers.set('content-type', 'application/json');
      }
      const text = body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
      return new Response(text, { status: e.http.status, headers });
    }
    return connectionFault(c, e.connection as 'reset' | 'hang' | 'truncate', phase);
  }

  async function connectionFault(
    c: Context<SimEnv<S>>,
    kind: 'reset' | 'hang' | 'truncate',
    phase: 'before' | 'after',
  ) {
    const incoming = c.env?.incoming;
    const outgoing = c.env?.outgoing;
    if (!incoming || !outgoing) throw new SimulatedConnectionFault(kind);
    answeredOnSocket.add(c);
    const socket = incoming.socket;
    if (kind === 'reset') {
      socket.resetAndDestroy?.() ?? socket.destroy();
    } else if (kind === 'hang') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, hangLimit);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      socket.destroy();
    } else {
      // Headers promise a body that never fully arrives: clients see a premature close mid-body.
      const full =
        phase === 'after' && c.res.body
          ? await c.res.clone().text()
          : JSON.stringify({ truncated: true, padding: 'x'.repeat(64) });
      const bytes = Buffer.from(full);
      const headers: Record<string, string> = {
        'content-type': c.res.headers.get('content-type') ?? 'application/json',
        'content-length': String(bytes.length),
      };
      outgoing.writeHead(phase === 'after' ? c.res.status : 200, headers);
      outgoing.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))), () => socket.destroy());
    }
    return RESPONSE_ALREADY_SENT;
  }

  function operation(
    name: string | ((c: Context<SimEnv<S>>) => string),
    resource?: (c: Context<SimEnv<S>>) => string | undefined,
  ): MiddlewareHandler<SimEnv<S>> {
    // Most requests have no body to read and no rules to run: they go straight on, without the
    // async frame (a promise and a microtask per request) the full path needs.
    return (c, next) => {
      const sim = c.get('sim');
      // A name by request: one route that serves two methods (a custom verb inside a resource path).
      sim.operation = typeof name === 'string' ? name : name(c);
      sim.resource = resource?.(c);
      const readBody = BODY_METHODS.has(c.req.method) && sim.rawBody === undefined;
      if (!readBody && sim.world.faults.size() === 0) return next();
      return withBodyAndRules(c, next, sim, readBody);
    };
  }

  /** Fires a phase's matching rules (recorded, delays slept) and gives the one that ends the request. */
  async function runPhase(sim: RequestSim<S>, phase: 'before' | 'after'): Promise<FaultRule | undefined> {
    const faults = sim.world.faults;
    const rules = faults.evaluate(sim.facts(), phase);
    for (const rule of rules) sim.fired.push(rule.id);
    const delay = rules.reduce((sum, rule) => sum + faults.delayOf(rule), 0);
    if (delay > 0) await sim.world.clock.sleep(delay);
    return rules.find((r) => r.effect.error || r.effect.http || r.effect.connection);
  }

  async function withBodyAndRules(
    c: Context<SimEnv<S>>,
    next: () => Promise<void>,
    sim: RequestSim<S>,
    readBody: boolean,
  ): Promise<Response | undefined> {
    if (readBody) {
      const body = await readBoundedText(c.req.raw, maxBodyBytes);
      if (!body.ok) {
        // Refused before anything else (fault rules included), the rest of the body unread: the
        // connection closes after the answer rather than reading on to the next request.
        const res = def.renderPayloadTooLarge
          ? await def.renderPayloadTooLarge(c, body.limit)
          : controlError(c, 413, `request body larger than ${body.limit} bytes`);
        res.headers.set('connection', 'close');
        c.res = res;
        return;
      }
      sim.rawBody = body.text;
      if (sim.rawBody.trim() !== '') {
        try {
          sim.json = JSON.parse(sim.rawBody);
          // Any nesting parses (JSON.parse is iterative); what reads it afterwards may recurse.
          if (sim.rawBody.length > 2 * maxJsonDepth) {
            const deep = jsonTooDeep(sim.json, maxJsonDepth);
            if (deep) {
              sim.json = undefined;
              sim.jsonTooDeep = { key: deep.key, maxDepth: maxJsonDepth };
              sim.jsonError = `Message too deep. Max recursion depth reached for key '${deep.key}'`;
            }
          }
        } catch (err) {
          sim.jsonError = (err as Error).message;
        }
      }
    }
    const hasRules = sim.world.faults.size() > 0;
    if (hasRules) {
      const terminal = await runPhase(sim, 'before');
      if (terminal) {
        c.res = await applyTerminal(c, terminal, 'before');
        return;
      }
    }
    await next();
    if (hasRules) {
      const terminal = await runPhase(sim, 'after');
      if (terminal) c.res = await applyTerminal(c, terminal, 'after');
    }
    return undefined;
  }

  app.route('/_sim', createControlPlane(def, namespaces, { adminToken: options.adminToken }));
  // A path under /_sim is the control plane's: its own envelope, whatever the emulated API answers.
  const CONTROL_PATH = /^(\/_ns\/[^/]+)?\/_sim(\/|$)/;
  app.notFound((c) =>
    def.renderNotFound && !CONTROL_PATH.test(c.req.path)
      ? def.renderNotFound(c)
      : controlError(c, 404, `no route for ${c.req.method} ${c.req.path}`),
  );
  app.onError((err, c) => {
    if (err instanceof SimulatedConnectionFault) throw err;
    if (err instanceof HTTPException) return err.getResponse();
    if (err instanceof SimInputError) return controlError(c, 400, err.message, err.path);
    if (err instanceof NamespaceLimitError) return controlError(c, 507, err.message);
    if (def.renderInternalError) return def.renderInternalError(c, err);
    console.error(err);
    return controlError(c, 500, 'internal error in the simulator');
  });

  return { app, namespaces, def, operation, close: () => namespaces.close() };
}
