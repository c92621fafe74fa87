import type { Field, Type } from 'protobufjs';

/**
 * The proto3 JSON mapping of the well-known types the container protos use, which protobufjs's
 * `fromObject`/`toObject` leave as messages: a Timestamp is an RFC 3339 string, a Duration `"3.5s"`, a
 * wrapper its bare value. The REST side speaks that mapping; these walk a message's JSON through its
 * type and turn those values into the objects protobufjs takes (`toProtoObject`) and back (`toJson`).
 */
type Json = unknown;
type Convert = (value: Json, type: Type) => Json;

const WRAPPERS = new Set([
  'BoolValue',
  'Int32Value',
  'Int64Value',
  'UInt32Value',
  'UInt64Value',
  'StringValue',
  'DoubleValue',
  'FloatValue',
  'BytesValue',
]);

function wellKnown(type: Type): string | undefined {
  const full = type.fullName;
  return full.startsWith('.google.protobuf.') ? full.slice('.google.protobuf.'.length) : undefined;
}

function timestampToObject(value: Json): Json {
  if (typeof value !== 'string') return value;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return value;
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  return { seconds: String(Math.floor(ms / 1000)), nanos: Number(fraction.padEnd(9, '0').slice(0, 9)) };
}

/** Nanoseconds as proto3 JSON writes them: none, or 3, 6 or 9 digits. */
function fractionOf(nanos: number): string {
  if (!nanos) return '';
  const digits = String(Math.abs(nanos)).padStart(9, '0');
  return `.${digits.endsWith('000000') ? digits.slice(0, 3) : digits.endsWith('000') ? digits.slice(0, 6) : digits}`;
}

function timestampToJson(value: Json): Json {
  const { seconds = 0, nanos = 0 } = (value ?? {}) as { seconds?: string | number; nanos?: number };
  const iso = new Date(Number(seconds) * 1000).toISOString().replace('.000Z', 'Z');
  return iso.replace('Z', `${fractionOf(nanos)}Z`);
}

function durationToObject(value: Json): Json {
  if (typeof value !== 'string' || !value.endsWith('s')) return value;
  const [whole = '0', fraction = ''] = value.slice(0, -1).split('.');
  const negative = whole.startsWith('-');
  const nanos = Number(fraction.padEnd(9, '0').slice(0, 9));
  return { seconds: whole, nanos: negative ? -nanos : nanos };
}

function durationToJson(value: Json): Json {
  const { seconds = 0, nanos = 0 } = (value ?? {}) as { seconds?: string | number; nanos?: number };
  return `${seconds}${fractionOf(nanos)}s`;
}

/** The two directions of the mapping, with what each message type needs walked found once. */
export interface JsonMapping {
  /** REST JSON (proto3 mapping) → the plain object protobufjs's `fromObject` takes. */
  toProtoObject(value: Json, type: Type): Json;
  /** What protobufjs's `toObject` gives → REST JSON (proto3 mapping). */
  toJson(value: Json, type: Type): Json;
}

const fromJsonLeaf: Convert = (v, t) => {
  const name = wellKnown(t);
  if (name === 'Timestamp') return timestampToObject(v);
  if (name === 'Duration') return durationToObject(v);
  if (name && WRAPPERS.has(name)) return v === null ? v : { value: v };
  return v;
};

const toJsonLeaf: Convert = (v, t) => {
  const name = wellKnown(t);
  if (name === 'Timestamp') return timestampToJson(v);
  if (name === 'Duration') return durationToJson(v);
  if (name && WRAPPERS.has(name)) return (v as { value?: Json } | null)?.value ?? defaultOf(name);
  return v;
};

const messageOf = (field: Field): Type | undefined => {
  const child = field.resolvedType;
  return child && 'fieldsArray' in child ? child : undefined;
};

/**
 * Builds the mapping. Only the fields whose messages reach a well-known type are walked (most of a
 * Cluster reaches none), so a message is copied only where something in it changes.
 */
export function createJsonMapping(): JsonMapping {
  const walked = new Map<Type, Field[]>();
  const fieldsToWalk = (type: Type): Field[] => {
    const known = walked.get(type);
    if (known) return known;
    // A recursive message is walked where it recurses: correct, if not the least work.
    walked.set(
      type,
      type.fieldsArray.filter((f) => messageOf(f) !== undefined),
    );
    const fields = type.fieldsArray.filter((f) => {
      const child = messageOf(f);
      return child !== undefined && (wellKnown(child) !== undefined || fieldsToWalk(child).length > 0);
    });
    walked.set(type, fields);
    return fields;
  };
  const walk = (value: Json, type: Type, leaf: Convert): Json => {
    if (wellKnown(type)) return leaf(value, type);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const fields = fieldsToWalk(type);
    if (fields.length === 0) return value;
    const out: Record<string, Json> = { ...(value as Record<string, Json>) };
    for (const field of fields) {
      const child = messageOf(field) as Type;
      const key = field.name in out ? field.name : field.options?.json_name;
      if (key === undefined || !(key in out)) continue;
      const v = out[key];
      if (field.map && v && typeof v === 'object')
        out[key] = Object.fromEntries(Object.entries(v).map(([k, e]) => [k, walk(e, child, leaf)]));
      else if (field.repeated && Array.isArray(v)) out[key] = v.map((e) => walk(e, child, leaf));
      else out[key] = walk(v, child, leaf);
    }
    return out;
  };
  return {
    toProtoObject: (value, type) => walk(value, type, fromJsonLeaf),
    toJson: (value, type) => walk(value, type, toJsonLeaf),
  };
}

function defaultOf(wrapper: string): Json {
  if (wrapper === 'BoolValue') return false;
  if (wrapper === 'StringValue' || wrapper === 'BytesValue') return '';
  if (wrapper === 'Int64Value' || wrapper === 'UInt64Value') return '0';
  return 0;
}
