import { enumNumbers } from '@sims/cluster-schema';
import { zodDef } from '@sims/sim-core';
import type { z } from 'zod';

/**
 * Rewrites enum names as their numbers, following a response schema: what the front end answers when
 * a client asks for `$alt=json;enum-encoding=int` (the GAPIC REST client does).
 *
 * @example encodeEnumsAsNumbers(Operation, { status: 'DONE' }) // { status: 3 }
 */
export function encodeEnumsAsNumbers(schema: z.ZodType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const def = zodDef(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
      return encodeEnumsAsNumbers(def.innerType as z.ZodType, value);
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const shape = def.shape ?? {};
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const field = shape[k];
        out[k] = field ? encodeEnumsAsNumbers(field, v) : v;
      }
      return out;
    }
    case 'array':
      return Array.isArray(value)
        ? value.map((v) => encodeEnumsAsNumbers(def.element as z.ZodType, v))
        : value;
    case 'record': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [
          k,
          encodeEnumsAsNumbers(def.valueType as z.ZodType, v),
        ]),
      );
    }
    case 'enum': {
      const numbers = enumNumbers(schema);
      return typeof value === 'string' && numbers && value in numbers ? numbers[value] : value;
    }
    default:
      return value;
  }
}

/** True when the query asks for numeric enums (`$alt=json;enum-encoding=int`). */
export function wantsNumericEnums(query: Record<string, string>): boolean {
  return /enum-encoding=int/.test(query.$alt ?? query.alt ?? '');
}
