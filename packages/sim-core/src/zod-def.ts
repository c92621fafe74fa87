import type { z } from 'zod';

/**
 * The parts of a zod 4 schema's definition (`schema._zod.def`) that a walker over a schema reads: its
 * kind (`type`: `object`, `optional`, `array`, `enum`, …) and the schemas or values it is made of. zod
 * types the definition per kind only on its core classes; this is one loose view of them all, so that a
 * walker (a request parser, an enum encoder) switches on `type` without casting at each step.
 */
export interface ZodDefView {
  type: string;
  /** An object's fields. */
  shape?: Record<string, z.ZodType>;
  /** An object's schema for unknown keys (`never` when it is strict). */
  catchall?: z.ZodType;
  /** The schema inside `optional`, `nullable`, `default`. */
  innerType?: z.ZodType;
  /** An array's element. */
  element?: z.ZodType;
  /** A record's value. */
  valueType?: z.ZodType;
  /** A union's members. */
  options?: z.ZodType[];
  /** An enum's values by name. */
  entries?: Record<string, string>;
  /** A string format's name (`int64`, `date-time`, …). */
  format?: string;
}

/**
 * The definition of a zod schema, as {@link ZodDefView}.
 *
 * @example zodDef(z.string().optional()).type // 'optional'
 */
export function zodDef(schema: z.ZodType): ZodDefView {
  return (schema as unknown as { _zod: { def: ZodDefView } })._zod.def;
}
