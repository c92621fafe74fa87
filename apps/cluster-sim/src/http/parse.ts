import {
  betaOnlyFields,
  duration as durationSchema,
  enumNameOf,
  enumTypeName,
  isDurationText,
  isInt64Schema,
  isInt64Text,
  isTimestampText,
  jsonFieldName,
  oneofFields,
  protoFieldName,
  timestamp as timestampSchema,
} from '@sims/cluster-schema';
import { isPlainObject, type ZodDefView, zodDef } from '@sims/sim-core';
import type { z } from 'zod';
import { fail, ok, type Result } from '../domain/errors';
import { deepFreeze } from '../domain/freeze';
import type { ApiVersion } from '../domain/names';
import type { HttpError } from './errors';

/**
 * Request parsing as Google's front end does it for proto3 JSON: field names in lowerCamel or their
 * original snake_case; enums as names or numbers; int64 as strings or numbers; `null` means "not set".
 * Unknown names are reported like ESF (`Invalid JSON payload received. Unknown name "x": Cannot find
 * field.`) when `strict`, or dropped otherwise; under v1, a field only v1beta1 has is an unknown name.
 * `null` inside a map or a list is what protobuf's JSON converter (the front end's) makes of it: a map entry
 * with the value type's default (`{"a": null}` is `{"a": ""}`), and no list element (`["x", null]` is
 * `["x"]`). A second member of one oneof is refused like the converter does (`Invalid value at
 * 'maintenance_policy.window' (oneof), oneof field 'policy' is already set. Cannot set 'recurringWindow'`);
 * a member that is `null` is not set.
 * A bad enum value is answered as GKE does (`Invalid value at 'node_pool.config.windows_node_config.os_version'
 * (type.googleapis.com/google.container.v1beta1.WindowsNodeConfig.OSVersion), "OS_2022"`, see
 * INVALID_ENUM in errors.ts).
 */

/** One problem of a body; `enumType` (the enum's full v1beta1 name) marks a bad enum value. */
type Violation = { field?: string; description: string; enumType?: string; value?: string };

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = zodDef(current);
    if ((def.type === 'optional' || def.type === 'nullable' || def.type === 'default') && def.innerType) {
      current = def.innerType;
    } else return current;
  }
}

/** Longest value an error message quotes: no answer echoes an unbounded input. */
const MAX_ECHO = 200;
/** Most violations one answer lists (a 10 MiB array of wrong values would otherwise list millions). */
const MAX_VIOLATIONS = 100;

/** A value as an error message quotes it: its JSON, cut at {@link MAX_ECHO} characters. */
function echo(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text;
}

/** A key as a field path quotes it, cut like a value. */
function cut(key: string): string {
  return key.length > MAX_ECHO ? `${key.slice(0, MAX_ECHO)}…` : key;
}

function invalid(path: string, type: string, value: unknown): Violation {
  return { field: path, description: `Invalid value at '${path}' (${type}), ${echo(value)}` };
}

/** The type an error names for a (unwrapped) schema, as the front end names a field's type. */
function typeName(inner: z.ZodType): string {
  const def = zodDef(inner);
  switch (def.type) {
    case 'enum': {
      const enumType = enumTypeName(inner);
      return enumType === undefined ? 'TYPE_ENUM' : `type.googleapis.com/${enumType}`;
    }
    case 'string':
      if (isInt64Schema(inner)) return 'TYPE_INT64';
      if (inner === durationSchema) return 'type.googleapis.com/google.protobuf.Duration';
      if (inner === timestampSchema) return 'type.googleapis.com/google.protobuf.Timestamp';
      return 'TYPE_STRING';
    case 'number':
      return def.format?.includes('int') === true ? 'TYPE_INT32' : 'TYPE_DOUBLE';
    case 'boolean':
      return 'TYPE_BOOL';
    default:
      return 'TYPE_MESSAGE';
  }
}

/**
 * The value a map entry written `null` gets: the default of its value type, as protobuf's JSON converter
 * keeps the entry with no value (its test `MapAcceptsNullValue`). undefined for a Duration or Timestamp,
 * whose converter refuses a non-string (no map of the API holds one).
 */
function zeroOf(inner: z.ZodType): unknown {
  const def = zodDef(inner);
  switch (def.type) {
    case 'object':
    case 'record':
      return {};
    case 'array':
      return [];
    case 'string':
      if (isInt64Schema(inner)) return '0';
      return inner === durationSchema || inner === timestampSchema ? undefined : '';
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'enum':
      return enumNameOf(inner, 0) ?? Object.values(def.entries ?? {})[0];
    default:
      return null;
  }
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

interface WalkOptions {
  strict: boolean;
  version: ApiVersion;
}

function walk(schema: z.ZodType, value: unknown, path: string, opts: WalkOptions, out: Violation[]): unknown {
  if (value === null || out.length >= MAX_VIOLATIONS) return undefined;
  const inner = unwrap(schema);
  const def = zodDef(inner);
  switch (def.type) {
    case 'object': {
      if (!isPlainObject(value)) {
        out.push(invalid(path, 'TYPE_MESSAGE', value));
        return undefined;
      }
      const shape = def.shape ?? {};
      const loose = def.catchall !== undefined && zodDef(def.catchall).type !== 'never';
      // Under v1 the fields only v1beta1 has are not in the message.
      const betaOnly = opts.version === 'v1' ? betaOnlyFields(inner) : undefined;
      // The message's oneofs by member, and those a member was given for (a null member sets nothing).
      const oneofs = oneofFields(inner);
      let taken: Set<string> | undefined;
      const result: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(value)) {
        // Own fields only: `__proto__`, `constructor` or `toString` are unknown names, not Object's.
        let name = Object.hasOwn(shape, key)
          ? key
          : Object.hasOwn(shape, jsonFieldName(key))
            ? jsonFieldName(key)
            : undefined;
        if (name !== undefined && betaOnly?.has(name)) name = undefined;
        if (name === undefined) {
          if (loose && key !== '__proto__') result[key] = v;
          else if (opts.strict) {
            out.push({
              ...(path ? { field: path } : {}),
              description: `Invalid JSON payload received. Unknown name ${echo(key)}${path ? ` at '${path}'` : ''}: Cannot find field.`,
            });
          }
          continue;
        }
        const oneof = oneofs === undefined || v === null ? undefined : oneofs.get(name);
        if (oneof !== undefined) {
          if (taken?.has(oneof)) {
            out.push({
              ...(path ? { field: path } : {}),
              description: `Invalid value at '${path}' (oneof), oneof field '${oneof}' is already set. Cannot set '${cut(key)}'`,
            });
            continue;
          }
          taken ??= new Set();
          taken.add(oneof);
        }
        const child = walk(
          shape[name] as z.ZodType,
          v,
          path ? `${path}.${protoFieldName(name)}` : protoFieldName(name),
          opts,
          out,
        );
        if (child !== undefined) result[name] = child;
      }
      return result;
    }
    case 'array': {
      if (!Array.isArray(value)) {
        out.push(invalid(path, 'TYPE_MESSAGE', value));
        return undefined;
      }
      // A null element is no element (the converter writes nothing for it); the others keep their index.
      const list: unknown[] = [];
      for (let i = 0; i < value.length; i++) {
        if (value[i] !== null)
          list.push(walk(def.element as z.ZodType, value[i], `${path}[${i}]`, opts, out));
      }
      return list;
    }
    case 'record': {
      if (!isPlainObject(value)) {
        out.push(invalid(path, 'TYPE_MESSAGE', value));
        return undefined;
      }
      const result: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (k === '__proto__') {
          // Not a key any map of the API can hold (a label key must start with a letter or digit), and one
          // JavaScript objects would drop: refused rather than lost.
          out.push({ field: path, description: `Invalid map key at '${path}', "__proto__"` });
          continue;
        }
        if (v === null) {
          // An entry with no value: the value type's default.
          const valueType = unwrap(def.valueType as z.ZodType);
          const zero = zeroOf(valueType);
          if (zero === undefined) out.push(invalid(`${path}[${cut(k)}]`, typeName(valueType), v));
          else result[k] = zero;
          continue;
        }
        result[k] = walk(def.valueType as z.ZodType, v, `${path}[${cut(k)}]`, opts, out);
      }
      return result;
    }
    case 'enum': {
      const names = Object.values(def.entries ?? {});
      if (typeof value === 'string' && names.includes(value)) return value;
      if (typeof value === 'number' && Number.isInteger(value)) {
        const name = enumNameOf(inner, value);
        if (name !== undefined) return name;
      }
      const enumType = enumTypeName(inner);
      out.push(
        enumType === undefined
          ? invalid(path, 'TYPE_ENUM', value)
          : { ...invalid(path, `type.googleapis.com/${enumType}`, value), enumType, value: echo(value) },
      );
      return undefined;
    }
    case 'string': {
      if (isInt64Schema(inner)) {
        if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
        if (typeof value === 'string' && isInt64Text(value)) return value;
        out.push(invalid(path, 'TYPE_INT64', value));
        return undefined;
      }
      if (inner === durationSchema) {
        if (typeof value === 'string' && isDurationText(value)) return value;
        out.push(invalid(path, 'type.googleapis.com/google.protobuf.Duration', value));
        return undefined;
      }
      if (inner === timestampSchema) {
        if (typeof value === 'string' && isTimestampText(value)) return value;
        out.push(invalid(path, 'type.googleapis.com/google.protobuf.Timestamp', value));
        return undefined;
      }
      if (typeof value !== 'string') {
        out.push(invalid(path, 'TYPE_STRING', value));
        return undefined;
      }
      return value;
    }
    case 'number': {
      const isInt = def.format?.includes('int') === true;
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      // Integers are int32 here (int64 fields are strings): out of range is the front end's type error.
      const outOfRange = isInt && typeof n === 'number' && (n < INT32_MIN || n > INT32_MAX);
      if (typeof n !== 'number' || Number.isNaN(n) || (isInt && !Number.isInteger(n)) || outOfRange) {
        out.push(invalid(path, isInt ? 'TYPE_INT32' : 'TYPE_DOUBLE', value));
        return undefined;
      }
      return n;
    }
    case 'boolean': {
      if (typeof value !== 'boolean') {
        out.push(invalid(path, 'TYPE_BOOL', value));
        return undefined;
      }
      return value;
    }
    default:
      return value;
  }
}

/**
 * A problem zod found that the walk let through, in the front end's words: the field path in its syntax
 * (`a.b[0]`, `m[key]`) and the type of the field there. The walk checks every type zod does, so this is a
 * safety net; zod's own wording never reaches an answer.
 */
function issueViolation(schema: z.ZodType, data: unknown, issuePath: readonly PropertyKey[]): Violation {
  let current: z.ZodType | undefined = schema;
  let value = data;
  let path = '';
  for (const segment of issuePath) {
    const key = typeof segment === 'symbol' ? String(segment) : segment;
    const def: ZodDefView | undefined = current === undefined ? undefined : zodDef(unwrap(current));
    if (def?.type === 'array' || (def === undefined && typeof key === 'number')) {
      path += `[${key}]`;
      current = def?.element;
    } else if (def?.type === 'record') {
      path += `[${cut(String(key))}]`;
      current = def.valueType;
    } else {
      const name = protoFieldName(String(key));
      path = path ? `${path}.${name}` : name;
      current = def?.type === 'object' && Object.hasOwn(def.shape ?? {}, key) ? def.shape?.[key] : undefined;
    }
    value =
      value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return invalid(path, current === undefined ? 'TYPE_MESSAGE' : typeName(unwrap(current)), value ?? null);
}

/**
 * The error of a walk's violations. A bad enum value found first is GKE's answer for it alone
 * (INVALID_ENUM); otherwise every other violation is listed (BAD_PAYLOAD).
 */
function violationError(violations: Violation[]): HttpError {
  const first = violations[0];
  if (first?.enumType !== undefined) {
    return {
      code: 'INVALID_ENUM',
      field: first.field ?? '',
      enumType: first.enumType,
      value: first.value ?? '',
    };
  }
  return {
    code: 'BAD_PAYLOAD',
    violations: violations
      .filter((v) => v.enumType === undefined)
      .map((v) =>
        v.field === undefined
          ? { description: v.description }
          : { field: v.field, description: v.description },
      ),
  };
}

/**
 * Parses a JSON body against a request schema the way the front end does; `version` is the API version of
 * the request's path (under v1 the fields only v1beta1 has are unknown names).
 *
 * @example parseRequest(UpdateNodePoolRequest, { node_version: '1.33', upgrade_settings: { strategy: 3 } }, true)
 */
export function parseRequest<T extends z.ZodType>(
  schema: T,
  body: unknown,
  strict: boolean,
  version: ApiVersion = 'v1beta1',
): Result<z.output<T>, HttpError> {
  if (body === undefined) body = {};
  if (!isPlainObject(body)) {
    return fail({
      code: 'BAD_PAYLOAD',
      violations: [{ description: `Invalid JSON payload received. Expected an object, got ${echo(body)}.` }],
    });
  }
  const violations: Violation[] = [];
  const normalised = walk(schema, body, '', { strict, version }, violations);
  if (violations.length > 0) return fail(violationError(violations));
  const parsed = schema.safeParse(normalised);
  if (!parsed.success) {
    return fail(
      violationError(
        parsed.error.issues
          .slice(0, MAX_VIOLATIONS)
          .map((issue) => issueViolation(schema, normalised, issue.path)),
      ),
    );
  }
  return ok(parsed.data);
}

/**
 * {@link parseRequest} remembered per raw body text: clients send the same bytes again and again (a
 * retried update, a poller, a load test), and the walk for unknown fields plus zod's parse were the
 * bulk of an update's own CPU (bench/, decision 0008). The parse is a pure function of the schema, the body
 * text and the strictness, so the remembered result is the one a fresh parse would give; it is
 * deep-frozen because requests share it. Bodies over `maxBodyChars` are not remembered; a schema's
 * memory is cleared once it holds `maxEntries` bodies. `version` as for {@link parseRequest}.
 *
 * @example const parseBody = createParseCache(); parseBody(UpdateNodePoolRequest, raw, JSON.parse(raw), true)
 */
export function createParseCache(maxEntries = 256, maxBodyChars = 4096) {
  const bySchema = new Map<z.ZodType, Map<string, Result<unknown, HttpError>>>();
  return function parseBody<T extends z.ZodType>(
    schema: T,
    rawBody: string,
    json: unknown,
    strict: boolean,
    version: ApiVersion = 'v1beta1',
  ): Result<z.output<T>, HttpError> {
    if (rawBody.length > maxBodyChars) return parseRequest(schema, json, strict, version);
    let remembered = bySchema.get(schema);
    if (remembered === undefined) {
      remembered = new Map();
      bySchema.set(schema, remembered);
    }
    const key = `${strict ? '1' : '0'}${version === 'v1' ? '1' : 'b'}${rawBody}`;
    let result = remembered.get(key);
    if (result === undefined) {
      result = deepFreeze(parseRequest(schema, json, strict, version));
      if (remembered.size >= maxEntries) remembered.clear();
      remembered.set(key, result);
    }
    return result as Result<z.output<T>, HttpError>;
  };
}
