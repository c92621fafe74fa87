import { isDeepStrictEqual } from 'node:util';

const clip = (value: unknown) => String(JSON.stringify(value)).slice(0, 300);

/**
 * Where two world snapshots (`GET /_sim/state` texts, or state files) differ, or undefined when they
 * hold the same world, member order aside. Equal texts are not parsed, so comparing a 100 MB state
 * file with what was saved costs one string comparison; a difference names its first place (a part, a
 * table and its row) without vitest's diff, which a world this size would drown.
 */
export function difference(a: string, b: string): string | undefined {
  if (a === b) return undefined;
  const [x, y] = [JSON.parse(a), JSON.parse(b)];
  if (isDeepStrictEqual(x, y)) return undefined;
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (key === 'state') continue;
    if (!isDeepStrictEqual(x[key], y[key])) return `${key}: ${clip(x[key])} vs ${clip(y[key])}`;
  }
  for (const key of new Set([...Object.keys(x.state), ...Object.keys(y.state)])) {
    const [p, q] = [x.state[key], y.state[key]];
    if (isDeepStrictEqual(p, q)) continue;
    if (!Array.isArray(p) || !Array.isArray(q) || p.length !== q.length)
      return `state.${key}: ${clip(p)} vs ${clip(q)} (${String(p?.length)} vs ${String(q?.length)} items)`;
    const i = p.findIndex((item, n) => !isDeepStrictEqual(item, q[n]));
    return `state.${key}[${i}]: ${JSON.stringify(p[i])} vs ${JSON.stringify(q[i])}`;
  }
  return 'differ';
}

/**
 * Undefined when `saved` is `expected` byte for byte (Buffers are compared as they are: a 100 MB file
 * is never decoded to be found equal); else where they differ ({@link difference}), or that they hold
 * the same world written otherwise (members in another order).
 */
export function textDifference(saved: string | Buffer, expected: string | Buffer): string | undefined {
  const bytes = (text: string | Buffer) => (typeof text === 'string' ? Buffer.from(text) : text);
  if (bytes(saved).equals(bytes(expected))) return undefined;
  return (
    difference(saved.toString(), expected.toString()) ??
    'the same world, its members written in another order'
  );
}
