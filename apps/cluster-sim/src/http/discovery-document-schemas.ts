import * as messages from '@sims/cluster-schema';
import { betaOnlyFields, duration, isInt64Schema, timestamp } from '@sims/cluster-schema';
import type { z } from 'zod';
import type { ApiVersion } from '../domain/names';

/**
 * The `schemas` of a discovery document, from the zod schemas of @sims/cluster-schema (generated from the
 * proto descriptor, or written by hand after it): a message exported under its proto name is a schema of
 * its own and is `$ref`ed by that name; a message the package keeps unnamed (inside the generated
 * `Cluster`) is written in place, as an object with its properties. Enums are strings with their values,
 * int64 strings with `format: int64`, Durations and Timestamps `google-duration` and `google-datetime`,
 * as Google's documents spell them. A v1 document leaves out the fields only v1beta1 has.
 */

/** A schema of a discovery document (a subset of JSON Schema, Google's flavour). */
export interface DiscoverySchema {
  id?: string;
  type?: string;
  format?: string;
  /** A field's fixed value (`kind`'s `compute#instanceGroupManager`). */
  default?: string;
  description?: string;
  $ref?: string;
  enum?: string[];
  items?: DiscoverySchema;
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
}

/** zod's definition, read through the fields every kind of schema the package uses has. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  entries?: Record<string, string>;
  values?: unknown[];
  options?: z.ZodType[];
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * The package's export names that are not the discovery documents' schema names: the proto's nested
 * `OperationProgress.Metric` and `google.rpc.Status` are `Metric` and `Status` there.
 */
const DOCUMENT_NAMES: Readonly<Record<string, string>> = { OperationMetric: 'Metric', RpcStatus: 'Status' };

/** Message schemas by their document names (enums are written in place). */
function namedMessages(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  for (const [name, value] of Object.entries(messages)) {
    if (!/^[A-Z]/.test(name) || typeof value !== 'object' || value === null || !('_zod' in value)) continue;
    const schema = value as z.ZodType;
    if (defOf(schema).type === 'object' && !names.has(schema))
      names.set(schema, DOCUMENT_NAMES[name] ?? name);
  }
  return names;
}

/** Strips what only changes presence or parsing (optional, default, refinements' pipes). */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (
      def.innerType &&
      ['optional', 'nullable', 'default', 'readonly', 'catch', 'prefault'].includes(def.type)
    )
      s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else if (def.type === 'lazy' && def.getter) s = def.getter();
    else return s;
  }
}

/**
 * The schemas of a version's document for the messages named (and every named message they reach).
 * A name with no schema in the package (a message only refused methods take) gets an empty object and
 * says so.
 */
export function discoverySchemas(
  version: ApiVersion,
  roots: Iterable<string>,
): Record<string, DiscoverySchema> {
  const named = namedMessages();
  const byName = new Map([...named].map(([schema, name]) => [name, schema]));
  const out: Record<string, DiscoverySchema> = {};
  const queue: string[] = [];
  const want = (name: string) => {
    if (!(name in out) && !queue.includes(name)) queue.push(name);
  };
  const convert = (schema: z.ZodType, inPlace: Set<z.ZodType>): DiscoverySchema => {
    if (isInt64Schema(schema)) return { type: 'string', format: 'int64' };
    if (schema === duration) return { type: 'string', format: 'google-duration' };
    if (schema === timestamp) return { type: 'string', format: 'google-datetime' };
    const s = unwrap(schema);
    if (s !== schema) return convert(s, inPlace);
    const name = named.get(s);
    if (name !== undefined) {
      want(name);
      return { $ref: name };
    }
    return shape(s, inPlace);
  };
  const shape = (s: z.ZodType, inPlace: Set<z.ZodType>): DiscoverySchema => {
    const def = defOf(s);
    switch (def.type) {
      case 'string':
        return { type: 'string' };
      case 'boolean':
        return { type: 'boolean' };
      case 'number':
        return (s as unknown as { format?: string }).format === 'safeint'
          ? { type: 'integer', format: 'int32' }
          : { type: 'number', format: 'double' };
      case 'enum':
        return { type: 'string', enum: Object.keys(def.entries ?? {}) };
      case 'literal':
        return { type: typeof def.values?.[0] === 'number' ? 'integer' : 'string' };
      case 'array':
        return { type: 'array', items: def.element ? convert(def.element, inPlace) : {} };
      case 'record':
        return { type: 'object', additionalProperties: def.valueType ? convert(def.valueType, inPlace) : {} };
      case 'union':
        return def.options?.[0] ? convert(def.options[0], inPlace) : { type: 'any' };
      case 'object': {
        // A message that contains itself unnamed is written once; the inner one is a bare object.
        if (inPlace.has(s)) return { type: 'object' };
        const inner = new Set(inPlace).add(s);
        const skip = version === 'v1' ? betaOnlyFields(s) : undefined;
        const properties: Record<string, DiscoverySchema> = {};
        for (const [field, value] of Object.entries((s as z.ZodObject).shape)) {
          if (!skip?.has(field)) properties[field] = convert(value as z.ZodType, inner);
        }
        return { type: 'object', properties };
      }
      default:
        return { type: 'any' };
    }
  };
  for (const root of roots) want(root);
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const schema = byName.get(name);
    out[name] = schema
      ? { id: name, ...shape(unwrap(schema), new Set()) }
      : {
          id: name,
          type: 'object',
          description: 'Taken only by methods cluster-sim refuses (501): its fields are not listed.',
          properties: {},
        };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
