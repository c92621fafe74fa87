import { createHash } from 'node:crypto';
import { Http2ServerRequest } from 'node:http2';
import type { Context } from 'hono';
import { DeferredJournalEntry, type JournalEntry } from '../journal';
import { fieldKey, isSecretHeader, redactJson, redactQuery, redactText } from './redact';
import { queryOf, type RequestSim, type SimEnv } from './request-context';

/**
 * The journal entries of emulated-API requests: recorded cheaply as each request ends (shared strings,
 * no copies), built with their redactions only when read.
 */

/**
 * Request headers the journal redacts by name, besides the simulator's own (`sensitiveHeaders`) and
 * those `isSecretHeader` recognizes.
 */
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

/**
 * What a journal entry keeps of a body past the capture limit: its size, the start of it and, for a
 * request body, its SHA-256 (of the UTF-8 text), so a test can still tell which body it sent without the
 * journal holding it. A response body past the limit gets no hash: the simulator made it, and hashing
 * it cost as much as serving it (a job of 100,000 shapes, 22 MB: bench figure 12).
 */
interface TruncatedText {
  size: number;
  preview: string;
  sha256?: string;
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
  hashed = true,
): string | TruncatedText | undefined {
  if (text === undefined || limit === 0) return undefined;
  if (text.length <= limit) return slots.get(slot, text);
  // A copy: a slice of a long string would keep the whole string alive.
  const preview = Buffer.from(text.slice(0, PREVIEW_CHARS), 'utf16le').toString('utf16le');
  return hashed ? { size: text.length, preview, sha256: sha256(text) } : { size: text.length, preview };
}

/**
 * A body the kernel kept as bytes (an upload, or JSON past its budget: `sim.bodyBytes`) as the journal
 * keeps a text: decoded when it is within the capture limit, else its size in bytes, the start of it and
 * its SHA-256, without decoding the rest.
 */
function keptBytes(
  slots: LastInSlot,
  slot: string,
  bytes: Uint8Array,
  limit: number,
  hashed = true,
): string | TruncatedText | undefined {
  if (bytes.byteLength <= limit) return keptText(slots, slot, bytesDecoder.decode(bytes), limit);
  if (limit === 0) return undefined;
  const preview = bytesDecoder.decode(bytes.subarray(0, PREVIEW_CHARS));
  if (!hashed) return { size: bytes.byteLength, preview };
  return { size: bytes.byteLength, preview, sha256: createHash('sha256').update(bytes).digest('hex') };
}

const bytesDecoder = new TextDecoder('utf-8');

const keptSize = (text: string | TruncatedText | undefined): number =>
  text === undefined ? 0 : typeof text === 'string' ? text.length : text.preview.length + 80;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A body as the journal shows it: parsed JSON or text, secret-looking fields redacted (redact.ts). */
function capture(
  value: string | TruncatedText | undefined,
  limit: number,
  secretFields: ReadonlySet<string>,
): unknown {
  if (value === undefined || value === '' || limit === 0) return undefined;
  const preview = (text: string) => redactText(text, secretFields);
  if (typeof value !== 'string')
    return {
      truncated: true,
      size: value.size,
      ...(value.sha256 === undefined ? {} : { sha256: value.sha256 }),
      preview: preview(value.preview),
    };
  if (value.length > limit)
    return {
      truncated: true,
      size: value.length,
      sha256: sha256(value),
      preview: preview(value.slice(0, PREVIEW_CHARS)),
    };
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
 * (bench/). `null` for no body; `undefined` when unknown (a stream, a native Response).
 * Its content type and length come from the headers it was made with.
 */
export type KnownBody = ({ text: string } | { bytes: Uint8Array }) & { type: string; length: number };

export function knownBody(res: Response): KnownBody | null | undefined {
  if (cacheKey === undefined) {
    cacheKey = Object.getOwnPropertySymbols(res).find((key) => key.description === 'cache');
    if (cacheKey === undefined) return undefined;
  }
  const cache = (res as unknown as Record<symbol, unknown>)[cacheKey];
  if (!Array.isArray(cache)) return undefined;
  const body: unknown = cache[1];
  if (body === null || body === undefined) return null;
  // A body made as bytes (a large answer serialised in pieces): its length is its byte length.
  const bytes = body instanceof Uint8Array ? body : undefined;
  if (typeof body !== 'string' && bytes === undefined) return undefined;
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
  if (bytes !== undefined) return { bytes, type: type ?? '', length: bytes.byteLength };
  return { text: body as string, type: type ?? '', length: Number(length ?? 0) };
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
 * promoted by the GC, and fewer, flatter objects cost it less (bench/).
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
 * instance lets each request's own copy die young instead of being promoted by the GC (bench/). Bounded: forgets everything when full. For short strings (a lookup hashes the whole string).
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
 * {@link Interner} cost ~1.5 µs of a ~31 µs GET /api/tasks/{id}; one comparison with the
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

/**
 * Makes the journal entries of one kernel's emulated-API requests: credentials and the simulator's
 * secret fields redacted, bodies kept up to `bodyLimit`, and the strings entries keep shared with
 * earlier entries where they repeat.
 */
export class RequestRecorder {
  readonly #context: EntryContext;
  readonly #interned = new Interner(1024);
  readonly #headerLines = new LastInSlot(1024);
  readonly #requestBodies = new LastInSlot(1024);
  readonly #responseTexts = new LastInSlot(1024);

  constructor(
    redaction: { sensitiveHeaders?: readonly string[]; sensitiveFields?: readonly string[] },
    bodyLimit: number,
  ) {
    const sensitive = new Set([
      ...DEFAULT_SENSITIVE,
      ...(redaction.sensitiveHeaders ?? []).map((h) => h.toLowerCase()),
    ]);
    const secretFields = new Set((redaction.sensitiveFields ?? []).map(fieldKey));
    this.#context = { sensitive, secretFields, bodyLimit };
  }

  /** The entry of a request answered with `status` (0: on the socket) and its body (text or bytes). */
  entry<S>(
    c: Context<SimEnv<S>>,
    sim: RequestSim<S>,
    timeMs: number,
    started: number,
    status: number,
    responseText: string | Uint8Array | undefined,
  ): DeferredJournalEntry {
    const { bodyLimit } = this.#context;
    const incoming = c.env?.incoming;
    const path = this.#interned.get(c.req.path);
    const method = c.req.method;
    const slot = method === 'GET' ? path : `${method} ${path}`;
    return new RequestEntry(
      sim.requestId,
      timeMs,
      sim.namespace,
      sim.operation,
      this.#interned.get(sim.resource),
      method,
      path,
      status,
      Math.round((performance.now() - started) * 1000),
      sim.fired.length === 0 ? NO_FAULTS : sim.fired,
      this.#interned.get(c.req.url),
      this.#headerLines.get(
        slot,
        headerLines(
          incoming && !(incoming instanceof Http2ServerRequest) ? incoming.rawHeaders : c.req.raw.headers,
        ),
      ),
      sim.bodyBytes === undefined
        ? keptText(this.#requestBodies, slot, sim.rawBody, bodyLimit)
        : keptBytes(this.#requestBodies, slot, sim.bodyBytes, bodyLimit),
      responseText instanceof Uint8Array
        ? keptBytes(this.#responseTexts, slot, responseText, bodyLimit, false)
        : keptText(this.#responseTexts, slot, responseText, bodyLimit, false),
      this.#context,
    );
  }
}
