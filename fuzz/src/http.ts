/**
 * Fuzz requests: a serialisable description (what fast-check generates and shrinks), rendered to a
 * `Request` and answered in-process by the app (`app.request`, no socket).
 */
import { type JValue, toJsonText } from './json-text';

export type BodySpec =
  /** JSON text of a tree (see json-text.ts). */
  | { kind: 'json'; value: JValue }
  /** Any text, sent as its UTF-8 bytes. */
  | { kind: 'text'; text: string }
  /**
   * `depth` levels of nesting (`[[[…]]]`, `{"a":{"a":…}}` or both), alone or as the value of `field` in
   * an otherwise ordinary object.
   */
  | { kind: 'deep'; depth: number; style: 'array' | 'object' | 'mixed'; field?: string }
  /** Raw bytes (bad UTF-8, a BOM, NULs …). */
  | { kind: 'bytes'; bytes: number[]; label: string }
  /** A JSON tree encoded as UTF-16 (little or big endian, with or without a BOM). */
  | { kind: 'utf16'; value: JValue; endian: 'le' | 'be'; bom: boolean }
  /** A long run of one string, up to ~1 MB. */
  | { kind: 'big'; size: number; unit: string; asJsonString: boolean };

export interface FuzzRequest {
  /** The operation it was made from (operationId or `METHOD template`), or a label such as `unknown-route`. */
  op: string;
  /** The path template it was made from (for grouping findings). */
  template: string;
  method: string;
  /** The path as sent (percent-encoding is the generator's choice), without the query. */
  path: string;
  /** Query items: `[name, value]` pairs, encoded, or raw text appended as is. */
  query: ({ name: string; value: string } | { raw: string })[];
  headers: [string, string][];
  body?: BodySpec;
  /** Short labels of what is hostile about the request (for the findings file). */
  tags: string[];
}

const MAX_BODY_BYTES = 1024 * 1024;

function deepText(spec: Extract<BodySpec, { kind: 'deep' }>): string {
  const open = spec.style === 'array' ? '[' : spec.style === 'object' ? '{"a":' : '[{"a":';
  const close = spec.style === 'array' ? ']' : spec.style === 'object' ? '}' : '}]';
  const unit = open.length + close.length;
  const depth = Math.max(1, Math.min(spec.depth, Math.floor((MAX_BODY_BYTES - 64) / unit)));
  const inner = `${open.repeat(depth)}1${close.repeat(depth)}`;
  return spec.field === undefined ? inner : `{${JSON.stringify(spec.field)}:${inner}}`;
}

function utf16(text: string, endian: 'le' | 'be', bom: boolean): Uint8Array {
  const le = Buffer.from(text, 'utf16le');
  const bytes = bom ? Buffer.concat([Buffer.from([0xff, 0xfe]), le]) : le;
  if (endian === 'le') return new Uint8Array(bytes);
  const out = Buffer.from(bytes);
  for (let i = 0; i + 1 < out.length; i += 2) {
    const a = out[i] as number;
    out[i] = out[i + 1] as number;
    out[i + 1] = a;
  }
  return new Uint8Array(out);
}

/** The body as sent: text or bytes, at most ~1 MB. */
function renderBody(spec: BodySpec | undefined): string | Uint8Array | undefined {
  if (spec === undefined) return undefined;
  switch (spec.kind) {
    case 'json':
      return toJsonText(spec.value).slice(0, MAX_BODY_BYTES);
    case 'text':
      return spec.text.slice(0, MAX_BODY_BYTES);
    case 'deep':
      return deepText(spec);
    case 'bytes':
      return new Uint8Array(spec.bytes.slice(0, MAX_BODY_BYTES));
    case 'utf16':
      return utf16(toJsonText(spec.value), spec.endian, spec.bom).slice(0, MAX_BODY_BYTES);
    case 'big': {
      const unit = spec.unit === '' ? 'a' : spec.unit;
      const n = Math.max(1, Math.min(spec.size, Math.floor((MAX_BODY_BYTES - 16) / (unit.length * 4))));
      const s = unit.repeat(n);
      return spec.asJsonString ? JSON.stringify({ name: s }) : s;
    }
  }
}

/** encodeURIComponent, with lone surrogates made U+FFFD first (it throws on them). */
const encode = (s: string) =>
  encodeURIComponent(
    s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );

export function urlOf(req: FuzzRequest): string {
  const parts = req.query.map((q) => ('raw' in q ? q.raw : `${encode(q.name)}=${encode(q.value)}`));
  return parts.length === 0 ? req.path : `${req.path}?${parts.join('&')}`;
}

/** A short text of the body for reports (truncated). */
export function describeBody(spec: BodySpec | undefined, max = 600): string {
  if (spec === undefined) return '(none)';
  switch (spec.kind) {
    case 'deep':
      return `${spec.depth} levels of ${spec.style} nesting${spec.field ? ` as the value of "${spec.field}"` : ''}: ${truncate(deepText({ ...spec, depth: Math.min(spec.depth, 8) }), 120)}…`;
    case 'bytes':
      return `${spec.bytes.length} raw bytes (${spec.label}): ${Buffer.from(spec.bytes.slice(0, 48)).toString('hex')}${spec.bytes.length > 48 ? '…' : ''}`;
    case 'utf16':
      return `UTF-16${spec.endian.toUpperCase()}${spec.bom ? ' with BOM' : ''} of ${truncate(toJsonText(spec.value), max)}`;
    case 'big':
      return `${spec.size} × ${JSON.stringify(spec.unit)}${spec.asJsonString ? ' inside {"name": "…"}' : ''}`;
    default: {
      const body = renderBody(spec);
      return truncate(typeof body === 'string' ? body : '', max);
    }
  }
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

export interface FuzzResponse {
  status: number;
  headers: Headers;
  text: string;
  ms: number;
  /** What the simulator wrote to console.error/warn while answering (stack overflows and the like). */
  logs: string[];
}

export type SendOutcome =
  | { kind: 'response'; res: FuzzResponse }
  /** `app.request` itself rejected: the app did not answer at all. */
  | { kind: 'threw'; error: string; logs: string[] }
  /** No answer within the time limit. */
  | { kind: 'timeout'; ms: number; logs: string[] }
  /** The request cannot be built (the platform's Request refuses it): not the simulator's doing. */
  | { kind: 'unsendable'; error: string };

export interface InProcessApp {
  request(input: Request): Response | Promise<Response>;
}

// --- console capture: the simulators log unhandled errors; keep them per request and out of the output.

let capturing: string[] | undefined;
let installed = false;

function formatLogArg(a: unknown): string {
  if (a instanceof Error) {
    const frame = (a.stack ?? '')
      .split('\n')
      .slice(1)
      .find((l) => /(apps|packages)\//.test(l));
    return `${a.name}: ${a.message}${
      frame
        ? ` [${frame
            .trim()
            .replace(/^at /, 'at ')
            .replace(/\(.*?\/((apps|packages)\/)/, '($1')}]`
        : ''
    }`;
  }
  if (typeof a === 'string') return a;
  try {
    return JSON.stringify(a);
  } catch {
    return String(a);
  }
}

function installCapture(): void {
  if (installed) return;
  installed = true;
  for (const level of ['error', 'warn'] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      if (capturing) capturing.push(args.map(formatLogArg).join(' ').slice(0, 2000));
      else if (process.env.FUZZ_QUIET_LOGS !== '0') {
        // Between requests (timers, deliveries): kept for the batch's report.
        if (pending.length < 100) pending.push(args.map(formatLogArg).join(' ').slice(0, 2000));
      } else original(...args);
    };
  }
}
const pending: string[] = [];

/** Logs written outside any request since the last call (e.g. by a timer). */
export function drainStrayLogs(): string[] {
  return pending.splice(0, pending.length);
}

/**
 * Sends one request in-process. Never throws: the outcome says what happened.
 *
 * @example const out = await send(sim.app, req, { timeoutMs: 5000 })
 */
export async function send(
  app: InProcessApp,
  req: FuzzRequest,
  options: { timeoutMs?: number; abortAfterMs?: number; origin?: string } = {},
): Promise<SendOutcome> {
  installCapture();
  const timeoutMs = options.timeoutMs ?? 5_000;
  const controller = new AbortController();
  let request: Request;
  try {
    const rendered = renderBody(req.body);
    // As bytes, so that the platform adds no `text/plain` content type of its own to a string.
    const body = typeof rendered === 'string' ? new TextEncoder().encode(rendered) : rendered;
    request = new Request(`${options.origin ?? 'http://127.0.0.1'}${urlOf(req)}`, {
      method: req.method,
      // Header values as their UTF-8 bytes read as Latin-1: what a server sees when a client sends UTF-8.
      headers: req.headers.map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('latin1')]),
      body: body === undefined || req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
      signal: controller.signal,
    });
  } catch (err) {
    return { kind: 'unsendable', error: (err as Error).message };
  }
  const logs: string[] = [];
  capturing = logs;
  const started = performance.now();
  const abortTimer =
    options.abortAfterMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(), options.abortAfterMs);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const answered = (async () => {
      const res = await app.request(request);
      const text = await res.text();
      return { res, text };
    })();
    const result = await Promise.race([answered, timeout]);
    if (result === 'timeout') {
      answered.catch(() => {});
      return { kind: 'timeout', ms: timeoutMs, logs };
    }
    return {
      kind: 'response',
      res: {
        status: result.res.status,
        headers: result.res.headers,
        text: result.text,
        ms: performance.now() - started,
        logs,
      },
    };
  } catch (err) {
    const e = err as Error;
    return { kind: 'threw', error: `${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`, logs };
  } finally {
    capturing = undefined;
    clearTimeout(timer);
    if (abortTimer) clearTimeout(abortTimer);
  }
}

/** A request for the control plane or a health check, with a JSON body. */
export function plainRequest(
  method: string,
  path: string,
  body?: unknown,
  headers: [string, string][] = [],
): FuzzRequest {
  return {
    op: `${method} ${path}`,
    template: path,
    method,
    path,
    query: [],
    headers: body === undefined ? headers : [['content-type', 'application/json'], ...headers],
    body: body === undefined ? undefined : { kind: 'text', text: JSON.stringify(body) },
    tags: [],
  };
}
