/**
 * Readers for CVAT JSON: each takes `unknown` and either returns the typed value or throws, naming
 * the field. A throw means CVAT answered a shape the consumer does not understand, which is a
 * contract break, not a condition to handle.
 */
export type Json = Record<string, unknown>;

export function asObject(value: unknown, what: string): Json {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Json;
  throw new Error(`expected ${what} to be an object, got ${JSON.stringify(value)}`);
}

export function asArray(value: unknown, what: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new Error(`expected ${what} to be an array, got ${JSON.stringify(value)}`);
}

export function num(record: Json, key: string): number {
  const value = record[key];
  if (typeof value === 'number') return value;
  throw new Error(`expected "${key}" to be a number, got ${JSON.stringify(value)}`);
}

export function numOrNull(record: Json, key: string): number | null {
  const value = record[key];
  return value === null || value === undefined ? null : num(record, key);
}

export function str(record: Json, key: string): string {
  const value = record[key];
  if (typeof value === 'string') return value;
  throw new Error(`expected "${key}" to be a string, got ${JSON.stringify(value)}`);
}

export function strOrNull(record: Json, key: string): string | null {
  const value = record[key];
  return value === null || value === undefined ? null : str(record, key);
}

export function bool(record: Json, key: string): boolean {
  const value = record[key];
  if (typeof value === 'boolean') return value;
  throw new Error(`expected "${key}" to be a boolean, got ${JSON.stringify(value)}`);
}

export function strings(record: Json, key: string): string[] {
  return asArray(record[key], key).map((item) => {
    if (typeof item === 'string') return item;
    throw new Error(`expected "${key}" to hold strings, got ${JSON.stringify(item)}`);
  });
}
