/**
 * Python's `json.dumps(value)` with its default arguments, as CVAT serialises a webhook body before
 * signing it (`requests.post(json=payload)`; reference cvat-webhooks-events.md §2.5): `", "` and `": "`
 * separators, keys in insertion order, every character outside printable ASCII escaped as `\uXXXX`.
 * Numbers are written as JavaScript writes them, which equals Python for integers (all CVAT sends).
 *
 * Tests use it to hand the receiver the bytes CVAT would send, so that a receiver which re-serialised
 * the body instead of verifying the raw bytes would fail.
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') {
    // JSON.stringify already escapes `"`, `\` and C0 controls the way Python does (\n, \u001f, ...).
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`).join(', ')}}`;
  }
  throw new Error(`not JSON: ${String(value)}`);
}
