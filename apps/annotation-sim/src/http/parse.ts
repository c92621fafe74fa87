/**
 * DRF's field validation driven by the zod request schemas of `@sims/annotation-schema`, with DRF's exact
 * messages, so bad input gets CVAT's bodies. The edge runs it on a route row's body (`ApiRequest.body`),
 * so the domain only sees checked fields. The schemas say which serializer field each key is (see
 * that package's `requests.ts` for how DRF's options read in zod); this walk gives the field DRF's
 * coercions and errors.
 */
import * as z from 'zod';

/** A write request: a zod object whose keys are the serializer's fields, in declaration order. */
export type RequestSchema = z.ZodObject;

export type FieldErrors = Record<string, unknown>;

const MSG = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  string: 'Not a valid string.',
  integer: 'A valid integer is required.',
  boolean: 'Must be a valid boolean.',
  url: 'Enter a valid URL.',
  number: 'A valid number is required.',
};

const TRUE = new Set<unknown>([
  true,
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  'yes',
  'Yes',
  'YES',
  'y',
  'Y',
  '1',
  1,
]);
const FALSE = new Set<unknown>([
  false,
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  'no',
  'No',
  'NO',
  'n',
  'N',
  '0',
  0,
]);

/** DRF `BooleanField`'s reading of a value: true, false, or undefined for one it does not take. */
export const drfBoolean = (v: unknown): boolean | undefined =>
  TRUE.has(v) ? true : FALSE.has(v) ? false : undefined;

/** Python's `type(x).__name__` for DRF messages that name the input type. */
function pyTypeName(v: unknown): string {
  if (v === null) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return 'dict';
}

/** Python `str()` of a JSON value, for messages that quote the input. */
function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null) return 'None';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

// Django 5.2 URLValidator (schemes http, https, ftp, ftps), case-insensitive.
const UL = '\\u00a1-\\uffff';
const IPV4 =
  '(?:0|25[0-5]|2[0-4][0-9]|1[0-9]?[0-9]?|[1-9][0-9]?)(?:\\.(?:0|25[0-5]|2[0-4][0-9]|1[0-9]?[0-9]?|[1-9][0-9]?)){3}';
const IPV6 = '\\[[0-9a-f:.]+\\]';
const HOSTNAME = `[a-z${UL}0-9](?:[a-z${UL}0-9-]{0,61}[a-z${UL}0-9])?`;
const DOMAIN = `(?:\\.(?!-)[a-z${UL}0-9-]{1,63}(?<!-))*`;
const TLD = `\\.(?!-)(?:[a-z${UL}-]{2,63}|xn--[a-z0-9]{1,59})(?<!-)\\.?`;
const HOST = `(${HOSTNAME}${DOMAIN}${TLD}|localhost)`;
const URL_RE = new RegExp(
  `^(?:http|https|ftp|ftps)://(?:[^\\s:@/]+(?::[^\\s:@/]*)?@)?(?:${IPV4}|${IPV6}|${HOST})(?::[0-9]{1,5})?(?:[/?#][^\\s]*)?$`,
  'i',
);

/** Django's URLValidator (max length 2048). */
function isValidUrl(value: string): boolean {
  if (value.length > 2048) return false;
  return URL_RE.test(value);
}

/**
 * Validates `body` against `schema` like a DRF serializer. `partial` (PATCH) requires nothing; otherwise
 * every field that is not `.optional()` is required. Unknown keys are ignored, as DRF does. Returns the
 * coerced values or the errors dict, fields in the schema's order.
 */
export function validateFields(
  body: unknown,
  schema: RequestSchema,
  partial = false,
): { ok: true; value: Record<string, unknown> } | { ok: false; errors: FieldErrors } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return {
      ok: false,
      errors: { non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyTypeName(body)}.`] },
    };
  }
  const input = body as Record<string, unknown>;
  const value: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const [name, declared] of Object.entries(schema.shape)) {
    const field = fieldOf(declared);
    if (!Object.hasOwn(input, name)) {
      if (!field.optional && !partial) errors[name] = [MSG.required];
      continue;
    }
    const result = validateField(input[name], field);
    if ('error' in result) errors[name] = result.error;
    else value[name] = result.value;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

type Outcome = { value: unknown } | { error: unknown };

interface Field {
  type: z.ZodType;
  optional: boolean;
  nullable: boolean;
}

/** A field's type under its `.optional()` and `.nullable()` wrappers (in either order). */
function fieldOf(schema: z.ZodType): Field {
  let type = schema;
  let optional = false;
  let nullable = false;
  for (;;) {
    if (type instanceof z.ZodOptional) {
      optional = true;
      type = type.unwrap() as z.ZodType;
    } else if (type instanceof z.ZodNullable) {
      nullable = true;
      type = type.unwrap() as z.ZodType;
    } else return { type, optional, nullable };
  }
}

function validateField(v: unknown, field: Field): Outcome {
  if (v === null) return field.nullable ? { value: null } : { error: [MSG.null] };
  return validateValue(v, field.type);
}

/**
 * A non-null value as the field of `type` takes it. List items come here directly, so a null item is
 * the item type's own error.
 */
function validateValue(v: unknown, type: z.ZodType): Outcome {
  if (type instanceof z.ZodString || type instanceof z.ZodStringFormat) return stringValue(v, type);
  if (type instanceof z.ZodNumber) return type.isInt ? integerValue(v, type) : floatValue(v);
  if (type instanceof z.ZodBoolean) {
    const b = drfBoolean(v);
    return b === undefined ? { error: [MSG.boolean] } : { value: b };
  }
  if (type instanceof z.ZodEnum) {
    const choices = type.options as readonly unknown[];
    if ((typeof v === 'string' || typeof v === 'number') && choices.includes(String(v)))
      return { value: String(v) };
    return { error: [`"${pyStr(v)}" is not a valid choice.`] };
  }
  if (type instanceof z.ZodArray) {
    const item = type.element as z.ZodType;
    return item instanceof z.ZodEnum ? multipleChoiceValue(v, item) : listValue(v, item);
  }
  if (type instanceof z.ZodUnknown || type instanceof z.ZodAny) return { value: v };
  throw new Error(`no DRF field for a zod ${type._zod.def.type}`);
}

/**
 * `CharField` (and `URLField` for `z.url()`): numbers are taken as their text, whitespace is trimmed, a
 * minimum length of 1 or more refuses blank; the length and URL checks all report.
 */
function stringValue(v: unknown, type: z.ZodString | z.ZodStringFormat): Outcome {
  if (typeof v === 'boolean' || (typeof v !== 'string' && typeof v !== 'number'))
    return { error: [MSG.string] };
  const s = String(v).trim();
  const min = type.minLength;
  const max = type.maxLength;
  if (s === '' && min !== null && min >= 1) return { error: [MSG.blank] };
  const errs: string[] = [];
  if (max !== null && s.length > max) errs.push(`Ensure this field has no more than ${max} characters.`);
  if (min !== null && s.length < min) errs.push(`Ensure this field has at least ${min} characters.`);
  if (type.format === 'url' && !isValidUrl(s)) errs.push(MSG.url);
  return errs.length > 0 ? { error: errs } : { value: s };
}

/** The bounds a schema declares with `.min()`/`.max()` (not the safe-integer range `.int()` implies). */
function boundsOf(type: z.ZodNumber): { min?: number; max?: number } {
  const bounds: { min?: number; max?: number } = {};
  // Read by the check's name: `z.core`'s classes as values would bundle all of zod's core (its locales
  // too) into the simulator's startup (docs/decisions/0009).
  for (const check of type._zod.def.checks ?? []) {
    const def = check._zod.def as { check: string; value?: unknown };
    if (def.check === 'greater_than') bounds.min = Number(def.value);
    else if (def.check === 'less_than') bounds.max = Number(def.value);
  }
  return bounds;
}

/** `IntegerField`: a whole number, or its digits as a string. */
function integerValue(v: unknown, type: z.ZodNumber): Outcome {
  let n: number;
  if (typeof v === 'number' && Number.isInteger(v)) n = v;
  else if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) n = Number(v);
  else return { error: [MSG.integer] };
  const { min, max } = boundsOf(type);
  if (max !== undefined && n > max) return { error: [`Ensure this value is less than or equal to ${max}.`] };
  if (min !== undefined && n < min)
    return { error: [`Ensure this value is greater than or equal to ${min}.`] };
  return { value: n };
}

/** `FloatField`: a finite number, or its text. */
function floatValue(v: unknown): Outcome {
  if (typeof v === 'number' && Number.isFinite(v)) return { value: v };
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return { value: Number(v) };
  return { error: [MSG.number] };
}

/** `MultipleChoiceField`: a list of choices, the first bad one reported; the answer has no repeats. */
function multipleChoiceValue(v: unknown, item: z.ZodEnum): Outcome {
  if (!Array.isArray(v)) return { error: [`Expected a list of items but got type "${pyTypeName(v)}".`] };
  const choices = item.options as readonly unknown[];
  for (const x of v) {
    if (!(typeof x === 'string' || typeof x === 'number') || !choices.includes(String(x))) {
      return { error: [`"${pyStr(x)}" is not a valid choice.`] };
    }
  }
  return { value: [...new Set(v.map(String))] };
}

/** `ListField`: every item checked; the errors are keyed by the bad items' indexes. */
function listValue(v: unknown, item: z.ZodType): Outcome {
  if (!Array.isArray(v)) return { error: [`Expected a list of items but got type "${pyTypeName(v)}".`] };
  const out: unknown[] = [];
  const errs: Record<number, unknown> = {};
  v.forEach((x, i) => {
    const r = validateValue(x, item);
    if ('error' in r) errs[i] = r.error;
    else out.push(r.value);
  });
  return Object.keys(errs).length > 0 ? { error: errs } : { value: out };
}
