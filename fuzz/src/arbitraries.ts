/**
 * fast-check arbitraries for requests: path parameters, query strings, headers and bodies, valid (from
 * the served JSON Schemas) and hostile (wrong types, out-of-range numbers, deep nesting, prototype keys,
 * wrong content types, bad encodings).
 */
import fc from 'fast-check';
import type { BodySpec, FuzzRequest } from './http';
import { fromPlain, JObj, JRaw, type JValue } from './json-text';
import { type OpenApiDocument, type Operation, resolveRef, type Schema } from './openapi';
import { hostileQueryArb, isListRoute } from './query-hostile';

// --- strings -------------------------------------------------------------------------------------------

/** Strings that break naive code: traversal, encodings, prototype names, control and astral characters. */
const NASTY_STRINGS = [
  '',
  ' ',
  '.',
  '..',
  '../..',
  '..%2f..',
  '%2e%2e',
  '%2F',
  '/',
  '//',
  '\\',
  '%',
  '%%',
  '%ZZ',
  '%C0%AF',
  '%00',
  '\u0000',
  '\t\n',
  '-',
  '*',
  '?',
  '#',
  ';',
  ':',
  ':cancel',
  ':setSize',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '9223372036854775808',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  '$ref',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup string, on purpose
  '${jndi:ldap://127.0.0.1/a}',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '{{7*7}}',
  '🙂',
  'ǅ',
  'İ',
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udfff',
  'a\u0301',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'Ω≈ç√∫',
  'ẞ',
];

const longString = fc
  .tuple(fc.integer({ min: 257, max: 12_000 }), fc.constantFrom('x', '🙂', '%', '/', 'é', '\u0000'))
  .map(([n, unit]) => unit.repeat(n));

/** Any string, with a strong bias to nasty ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: longString },
);

/** A path segment: a known good value (most of the time) or a hostile string, encoded one way or another. */
export function pathSegment(good: readonly string[]): fc.Arbitrary<{ value: string; hostile: boolean }> {
  const encoded = fc
    .tuple(hostileString, fc.constantFrom('component', 'component', 'raw', 'double'))
    .map(([s, how]) => ({ value: encodeSegment(s, how), hostile: true }));
  if (good.length === 0) return encoded;
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...good).map((value) => ({ value, hostile: false })) },
    { weight: 1, arbitrary: encoded },
  );
}

function encodeSegment(s: string, how: string): string {
  try {
    if (how === 'component') return encodeURIComponent(s);
    if (how === 'double') return encodeURIComponent(encodeURIComponent(s));
  } catch {
    // a lone surrogate: send it raw
  }
  return s;
}

// --- numbers and other hostile scalars ---------------------------------------------------------------

/** Number literals a JavaScript number cannot hold, or holds wrongly, and numbers at the int32/int64 edges. */
export const HOSTILE_NUMBER_LITERALS = [
  '2147483647',
  '2147483648',
  '-2147483648',
  '-2147483649',
  '4294967296',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '123456789012345678901234567890',
  '1e400',
  '-1e400',
  '1e-400',
  '1.7976931348623157e308',
  '4.9e-324',
  '-0',
  '0.5',
  '1.5',
  '-1',
  '1E2',
  '100000000000000000000000000000000000000000000000000000000000000000000000000000000000000',
];

/** Int64 fields are strings on the wire (proto3 JSON): edge and malformed ones. */
const HOSTILE_INT64_STRINGS = [
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '99999999999999999999999999999999',
  '1e3',
  '0x10',
  ' 1',
  '1 ',
  '+1',
  '1.0',
  '',
  '-',
  '١٢',
  '00000000000000000000000001',
];

/** google.protobuf.Duration strings out of range or malformed. */
const HOSTILE_DURATIONS = [
  '99999999999999999999s',
  '315576000001s',
  '-315576000001s',
  '315576000000.999999999s',
  '1.1234567891s',
  '1e9s',
  '1.5',
  's',
  '-s',
  '.5s',
  '1.s',
  '1.5.5s',
  'NaNs',
  'Infinitys',
  '0x10s',
  '1 s',
  '10m',
  '-0s',
  `${'9'.repeat(400)}s`,
  '',
];

const HOSTILE_SCALARS: JValue[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  '',
  'x',
  '🙂',
  [],
  new JObj([]),
  new JRaw('1e400'),
  new JRaw('-0'),
  new JRaw('123456789012345678901234567890'),
];

/** Any small JSON value, as a tree. */
export const anyJson: fc.Arbitrary<JValue> = fc.jsonValue({ maxDepth: 2 }).map(fromPlain);

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/** Objects that try to pollute Object.prototype through merges and lookups. */
export const protoEntries: fc.Arbitrary<[string, JValue][]> = fc.subarray(
  [
    ['__proto__', new JObj([['polluted', 'yes']])] as [string, JValue],
    ['constructor', new JObj([['prototype', new JObj([['polluted', 'yes']])]])] as [string, JValue],
    ['prototype', new JObj([['polluted', 'yes']])] as [string, JValue],
    ['toString', 'x'] as [string, JValue],
    ['hasOwnProperty', 1] as [string, JValue],
    ['valueOf', new JObj([])] as [string, JValue],
    ['__defineGetter__', null] as [string, JValue],
  ],
  { minLength: 1 },
);

/** A value nested `depth` levels, built without recursion. */
export function nested(depth: number, style: 'array' | 'object'): JValue {
  let v: JValue = 1;
  for (let i = 0; i < depth; i++) v = style === 'array' ? [v] : new JObj([['a', v]]);
  return v;
}

// --- JSON Schema → values ------------------------------------------------------------------------------

interface SchemaArbOptions {
  /** Probability-ish weight (0..10) of replacing a leaf with a hostile value of its kind. */
  hostility: number;
  /** Known good strings for fields of a name (ids, versions, etags …). */
  hints: Record<string, readonly string[]>;
  /** Write some keys in snake_case (proto3 JSON accepts both). */
  snakeCase: boolean;
  /** Optional keys sent only now and then (e.g. the deprecated ids a path already gives). */
  rareKeys?: ReadonlySet<string>;
}

const MAX_DEPTH = 5;
const MAX_OPTIONAL_KEYS = 6;

const isInt64 = (s: Schema) => s.type === 'string' && s.pattern === '^-?\\d+$';
const isDuration = (s: Schema) =>
  s.type === 'string' && typeof s.pattern === 'string' && s.pattern.endsWith('s$');
const camelToSnake = (name: string) => name.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);

function hostileFor(schema: Schema, name: string): fc.Arbitrary<JValue> {
  const raws = (list: readonly string[]) => fc.constantFrom(...list).map((t) => new JRaw(t) as JValue);
  const strings = (list: readonly string[]) => fc.constantFrom(...list) as fc.Arbitrary<JValue>;
  const scalars = fc.constantFrom(...HOSTILE_SCALARS);
  if (isInt64(schema))
    return fc.oneof(strings(HOSTILE_INT64_STRINGS), raws(HOSTILE_NUMBER_LITERALS), scalars);
  if (isDuration(schema)) return fc.oneof(strings(HOSTILE_DURATIONS), raws(HOSTILE_NUMBER_LITERALS), scalars);
  if (Array.isArray(schema.enum)) {
    return fc.oneof(
      fc.constantFrom<JValue>('NOT_AN_ENUM', 'pending', 99999, -1, 1.5, '', '__proto__'),
      raws(['2147483648', '1e400', '-0']),
      scalars,
    );
  }
  switch (schema.type) {
    case 'integer':
    case 'number':
      return fc.oneof(
        { weight: 3, arbitrary: raws(HOSTILE_NUMBER_LITERALS) },
        { weight: 1, arbitrary: strings(['12', '1e3', 'abc', '', '0x10', ' 1', 'NaN']) },
        { weight: 1, arbitrary: scalars },
      );
    case 'boolean':
      return fc.constantFrom<JValue>('true', 'yes', 1, 0, null, 'True', '', []);
    case 'array':
      return fc.oneof(
        scalars,
        fc
          .integer({ min: 50, max: 3000 })
          .map((n) => new Array(n).fill(name === 'events' ? 'x' : 0) as JValue),
        fc.integer({ min: 100, max: 5000 }).map((n) => nested(n, 'array')),
      );
    case 'object':
      return fc.oneof(
        scalars,
        protoEntries.map((e) => new JObj(e) as JValue),
        fc.integer({ min: 100, max: 5000 }).map((n) => nested(n, 'object')),
      );
    default:
      return fc.oneof(
        { weight: 3, arbitrary: hostileString as fc.Arbitrary<JValue> },
        { weight: 1, arbitrary: scalars },
        { weight: 1, arbitrary: raws(HOSTILE_NUMBER_LITERALS) },
      );
  }
}

/**
 * Values for a JSON Schema (OpenAPI 3.0 or 3.1 dialect, as zod's toJSONSchema writes it): valid ones,
 * with leaves replaced by hostile values of their kind at the given hostility.
 */
function schemaArb(
  doc: OpenApiDocument,
  schemaIn: Schema | undefined,
  options: SchemaArbOptions,
  name = '',
  depth = 0,
): fc.Arbitrary<JValue> {
  const schema = resolveRef(doc, schemaIn) ?? {};
  const valid = validArb(doc, schema, options, name, depth);
  if (options.hostility <= 0 || schema.type === 'object') return valid;
  return fc.oneof(
    { weight: 10, arbitrary: valid },
    { weight: options.hostility, arbitrary: hostileFor(schema, name) },
  );
}

function validArb(
  doc: OpenApiDocument,
  schema: Schema,
  options: SchemaArbOptions,
  name: string,
  depth: number,
): fc.Arbitrary<JValue> {
  const options_: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options_) && options_.length > 0) {
    return fc.oneof(...options_.map((s) => schemaArb(doc, s, options, name, depth + 1)));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return schemaArb(doc, schema.allOf[0] as Schema, options, name, depth + 1);
  }
  if ('const' in schema) return fc.constant(schema.const as JValue);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    // proto3 JSON takes enum numbers too.
    return fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...(schema.enum as JValue[])) },
      {
        weight: 1,
        arbitrary: fc.nat(
          options.hostility > 0 ? schema.enum.length + 1 : schema.enum.length - 1,
        ) as fc.Arbitrary<JValue>,
      },
    );
  }
  const hinted = options.hints[name];
  const type: string | undefined = Array.isArray(schema.type)
    ? (schema.type.find((t: string) => t !== 'null') ?? 'null')
    : schema.type;
  if (isInt64(schema)) {
    return fc.oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => String(n) as JValue),
      fc.integer({ min: 0, max: 10 }).map((n) => String(n) as JValue),
      fc.integer({ min: 0, max: 1000 }) as fc.Arbitrary<JValue>,
    );
  }
  if (isDuration(schema)) {
    return fc
      .tuple(fc.nat(100_000), fc.option(fc.integer({ min: 0, max: 999_999_999 }), { nil: undefined }))
      .map(([s, f]) => (f === undefined ? `${s}s` : `${s}.${String(f).padStart(9, '0')}s`) as JValue);
  }
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? Math.max(schema.minimum, -(2 ** 31)) : -(2 ** 31);
      const max = typeof schema.maximum === 'number' ? Math.min(schema.maximum, 2 ** 31 - 1) : 2 ** 31 - 1;
      return fc.oneof(
        {
          weight: 3,
          arbitrary: fc.integer({ min: Math.max(min, 0), max: Math.max(Math.min(max, 10), min) }),
        },
        { weight: 1, arbitrary: fc.integer({ min, max }) },
      );
    }
    case 'number':
      return fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
        fc.integer({ min: 0, max: 100 }),
      );
    case 'string': {
      let matching: fc.Arbitrary<string> | undefined;
      if (typeof schema.pattern === 'string') {
        try {
          matching = fc.stringMatching(new RegExp(schema.pattern), { size: 'small' });
        } catch {
          matching = undefined;
        }
      }
      const generic =
        matching ??
        (schema.format === 'date-time'
          ? fc
              .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
              .map((d) => d.toISOString())
          : schema.format === 'uri'
            ? fc.constantFrom('http://127.0.0.1:9/hook', 'https://127.0.0.1/x', 'not a url')
            : fc.string({ maxLength: 16 }));
      return hinted && hinted.length > 0
        ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hinted) }, { weight: 1, arbitrary: generic })
        : generic;
    }
    case 'array': {
      if (depth >= MAX_DEPTH) return fc.constant([]);
      return fc.array(schemaArb(doc, schema.items as Schema, options, name, depth + 1), { maxLength: 3 });
    }
    default: {
      if (type !== 'object' && schema.properties === undefined && schema.additionalProperties === undefined) {
        // No type at all: anything JSON.
        return fc.oneof(fc.constantFrom<JValue>(null, 1, 'x', true), anyJson);
      }
      return objectArb(doc, schema, options, depth);
    }
  }
}

function objectArb(
  doc: OpenApiDocument,
  schema: Schema,
  options: SchemaArbOptions,
  depth: number,
): fc.Arbitrary<JValue> {
  if (depth >= MAX_DEPTH) return fc.constant(new JObj([]));
  const props: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  const optional = Object.keys(props).filter((k) => !required.has(k));
  const key = (k: string) => (options.snakeCase ? fc.constantFrom(k, k, camelToSnake(k)) : fc.constant(k));
  const entry = (k: string) =>
    fc.tuple(key(k), schemaArb(doc, props[k], options, k, depth + 1)) as fc.Arbitrary<[string, JValue]>;
  const requiredArb = fc.tuple(...[...required].filter((k) => k in props).map(entry));
  // Only at the top: the same names inside (e.g. `nodePool.name`) are what the request is about.
  const rare = depth === 0 ? (options.rareKeys ?? new Set<string>()) : new Set<string>();
  const common = optional.filter((k) => !rare.has(k));
  const seldom = optional.filter((k) => rare.has(k));
  const optionalArb = fc
    .tuple(
      fc.subarray(common, { maxLength: Math.min(MAX_OPTIONAL_KEYS, common.length) }),
      seldom.length === 0
        ? fc.constant([] as string[])
        : fc.oneof(
            { weight: 5, arbitrary: fc.constant([] as string[]) },
            { weight: 1, arbitrary: fc.subarray(seldom, { maxLength: Math.min(2, seldom.length) }) },
          ),
    )
    .chain(([a, b]) => fc.tuple(...[...a, ...b].map(entry)));
  const ap = schema.additionalProperties;
  // `additionalProperties: {}` beside named properties is a passthrough, not a map: extra keys there are
  // unknown fields, which only the hostile variants send.
  const isMap =
    ap && typeof ap === 'object' && (Object.keys(ap).length > 0 || Object.keys(props).length === 0);
  const extraArb: fc.Arbitrary<[string, JValue][]> =
    ap && typeof ap === 'object' && (isMap || options.hostility > 0)
      ? fc.array(
          fc.tuple(
            options.hostility > 0
              ? fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom(...PROTO_KEYS))
              : fc.stringMatching(/^[a-z][a-z0-9-]{0,9}$/),
            schemaArb(doc, ap as Schema, options, '', depth + 1),
          ),
          { maxLength: 3 },
        )
      : fc.constant([]);
  return fc
    .tuple(requiredArb, optionalArb, extraArb)
    .map(([r, o, e]) => new JObj([...(r as [string, JValue][]), ...(o as [string, JValue][]), ...e]));
}

// --- bodies ------------------------------------------------------------------------------------------

/** Bytes that are not UTF-8, alone or inside an otherwise fine JSON string. */
const BAD_UTF8: { label: string; bytes: number[] }[] = [
  { label: 'lone 0xff', bytes: [0xff] },
  { label: 'truncated 2-byte sequence', bytes: [0xc3, 0x28] },
  { label: 'UTF-8 encoded surrogate', bytes: [0xed, 0xa0, 0x80] },
  { label: 'beyond U+10FFFF', bytes: [0xf4, 0x90, 0x80, 0x80] },
  { label: 'overlong slash', bytes: [0xc0, 0xaf] },
  { label: 'NUL', bytes: [0x00] },
  { label: 'Latin-1 é', bytes: [0xe9] },
];

const wrapInJsonString = (field: string, inner: number[]) => [
  ...Buffer.from(`{"${field}":"`),
  ...inner,
  ...Buffer.from('"}'),
];

const BROKEN_JSON_TEXTS = [
  '',
  ' ',
  '\n',
  'null',
  '[]',
  '[1,2]',
  '"str"',
  '1',
  'true',
  '{',
  '}',
  '{"a":}',
  '{"a":1,}',
  "{'a':1}",
  '{"a" 1}',
  'NaN',
  '-Infinity',
  '\ufeff{}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":"\\x41"}',
  '{"a":1}{"b":2}',
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"a":1,"a":2}',
  'a=1&b=2',
  '<?xml version="1.0"?><a/>',
  '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--xyz--\r\n',
  '\u0000',
];

/** Bodies that are not the operation's JSON at all. */
export function hostileBody(fieldNames: readonly string[]): fc.Arbitrary<{ body: BodySpec; tags: string[] }> {
  const field = fieldNames.length > 0 ? fc.constantFrom(...fieldNames) : fc.constant('name');
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(...BROKEN_JSON_TEXTS)
        .map((text) => ({ body: { kind: 'text', text } as BodySpec, tags: ['non-JSON or odd JSON'] })),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({
          depth: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1000, max: 60_000 })),
          style: fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed'),
          field: fc.option(field, { nil: undefined }),
        })
        .map((d) => ({ body: { kind: 'deep', ...d } as BodySpec, tags: ['deep nesting'] })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...BAD_UTF8), fc.option(field, { nil: undefined }))
        .map(([b, f]) => ({
          body: {
            kind: 'bytes',
            label: b.label,
            bytes: f === undefined ? b.bytes : wrapInJsonString(f, b.bytes),
          } as BodySpec,
          tags: ['invalid UTF-8'],
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          size: fc.integer({ min: 1000, max: 250_000 }),
          unit: fc.constantFrom('a', '🙂', '\\', '"', 'é'),
          asJsonString: fc.boolean(),
        })
        .map((b) => ({ body: { kind: 'big', ...b } as BodySpec, tags: ['large body'] })),
    },
  );
}

/** Content types to send (none, JSON with odd charsets, forms, multipart, text …). */
export const contentTypeArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'application/json; charset=utf-16',
      'application/json; charset=UTF-16LE',
      'application/json; charset=bogus',
      'application/json;charset=',
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=utf-16',
      'multipart/form-data; boundary=xyz',
      'multipart/form-data',
      'text/plain',
      'text/plain; charset=utf-16',
      'application/octet-stream',
      'application/vnd.cvat+json',
      'application/merge-patch+json',
      'application/yaml',
      '*/*',
      'garbage',
      '',
      'APPLICATION/JSON',
      'application/json, text/plain',
      'application/json; boundary=xyz; charset=utf-16',
    ),
  },
);

export function contentTypeTags(type: string | undefined): string[] {
  if (type === undefined) return ['no content type'];
  if (type === 'application/json') return [];
  return [`content-type: ${type || '(empty)'}`];
}

// --- query ------------------------------------------------------------------------------------------

/** Query items: hinted names with good or hostile values, unknown and prototype names, raw broken text. */
export function queryArb(hints: Record<string, readonly string[]>): fc.Arbitrary<FuzzRequest['query']> {
  const names = Object.keys(hints);
  const hinted =
    names.length === 0
      ? fc.constant({ name: 'x', value: '1' })
      : fc.constantFrom(...names).chain((name) =>
          fc
            .oneof(
              {
                weight: 3,
                arbitrary: fc.constantFrom(...((hints[name]?.length ? hints[name] : ['1']) as string[])),
              },
              { weight: 2, arbitrary: hostileString },
            )
            .map((value) => ({ name, value })),
        );
  const unknown = fc
    .tuple(
      fc.oneof(fc.constantFrom(...PROTO_KEYS, 'x', 'alt', '$.xgafv'), fc.string({ maxLength: 8 })),
      hostileString,
    )
    .map(([name, value]) => ({ name, value }));
  const raw = fc
    .constantFrom(
      '%ZZ=1',
      'a=%',
      '=',
      '&&',
      'a',
      'a=1&a=2',
      '%00=%00',
      '__proto__[polluted]=yes',
      'a[b][c]=d',
    )
    .map((r) => ({ raw: r }));
  return fc.array(
    fc.oneof(
      { weight: 6, arbitrary: hinted },
      { weight: 2, arbitrary: unknown },
      { weight: 1, arbitrary: raw },
    ),
    { maxLength: 4 },
  );
}

// --- requests from operations ----------------------------------------------------------------------

export interface RequestArbParts {
  doc: OpenApiDocument;
  /** Good values of path parameters, by operation template and parameter name. */
  pathValues(op: Operation, param: string): readonly string[];
  /** Consistent assignments of all path parameters (a resource that exists), when they depend on each other. */
  pathTuples?(op: Operation): readonly Record<string, string>[];
  /** A body schema for an operation (the document's, or a stand-in when it gives none). */
  bodySchema(op: Operation): Schema | undefined;
  /** Hints for strings in bodies, by field name. */
  stringHints: Record<string, readonly string[]>;
  /** Query names with good values. */
  queryHints(op: Operation): Record<string, readonly string[]>;
  /** Headers every request gets some variant of (auth, namespace, accept …). */
  headers: fc.Arbitrary<{ headers: [string, string][]; tags: string[]; pathPrefix: string }>;
  /** The headers of an ordinary request (good credentials, the fuzz namespace). */
  cleanHeaders: { headers: [string, string][]; tags: string[]; pathPrefix: string };
  /** Accept snake_case keys in bodies. */
  snakeCase: boolean;
  /** Optional body keys sent only now and then. */
  rareKeys?: ReadonlySet<string>;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND'];

/** Requests for one operation: its path with good or hostile parameters, a query, headers and a body. */
export function operationRequestArb(op: Operation, parts: RequestArbParts): fc.Arbitrary<FuzzRequest> {
  const independent = fc.tuple(...op.pathParams.map((p) => pathSegment(parts.pathValues(op, p))));
  const tuples = (parts.pathTuples?.(op) ?? []).filter((t) => op.pathParams.every((p) => p in t));
  const segmentsArb: fc.Arbitrary<{ value: string; hostile: boolean }[]> =
    tuples.length === 0
      ? independent
      : fc.oneof(
          { weight: 2, arbitrary: independent },
          {
            weight: 3,
            arbitrary: fc
              .constantFrom(...tuples)
              .map((t) => op.pathParams.map((p) => ({ value: t[p] as string, hostile: false }))),
          },
        );
  const schema = parts.bodySchema(op);
  const fieldNames = Object.keys(resolveRef(parts.doc, schema)?.properties ?? {});
  const validBody = schema
    ? schemaArb(parts.doc, schema, {
        hostility: 0,
        hints: parts.stringHints,
        snakeCase: parts.snakeCase,
        rareKeys: parts.rareKeys,
      })
    : fc.constant(new JObj([]) as JValue);
  const mutatedBody = schema
    ? schemaArb(parts.doc, schema, {
        hostility: 3,
        hints: parts.stringHints,
        snakeCase: parts.snakeCase,
        rareKeys: parts.rareKeys,
      })
    : fc.constant(new JObj([]) as JValue);
  type Made = { body?: BodySpec; tags: string[] };
  const asJson = (value: JValue, tags: string[]): Made => ({ body: { kind: 'json', value }, tags });
  const bodyArb: fc.Arbitrary<Made> = fc.oneof(
    { weight: 5, arbitrary: validBody.map((v) => asJson(v, [])) },
    { weight: 5, arbitrary: mutatedBody.map((v) => asJson(v, ['hostile field values'])) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          validBody,
          fc.oneof(protoEntries, fc.array(fc.tuple(hostileString, anyJson), { minLength: 1, maxLength: 3 })),
        )
        .map(([v, extra]) =>
          asJson(v instanceof JObj ? new JObj([...v.entries, ...(extra as [string, JValue][])]) : v, [
            'unknown or prototype keys',
          ]),
        ),
    },
    { weight: 3, arbitrary: hostileBody(fieldNames) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(validBody, fc.constantFrom<'le' | 'be'>('le', 'be'), fc.boolean())
        .map(([value, endian, bom]) => ({
          body: { kind: 'utf16', value, endian, bom } as BodySpec,
          tags: ['UTF-16 body'],
        })),
    },
    { weight: 1, arbitrary: fc.constant<Made>({ body: undefined, tags: ['no body'] }) },
  );
  const methodArb = fc.oneof(
    { weight: 20, arbitrary: fc.constant(op.method) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) },
  );
  const goodSegments: fc.Arbitrary<{ value: string; hostile: boolean }[]> =
    tuples.length > 0
      ? fc
          .constantFrom(...tuples)
          .map((t) => op.pathParams.map((p) => ({ value: t[p] as string, hostile: false })))
      : fc.tuple(
          ...op.pathParams.map((p) => {
            const good = parts.pathValues(op, p);
            return good.length > 0
              ? fc.constantFrom(...good).map((value) => ({ value, hostile: false }))
              : pathSegment(good);
          }),
        );
  // A third of the requests are ordinary ones (existing resources, good credentials, a valid body), so
  // that the world moves on (operations, busy clusters, deliveries) and the hostile ones meet that state.
  const ordinary = fc.record({
    segments: goodSegments,
    query: fc.constant([] as FuzzRequest['query']),
    head: fc.constant(parts.cleanHeaders),
    method: fc.constant(op.method),
    body: validBody.map((v) => asJson(v, [])),
    contentType: fc.constant<string | undefined>('application/json'),
  });
  const hostile = fc.record({
    segments: segmentsArb,
    query: queryArb(parts.queryHints(op)),
    head: parts.headers,
    method: methodArb,
    body: bodyArb,
    contentType: contentTypeArb,
  });
  // A list route: an ordinary request whose query is hostile in the ways the route's declared parameters
  // invite (query-hostile.ts), so that it reaches the code reading them (good credentials, an existing
  // resource).
  const listQuery = isListRoute(op)
    ? fc
        .record({
          segments: goodSegments,
          hostileQuery: hostileQueryArb(op.query),
          head: fc.constant(parts.cleanHeaders),
          method: fc.constant(op.method),
          body: fc.constant<Made>({ body: undefined, tags: [] }),
          contentType: fc.constant<string | undefined>(undefined),
        })
        .map(({ hostileQuery, head, ...rest }) => ({
          ...rest,
          query: hostileQuery.query,
          head: { ...head, tags: [...head.tags, ...hostileQuery.tags] },
        }))
    : undefined;
  return fc
    .oneof(
      { weight: 1, arbitrary: ordinary },
      { weight: 2, arbitrary: hostile },
      ...(listQuery ? [{ weight: 1, arbitrary: listQuery }] : []),
    )
    .map(({ segments: segs, query, head, method, body, contentType }) => {
      let path = op.template;
      op.pathParams.forEach((p, i) => {
        path = path.replace(`{${p}}`, () => (segs[i] as { value: string }).value);
      });
      // `{.+}`-style template tails (a regex route) stand for the rest of the path.
      path = path.replace(/\{[^}]*\}/g, '');
      const carriesBody =
        BODY_METHODS.has(method) && (op.bodySchema !== undefined || body.body !== undefined);
      const headers: [string, string][] = [...head.headers];
      const tags = [...head.tags];
      if ((segs as { hostile: boolean }[]).some((s) => s.hostile)) tags.push('hostile path parameter');
      if (query.length > 0) tags.push('query');
      if (method !== op.method) tags.push(`method ${method} on a ${op.method} route`);
      if (carriesBody && body.body !== undefined) {
        if (contentType !== undefined) headers.push(['content-type', contentType]);
        tags.push(...body.tags, ...contentTypeTags(contentType));
      }
      return {
        op: op.id,
        template: op.template,
        method,
        path: `${head.pathPrefix}${path}`,
        query,
        headers,
        body: carriesBody ? body.body : undefined,
        tags,
      } satisfies FuzzRequest;
    });
}

/** Requests to paths no operation serves (near misses of real ones). */
export function unknownRouteArb(
  templates: readonly string[],
  headers: RequestArbParts['headers'],
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      base: fc.constantFrom(...templates),
      suffix: fc.constantFrom(
        '',
        '/',
        '/x',
        '/..',
        '/%2e%2e/%2e%2e/_sim/health',
        '//',
        ':unknownVerb',
        '%00',
        '/🙂',
      ),
      method: fc.constantFrom(...OTHER_METHODS),
      head: headers,
    })
    .map(({ base, suffix, method, head }) => {
      const path = `${head.pathPrefix}${base.replace(/\{[^}]+\}/g, 'x')}${suffix}`;
      return {
        op: 'unknown-route',
        template: '(unknown route)',
        method,
        path,
        query: [],
        headers: head.headers,
        tags: ['unknown route', ...head.tags],
      } satisfies FuzzRequest;
    });
}
