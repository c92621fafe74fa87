/**
 * A small copy of DRF's field validation, with DRF's exact messages, so bad input gets CVAT's bodies.
 */

export type FieldSpec =
  | {
      kind: 'string';
      required?: boolean;
      nullable?: boolean;
      allowBlank?: boolean;
      maxLength?: number;
      minLength?: number;
    }
  | { kind: 'url'; required?: boolean; maxLength?: number }
  | { kind: 'integer'; required?: boolean; nullable?: boolean; min?: number; max?: number }
  | { kind: 'boolean'; required?: boolean }
  | { kind: 'choice'; required?: boolean; choices: readonly string[]; nullable?: boolean }
  | { kind: 'multipleChoice'; required?: boolean; choices: readonly string[] }
  | { kind: 'numberList'; required?: boolean }
  | { kind: 'any'; required?: boolean };

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
 * Validates `body` against `spec` like a DRF serializer. `partial` skips `required`. Unknown keys are
 * ignored, as DRF does. Returns the coerced values or the errors dict.
 */
export function validateFields(
  body: unknown,
  spec: Record<string, FieldSpec>,
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
  for (const [name, field] of Object.entries(spec)) {
    if (!(name in input)) {
      if (field.required && !partial) errors[name] = [MSG.required];
      continue;
    }
    const result = validateField(input[name], field);
    if ('error' in result) errors[name] = result.error;
    else value[name] = result.value;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

function validateField(v: unknown, f: FieldSpec): { value: unknown } | { error: string[] } {
  if (v === null) {
    if ('nullable' in f && f.nullable) return { value: null };
    return { error: [MSG.null] };
  }
  switch (f.kind) {
    case 'string': {
      if (typeof v === 'boolean' || (typeof v !== 'string' && typeof v !== 'number'))
        return { error: [MSG.string] };
      const s = String(v).trim();
      if (s === '' && !f.allowBlank) return { error: [MSG.blank] };
      if (f.maxLength !== undefined && s.length > f.maxLength) {
        return { error: [`Ensure this field has no more than ${f.maxLength} characters.`] };
      }
      if (f.minLength !== undefined && s.length < f.minLength) {
        return { error: [`Ensure this field has at least ${f.minLength} characters.`] };
      }
      return { value: s };
    }
    case 'url': {
      if (typeof v === 'boolean' || (typeof v !== 'string' && typeof v !== 'number'))
        return { error: [MSG.string] };
      const s = String(v).trim();
      if (s === '') return { error: [MSG.blank] };
      const errs: string[] = [];
      if (f.maxLength !== undefined && s.length > f.maxLength) {
        errs.push(`Ensure this field has no more than ${f.maxLength} characters.`);
      }
      if (!isValidUrl(s)) errs.push(MSG.url);
      return errs.length > 0 ? { error: errs } : { value: s };
    }
    case 'integer': {
      let n: number;
      if (typeof v === 'number' && Number.isInteger(v)) n = v;
      else if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) n = Number(v);
      else return { error: [MSG.integer] };
      if (f.max !== undefined && n > f.max)
        return { error: [`Ensure this value is less than or equal to ${f.max}.`] };
      if (f.min !== undefined && n < f.min)
        return { error: [`Ensure this value is greater than or equal to ${f.min}.`] };
      return { value: n };
    }
    case 'boolean':
      if (TRUE.has(v)) return { value: true };
      if (FALSE.has(v)) return { value: false };
      return { error: [MSG.boolean] };
    case 'choice':
      if ((typeof v === 'string' || typeof v === 'number') && f.choices.includes(String(v)))
        return { value: String(v) };
      return { error: [`"${pyStr(v)}" is not a valid choice.`] };
    case 'multipleChoice': {
      if (typeof v === 'string' || !Array.isArray(v)) {
        return { error: [`Expected a list of items but got type "${pyTypeName(v)}".`] };
      }
      for (const item of v) {
        if (!(typeof item === 'string' || typeof item === 'number') || !f.choices.includes(String(item))) {
          return { error: [`"${pyStr(item)}" is not a valid choice.`] };
        }
      }
      return { value: [...new Set(v.map(String))] };
    }
    case 'numberList': {
      if (!Array.isArray(v)) return { error: [`Expected a list of items but got type "${pyTypeName(v)}".`] };
      const out: number[] = [];
      const errs: Record<number, string[]> = {};
      v.forEach((x, i) => {
        if (typeof x === 'number' && Number.isFinite(x)) out.push(x);
        else if (typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x))) out.push(Number(x));
        else errs[i] = [MSG.number];
      });
      if (Object.keys(errs).length > 0) return { error: errs as unknown as string[] };
      return { value: out };
    }
    case 'any':
      return { value: v };
  }
}
