import { SimInputError } from '../duration';

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

export type BoundedBody = { ok: true; text: string } | { ok: false; limit: number };

const decoder = new TextDecoder('utf-8');

/** Reads a request body as UTF-8 text, up to `limit` bytes. */
export async function readBoundedText(request: Request, limit: number): Promise<BoundedBody> {
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
    return { ok: true, text: decoder.decode(bytes) };
  }
  const stream = request.body;
  if (!stream) return { ok: true, text: '' };
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
  if (chunks.length === 1) return { ok: true, text: decoder.decode(chunks[0]) };
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, text: decoder.decode(all) };
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

/**
 * An emulated-API request body parsed for its handler (`c.var.sim`): `json`, or `jsonError` when the
 * text is not JSON or nests deeper than `maxDepth` (then `jsonTooDeep` says where).
 */
export function parseRequestJson(
  sim: { json?: unknown; jsonError?: string; jsonTooDeep?: { key: string; maxDepth: number } },
  text: string,
  maxDepth: number,
): void {
  try {
    sim.json = JSON.parse(text);
    // Any nesting parses (JSON.parse is iterative); what reads it afterwards may recurse.
    if (text.length > 2 * maxDepth) {
      const deep = jsonTooDeep(sim.json, maxDepth);
      if (deep) {
        sim.json = undefined;
        sim.jsonTooDeep = { key: deep.key, maxDepth };
        sim.jsonError = `Message too deep. Max recursion depth reached for key '${deep.key}'`;
      }
    }
  } catch (err) {
    sim.jsonError = (err as Error).message;
  }
}

/** Largest control-plane request body read (a seed, a snapshot, a scenario). */
const CONTROL_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Deepest JSON nesting the control plane accepts (its documents are a few levels deep). */
const CONTROL_MAX_JSON_DEPTH = 200;

/** A control-plane request body as text, bounded; past the limit a SimInputError (400). */
export async function readControlText(c: { req: { raw: Request } }): Promise<string> {
  const body = await readBoundedText(c.req.raw, CONTROL_MAX_BODY_BYTES);
  if (!body.ok) throw new SimInputError(`request body larger than ${body.limit} bytes`);
  return body.text;
}

/**
 * A control-plane request body as JSON (`undefined` when empty), bounded in size and depth; a bad one
 * is a SimInputError (400), never a crash.
 */
export async function readControlJson(c: { req: { raw: Request } }): Promise<unknown> {
  const text = await readControlText(c);
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SimInputError(`malformed JSON body: ${(err as Error).message}`);
  }
  const deep = jsonTooDeep(value, CONTROL_MAX_JSON_DEPTH);
  if (deep) throw new SimInputError(`JSON body nested deeper than ${CONTROL_MAX_JSON_DEPTH} levels`);
  return value;
}
