import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal content always hashes the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The etag of a resource: a checksum of its content (8 bytes of SHA-256, base64, the length of the
 * recorded `"abcdef0123A="`). `generation` counts writes that leave no visible trace (a concurrent
 * writer injected by a fault), so they too change the etag.
 */
export function computeEtag(content: unknown, generation: number): string {
  return createHash('sha256')
    .update(canonicalJson(content))
    .update(`#${generation}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}
