import { SimInputError } from '../duration';
import {
  checkJsonBudget,
  type JsonBudget,
  type JsonBudgetExcess,
  jsonBudgetMessage,
  yamlTokens,
} from './json-budget';

/**
 * Reading request bodies with a bound: a body past the limit is refused from its Content-Length, or as
 * soon as the bytes read pass it, and the rest is never buffered. It is read and dropped, up to a bound
 * of its own, so that a client still sending gets the refusal rather than a broken pipe (a lingering
 * close, as front ends do); past that bound the stream is cancelled and the connection cut.
 */

/** Bytes of a refused body read and dropped before the connection is cut: 4 × the limit, at least 64 MiB. */
const discardLimit = (limit: number) => Math.max(4 * limit, 64 * 1024 * 1024);

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, budget: number): Promise<void> {
  let dropped = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    dropped += value.byteLength;
    if (dropped > budget) {
      await reader.cancel().catch(() => undefined);
      return;
    }
  }
}

export type BoundedBytes = { ok: true; bytes: Uint8Array } | { ok: false; limit: number };
export type BoundedBody = { ok: true; text: string } | { ok: false; limit: number };

const decoder = new TextDecoder('utf-8');
const EMPTY = new Uint8Array(0);

/** Reads a request body's bytes, up to `limit` bytes. */
export async function readBoundedBytes(request: Request, limit: number): Promise<BoundedBytes> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > limit) {
    const reader = request.body?.getReader();
    if (reader) {
      if (Number(declared) > discardLimit(limit)) await reader.cancel().catch(() => undefined);
      else await drain(reader, discardLimit(limit));
    }
    return { ok: false, limit };
  }
  if (declared !== null && /^\d+$/.test(declared)) {
    // A declared length within the limit: the server's HTTP parser delivers exactly that many bytes, so
    // the body is read in one go by the runtime's own reader (a web-stream reader loop costs a stream
    // per request: a third of a small PUT's throughput, bench/ figure 3). A body longer than it
    // declared (possible only in-process) is still refused.
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) return { ok: false, limit };
    return { ok: true, bytes };
  }
  const stream = request.body;
  if (!stream) return { ok: true, bytes: EMPTY };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      chunks.length = 0;
      await drain(reader, discardLimit(limit) - size);
      return { ok: false, limit };
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return { ok: true, bytes: chunks[0] as Uint8Array };
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, bytes: all };
}

/** Reads a request body as UTF-8 text, up to `limit` bytes. */
export async function readBoundedText(request: Request, limit: number): Promise<BoundedBody> {
  const body = await readBoundedBytes(request, limit);
  return body.ok ? { ok: true, text: decoder.decode(body.bytes) } : body;
}

/**
 * The first place a parsed JSON value nests deeper than `maxDepth` objects and arrays, with the member
 * key it was reached under (as protobuf's JSON parser reports it), or undefined. Iterative: any depth
 * is walked without recursion.
 */
function jsonTooDeep(value: unknown, maxDepth: number): { key: string } | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: { value: object; depth: number; key: string }[] = [{ value, depth: 1, key: '' }];
  while (stack.length > 0) {
    const top = stack.pop() as { value: object; depth: number; key: string };
    if (top.depth > maxDepth) return { key: top.key };
    if (Array.isArray(top.value)) {
      for (const item of top.value)
        if (item !== null && typeof item === 'object')
          stack.push({ value: item, depth: top.depth + 1, key: top.key });
    } else {
      for (const [k, item] of Object.entries(top.value))
        if (item !== null && typeof item === 'object')
          stack.push({ value: item, depth: top.depth + 1, key: k });
    }
  }
  return undefined;
}

/** The fields of `c.var.sim` a request body is read into (RequestSim's). */
export interface RequestBodyTarget {
  rawBody?: string;
  bodyBytes?: Uint8Array;
  json?: unknown;
  jsonError?: string;
  jsonTooDeep?: { key: string; maxDepth: number };
  jsonOverBudget?: JsonBudgetExcess;
}

/** How the kernel takes an emulated-API request body (from the simulator's `limits`). */
export interface RequestBodyOptions {
  budget: JsonBudget;
  /** Content types (undefined: none sent) whose bodies are kept as bytes, never decoded or parsed. */
  bytesBodies?: (contentType: string | undefined) => boolean;
}

/**
 * An emulated-API request body read for its handler (`c.var.sim`): kept as `bodyBytes` when the
 * simulator takes its content type as bytes (file uploads), else decoded into `rawBody` and parsed into
 * `json`, or `jsonError` when it is not JSON, nests deeper than the budget's depth (then `jsonTooDeep`
 * says where) or is past its bytes or values (then `jsonOverBudget`, and it is not parsed; past the
 * bytes not even decoded: `bodyBytes` holds it).
 */
export function takeRequestBody(
  sim: RequestBodyTarget,
  bytes: Uint8Array,
  contentType: string | undefined,
  options: RequestBodyOptions,
): void {
  if (options.bytesBodies?.(contentType)) {
    sim.bodyBytes = bytes;
    return;
  }
  if (bytes.byteLength > options.budget.maxBytes) {
    sim.bodyBytes = bytes;
    sim.jsonOverBudget = { limit: 'bytes', max: options.budget.maxBytes };
    sim.jsonError = jsonBudgetMessage(sim.jsonOverBudget);
    return;
  }
  sim.rawBody = decoder.decode(bytes);
  if (sim.rawBody.trim() !== '') parseRequestJson(sim, sim.rawBody, options.budget);
}

/**
 * A body text parsed as {@link takeRequestBody} says, within `budget`'s depth and values (its bytes
 * are the caller's to check).
 */
function parseRequestJson(sim: RequestBodyTarget, text: string, budget: JsonBudget): void {
  const measured = checkJsonBudget(text, budget);
  if (measured.excess) {
    sim.jsonOverBudget = measured.excess;
    sim.jsonError = jsonBudgetMessage(measured.excess);
    return;
  }
  try {
    sim.json = JSON.parse(text);
  } catch (err) {
    sim.jsonError = (err as Error).message;
    return;
  }
  // Any nesting parses (JSON.parse is iterative); what reads it afterwards may recurse.
  if (measured.tooDeep) {
    const deep = jsonTooDeep(sim.json, budget.maxDepth);
    if (deep) {
      sim.json = undefined;
      sim.jsonTooDeep = { key: deep.key, maxDepth: budget.maxDepth };
      sim.jsonError = `Message too deep. Max recursion depth reached for key '${deep.key}'`;
    }
  }
}

/** Largest control-plane request body read (a seed, a snapshot, a scenario). */
const CONTROL_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Deepest JSON the control plane takes in its own documents (seeds, fault rules, settings: a few levels
 * deep). A world's snapshot holds what the API took as given, so `PUT /_sim/state` takes the
 * simulator's own depth instead (world-snapshot.ts `snapshotJsonDepth`).
 */
export const CONTROL_JSON_DEPTH = 200;

/**
 * The control plane's JSON budget (json-budget.ts says what a value costs; the worst body it lets
 * through parses in 174 MB): its whole body limit, a million values (a snapshot is ~18 bytes a value,
 * so ~17 MiB of one; a larger world loads from `--state-file`, which is streamed), and 200 levels.
 * Depth costs no memory (JSON.parse is iterative): it is bounded for what reads the value afterwards.
 */
const CONTROL_JSON_BUDGET: JsonBudget = {
  maxBytes: CONTROL_MAX_BODY_BYTES,
  maxDepth: CONTROL_JSON_DEPTH,
  maxValues: 1_000_000,
};

/**
 * Most YAML nodes (json-budget.ts `yamlTokens`) in a control-plane text for the YAML parser (fault
 * rules, scenarios, JSON ones too): ~240 bytes a node, so at most ~50 MB and half a second built;
 * a scenario seeds a few hundred resources at most (a larger world: `/_sim/seed` or `--state-file`).
 */
const CONTROL_MAX_YAML_TOKENS = 200_000;

const CONTROL_LIMIT = "the control plane's limit";

/**
 * A control-plane request body as text for the YAML parser, bounded in bytes and in the nodes it can
 * make; past them a SimInputError (400).
 */
export async function readControlText(c: { req: { raw: Request } }): Promise<string> {
  const text = await readControlBody(c);
  if (yamlTokens(text, CONTROL_MAX_YAML_TOKENS) > CONTROL_MAX_YAML_TOKENS)
    throw new SimInputError(
      `YAML body with more than ${CONTROL_MAX_YAML_TOKENS} words and brackets (${CONTROL_LIMIT})`,
    );
  return text;
}

async function readControlBody(c: { req: { raw: Request } }): Promise<string> {
  const body = await readBoundedText(c.req.raw, CONTROL_MAX_BODY_BYTES);
  if (!body.ok) throw new SimInputError(`request body larger than ${body.limit} bytes`);
  return body.text;
}

/**
 * A control-plane request body as JSON (`undefined` when empty), within CONTROL_JSON_BUDGET, nested at
 * most `maxDepth` levels (a snapshot: the simulator's `snapshotJsonDepth`); a bad one is a
 * SimInputError (400), never a crash.
 */
export async function readControlJson(
  c: { req: { raw: Request } },
  maxDepth = CONTROL_JSON_DEPTH,
): Promise<unknown> {
  const text = await readControlBody(c);
  if (text.trim() === '') return undefined;
  const measured = checkJsonBudget(text, { ...CONTROL_JSON_BUDGET, maxDepth });
  if (measured.excess) throw new SimInputError(jsonBudgetMessage(measured.excess, CONTROL_LIMIT));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SimInputError(`malformed JSON body: ${(err as Error).message}`);
  }
  if (measured.tooDeep) throw new SimInputError(`JSON body nested deeper than ${maxDepth} levels`);
  return value;
}
