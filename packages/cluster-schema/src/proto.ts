import * as z from 'zod';

/**
 * Helpers for the proto3 JSON mapping the REST surface uses. The request parser in the simulator walks
 * these schemas to normalise input the way Google's front end does (snake_case names, enum numbers,
 * int64 numbers), so the markers below are how it recognises an enum or an int64 field.
 */

const ENUM_NUMBERS = new WeakMap<z.ZodType, Readonly<Record<string, number>>>();
const ENUM_TYPE_NAMES = new WeakMap<z.ZodType, string>();
const BETA_ONLY_FIELDS = new WeakMap<z.ZodType, ReadonlySet<string>>();
const ONEOF_FIELDS = new WeakMap<z.ZodType, ReadonlyMap<string, string>>();
const INT64_SCHEMAS = new WeakSet<z.ZodType>();

/**
 * A proto enum: its JSON form is the value name; the numbering is kept so that numeric input
 * (`"strategy": 3`, as the GAPIC REST client sends) can be mapped back to names. `typeName` is the enum's
 * full proto name under v1beta1, which the front end's error for a bad value names.
 *
 * @example const Effect = protoEnum({ EFFECT_UNSPECIFIED: 0, NO_SCHEDULE: 1 }, 'google.container.v1beta1.NodeTaint.Effect');
 */
export function protoEnum<const T extends Record<string, number>>(values: T, typeName?: string) {
  const names = Object.keys(values) as [keyof T & string, ...(keyof T & string)[]];
  const schema = z.enum(names);
  ENUM_NUMBERS.set(schema, Object.freeze({ ...values }));
  if (typeName !== undefined) ENUM_TYPE_NAMES.set(schema, typeName);
  return schema;
}

/**
 * The full proto name of an enum made by `protoEnum` (under v1beta1), or undefined.
 *
 * @example enumTypeName(WindowsOsVersion) // 'google.container.v1beta1.WindowsNodeConfig.OSVersion'
 */
export function enumTypeName(schema: z.ZodType): string | undefined {
  return ENUM_TYPE_NAMES.get(schema);
}

/**
 * Records the fields (JSON names) of a message schema that exist under v1beta1 but not in the v1 message
 * of the same name: a v1 request carrying one names an unknown field. Returns the schema.
 *
 * @example betaOnlyFields(markBetaOnly(z.object({ a: z.string() }), ['a'])) // Set { 'a' }
 */
export function markBetaOnly<T extends z.ZodType>(schema: T, fields: readonly string[]): T {
  BETA_ONLY_FIELDS.set(schema, new Set(fields));
  return schema;
}

/** The v1beta1-only fields of a message schema recorded by {@link markBetaOnly}, or undefined. */
export function betaOnlyFields(schema: z.ZodType): ReadonlySet<string> | undefined {
  return BETA_ONLY_FIELDS.get(schema);
}

/**
 * Records the oneofs of a message schema: each oneof's proto name (snake_case, as the front end's error
 * names it) with its members' JSON names. The proto3 JSON parser refuses a second member of one oneof
 * (`oneof field 'policy' is already set. Cannot set 'recurringWindow'`). Returns the schema.
 *
 * @example oneofFields(markOneofs(MaintenanceWindow, { policy: ['dailyMaintenanceWindow', 'recurringWindow'] })).get('recurringWindow') // 'policy'
 */
export function markOneofs<T extends z.ZodType>(
  schema: T,
  oneofs: Readonly<Record<string, readonly string[]>>,
): T {
  const byField = new Map<string, string>();
  for (const [oneof, members] of Object.entries(oneofs)) {
    for (const member of members) byField.set(member, oneof);
  }
  ONEOF_FIELDS.set(schema, byField);
  return schema;
}

/** The oneof (proto name) of each member field (JSON name) of a message schema, recorded by {@link markOneofs}. */
export function oneofFields(schema: z.ZodType): ReadonlyMap<string, string> | undefined {
  return ONEOF_FIELDS.get(schema);
}

/**
 * The numbering of an enum made by `protoEnum`, or undefined for any other schema.
 *
 * @example enumNumbers(NodePoolUpdateStrategy)?.SURGE // 3
 */
export function enumNumbers(schema: z.ZodType): Readonly<Record<string, number>> | undefined {
  return ENUM_NUMBERS.get(schema);
}

/**
 * Finds the name of an enum value number.
 *
 * @example enumNameOf(TaintEffect, 1) // 'NO_SCHEDULE'
 */
export function enumNameOf(schema: z.ZodType, value: number): string | undefined {
  const numbers = ENUM_NUMBERS.get(schema);
  if (!numbers) return undefined;
  return Object.keys(numbers).find((name) => numbers[name] === value);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** True for a decimal integer text within int64's range. */
export function isInt64Text(text: string): boolean {
  if (!/^-?\d{1,20}$/.test(text)) return false;
  const n = BigInt(text);
  return n >= INT64_MIN && n <= INT64_MAX;
}

/** int64/uint64 values are JSON strings in proto3 JSON (`"diskSizeGb": "200"`), within int64's range. */
export const int64 = z
  .string()
  .regex(/^-?\d+$/, 'expected an int64 as a decimal string')
  .refine(isInt64Text, 'expected an int64 within its range');
INT64_SCHEMAS.add(int64);

/**
 * True for the shared int64 schema (the parser accepts a JSON number there and makes it a string).
 *
 * @example isInt64Schema(int64) // true
 */
export function isInt64Schema(schema: z.ZodType): boolean {
  return INT64_SCHEMAS.has(schema);
}

/** int32 values are JSON numbers. */
export const int32 = z.int().min(-2147483648).max(2147483647);

/**
 * The deprecated ids every cluster method's body may carry beside `name` (`projectId`, `zone`,
 * `clusterId`); the path's name overrides them.
 */
export const clusterIds = {
  projectId: z.string().optional(),
  zone: z.string().optional(),
  clusterId: z.string().optional(),
  name: z.string().optional(),
};

/**
 * `google.protobuf.Duration` in JSON: decimal seconds with up to nine fractional digits and an `s`
 * suffix (`"3600s"`, `"0.5s"`).
 */
export const duration = z
  .string()
  .regex(/^-?\d+(\.\d{1,9})?s$/, 'expected a Duration such as "3600s" or "0.5s"')
  .refine(isDurationText, 'expected a Duration within ±315576000000s');

/** Seconds of google.protobuf.Duration's range: ±10,000 years (duration.proto). */
const DURATION_MAX_SECONDS = 315_576_000_000;

/** True for a proto3 JSON Duration text within the type's range (`"3600s"`, `"-0.5s"`). */
export function isDurationText(text: string): boolean {
  const m = /^-?(\d{1,12})(\.\d{1,9})?s$/.exec(text);
  return m !== null && Number(m[1]) <= DURATION_MAX_SECONDS;
}

/**
 * `google.protobuf.Timestamp` in JSON: RFC 3339 with up to nine fractional digits, `Z` or an offset,
 * within the type's range, years 0001 to 9999 (timestamp.proto).
 */
export const timestamp = z
  .string()
  .refine(isTimestampText, 'expected an RFC 3339 time between years 1 and 9999');

/** True for a proto3 JSON Timestamp text: a real calendar time from 0001-01-01 to 9999-12-31. */
export function isTimestampText(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/.exec(text);
  if (m === null) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year === 0 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return false;
  // Day within its month (leap years included): Date rolls 02-30 over to March, which GKE refuses.
  const days = new Date(Date.UTC(2000, month, 0)).getUTCDate();
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day < 1 || day > (month === 2 && !leap ? 28 : days)) return false;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return false;
  // An offset can carry a time at the range's edge past it (0001-01-01T00:00:00+01:00).
  const ms = Date.parse(text.replace(/^(\d{4})/, '+00$1'));
  return ms >= -62_135_596_800_000 && ms <= 253_402_300_799_999;
}

/** `map<string, string>`. */
export const stringMap = z.record(z.string(), z.string());

/**
 * The proto field name of a JSON name (`nodePoolId` → `node_pool_id`): how the front end's errors name
 * fields, whichever form the request used.
 *
 * @example protoFieldName('maxNodeCount') // 'max_node_count'
 */
export function protoFieldName(jsonName: string): string {
  return jsonName.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);
}

/**
 * The JSON name of a proto field name (`node_pool_id` → `nodePoolId`): the proto3 JSON parser accepts
 * either form of a field.
 *
 * @example jsonFieldName('max_node_count') // 'maxNodeCount'
 */
export function jsonFieldName(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());
}
