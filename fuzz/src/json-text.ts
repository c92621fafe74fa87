/**
 * A tiny JSON tree for building request bodies that `JSON.stringify` cannot write: objects with
 * `__proto__` or duplicate keys (kept as ordered entries), and raw number literals such as `1e400` or
 * `123456789012345678901234567890` that a JavaScript number would round or turn into `null`.
 */

/** An object as ordered `[key, value]` entries: `__proto__` and repeated keys survive to the wire. */
export class JObj {
  constructor(readonly entries: readonly (readonly [string, JValue])[]) {}
}

/** Text written as is (a number literal, or deliberately broken JSON inside an otherwise valid body). */
export class JRaw {
  constructor(readonly text: string) {}
}

export type JValue = null | boolean | number | string | JValue[] | JObj | JRaw;

/** Writes a tree as JSON text (iteratively, so any depth is fine). */
export function toJsonText(value: JValue): string {
  const out: string[] = [];
  // A stack of pending work: a value to write or a literal piece of text.
  const stack: (JValue | { text: string })[] = [value];
  while (stack.length > 0) {
    const item = stack.pop() as JValue | { text: string };
    if (item !== null && typeof item === 'object' && !Array.isArray(item) && 'text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item as JValue;
    if (v === null) out.push('null');
    else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
    else if (typeof v === 'number') out.push(Number.isFinite(v) ? JSON.stringify(v) : 'null');
    else if (typeof v === 'string') out.push(JSON.stringify(v));
    else if (v instanceof JRaw) out.push(v.text);
    else if (Array.isArray(v)) {
      const parts: (JValue | { text: string })[] = [{ text: '[' }];
      v.forEach((x, i) => {
        if (i > 0) parts.push({ text: ',' });
        parts.push(x);
      });
      parts.push({ text: ']' });
      for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i] as JValue | { text: string });
    } else {
      const parts: (JValue | { text: string })[] = [{ text: '{' }];
      v.entries.forEach(([k, x], i) => {
        parts.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(k)}:` });
        parts.push(x);
      });
      parts.push({ text: '}' });
      for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i] as JValue | { text: string });
    }
  }
  return out.join('');
}

/** A plain JSON value (from JSON.parse or a literal) as a tree. */
export function fromPlain(value: unknown): JValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(fromPlain);
  if (value instanceof JObj || value instanceof JRaw) return value;
  return new JObj(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromPlain(v)] as const),
  );
}
