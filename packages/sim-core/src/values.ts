/**
 * Whether a value is a JSON object (not null, not an array): what a walker over parsed JSON or a loose
 * record may read fields of.
 *
 * @example isPlainObject({ a: 1 }) // true; isPlainObject([1]) // false; isPlainObject(null) // false
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
