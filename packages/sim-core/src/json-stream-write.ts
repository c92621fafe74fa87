/**
 * JSON written in pieces: the text `JSON.stringify(value)` gives, byte for byte, handed out a chunk at a
 * time, so that a world of any size is saved without one string holding it all (V8 strings end near
 * 512 MiB; a 10,000-cluster world is ~95 MB and grows with every field). Containers too large to be
 * one piece are walked member by member; everything else is left to `JSON.stringify`, which is faster.
 */

/** Where pieces go: a file write, an array in a test. */
export type JsonSink = (text: string) => void;

export interface JsonWriteOptions {
  /** Pieces are joined until they reach this many characters before `write` is called. Default 1 Mi. */
  chunkChars?: number;
  /**
   * A container whose text is estimated at most this many characters is stringified whole; a larger
   * one member by member. Default 64 Ki.
   */
  wholeChars?: number;
}

type Json = Record<string, unknown> | unknown[];

/** Cheaper than a container's own `JSON.stringify` to decide on: a bounded walk that stops past `budget`. */
function fitsIn(value: Json, budget: number): boolean {
  const stack: unknown[] = [value];
  let left = budget;
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') left -= item.length + 2;
    else if (item === null || typeof item !== 'object') left -= 8;
    else if (Array.isArray(item)) {
      left -= item.length + 2;
      for (let i = 0; i < item.length && left > 0; i++) stack.push(item[i]);
    } else {
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        left -= key.length + 4;
        stack.push((item as Record<string, unknown>)[key]);
        if (left <= 0) break;
      }
      left -= 2;
    }
    if (left <= 0) return false;
  }
  return true;
}

/** What JSON.stringify serializes a property as, after `toJSON` (nothing when undefined is returned). */
function prepared(key: string, value: unknown): unknown {
  if (
    value !== null &&
    (typeof value === 'object' || typeof value === 'bigint') &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    return (value as { toJSON: (key: string) => unknown }).toJSON.call(value, key);
  }
  return value;
}

/** undefined, functions and symbols: left out of objects, `null` in arrays (as JSON.stringify does). */
const skipped = (value: unknown) =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

/** Boxed primitives are written as their value: JSON.stringify knows how. */
const boxed = (value: object) =>
  value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt;

/**
 * Writes `value` as `JSON.stringify(value)` would (no replacer, no indentation: the text
 * `GET /_sim/state` answers), in chunks of about `chunkChars` characters. A circular structure throws
 * the TypeError JSON.stringify throws; so does a BigInt.
 *
 * @example
 * const parts: string[] = [];
 * writeJson({ a: [1, 2] }, (t) => parts.push(t)); // parts.join('') === '{"a":[1,2]}'
 */
export function writeJson(value: unknown, write: JsonSink, options: JsonWriteOptions = {}): void {
  const chunkChars = options.chunkChars ?? 1024 * 1024;
  const wholeChars = options.wholeChars ?? 64 * 1024;
  let parts: string[] = [];
  let size = 0;
  const put = (text: string) => {
    parts.push(text);
    size += text.length;
    if (size >= chunkChars) flush();
  };
  const flush = () => {
    if (size === 0) return;
    const text = parts.join('');
    parts = [];
    size = 0;
    write(text);
  };
  // The containers being walked, to refuse a cycle as JSON.stringify does rather than overflow the stack.
  const walking = new Set<object>();

  const emit = (item: unknown): void => {
    if (item === null || typeof item !== 'object' || boxed(item) || fitsIn(item as Json, wholeChars)) {
      put(JSON.stringify(item));
      return;
    }
    if (walking.has(item)) throw new TypeError('Converting circular structure to JSON');
    walking.add(item);
    if (Array.isArray(item)) {
      put('[');
      for (let i = 0; i < item.length; i++) {
        if (i > 0) put(',');
        const v = prepared(String(i), item[i]);
        if (skipped(v)) put('null');
        else emit(v);
      }
      put(']');
    } else {
      put('{');
      let first = true;
      for (const key of Object.keys(item)) {
        const v = prepared(key, (item as Record<string, unknown>)[key]);
        if (skipped(v)) continue;
        put(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
        first = false;
        emit(v);
      }
      put('}');
    }
    walking.delete(item);
  };

  const root = prepared('', value);
  if (skipped(root)) throw new TypeError('nothing to write: the value is not JSON');
  emit(root);
  flush();
}
