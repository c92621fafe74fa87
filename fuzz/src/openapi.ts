/**
 * The served OpenAPI documents, read in-process (`app.request`), and the operations they list.
 */

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents and JSON Schemas are arbitrary JSON
type Json = any;
export type Schema = Record<string, Json>;

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Json>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Json> };
}

/** A query parameter the document declares: its name and its schema (`{}` when it gives none). */
export interface QueryParam {
  name: string;
  schema: Schema;
}

export interface Operation {
  /** The document's operationId, or `METHOD template` when it has none. */
  id: string;
  method: string;
  /** The path template as the document writes it, e.g. `/api/tasks/{id}`. */
  template: string;
  /** Names of the template's `{params}` in order. */
  pathParams: string[];
  /** Query and header parameters the document names. */
  queryParams: string[];
  /** The query parameters with their schemas (`$ref`s to `components.parameters` resolved). */
  query: QueryParam[];
  headerParams: string[];
  /** The JSON request body schema ($refs resolved lazily), when the document gives one. */
  bodySchema?: Schema;
  /** Content types the document accepts for the body. */
  bodyTypes: string[];
  /** Whether the document says a body is required. */
  bodyRequired: boolean;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

interface App {
  request(input: string, init?: RequestInit): Response | Promise<Response>;
}

/** Reads a served document through the app, without a socket. */
export async function loadDocument(app: App, path: string): Promise<OpenApiDocument> {
  const res = await app.request(path, { headers: { accept: '*/*' } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  const doc = (await res.json()) as OpenApiDocument;
  if (typeof doc !== 'object' || doc === null || typeof doc.paths !== 'object') {
    throw new Error(`GET ${path}: not an OpenAPI document`);
  }
  return doc;
}

/** Every operation of a document. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const shared: Json[] = Array.isArray(item.parameters) ? item.parameters : [];
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method) || typeof op !== 'object' || op === null) continue;
      const params: Json[] = [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])].map((p) =>
        resolveParameter(doc, p),
      );
      const query = params.filter((p) => p?.in === 'query');
      const content: Record<string, Json> = op.requestBody?.content ?? {};
      const jsonType = Object.keys(content).find((t) => t.includes('json'));
      ops.push({
        id: typeof op.operationId === 'string' ? op.operationId : `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        pathParams: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string),
        queryParams: query.map((p) => String(p.name)),
        query: query.map((p) => ({
          name: String(p.name),
          schema: (resolveRef(doc, p.schema as Schema | undefined) ?? {}) as Schema,
        })),
        headerParams: params.filter((p) => p?.in === 'header').map((p) => String(p.name)),
        bodySchema: jsonType ? (content[jsonType]?.schema as Schema | undefined) : undefined,
        bodyTypes: Object.keys(content),
        bodyRequired: op.requestBody?.required === true,
      });
    }
  }
  return ops;
}

/** A parameter object, or the one its `$ref` (`#/components/parameters/X`) names. */
function resolveParameter(doc: OpenApiDocument, p: Json): Json {
  return p && typeof p.$ref === 'string' ? resolveRef(doc, p) : p;
}

/** `#/components/schemas/X` → the schema. */
export function resolveRef(doc: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let i = 0; i < 32 && current && typeof current.$ref === 'string'; i++) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) return undefined;
    let node: Json = doc;
    for (const part of ref.slice(2).split('/')) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    current = node as Schema | undefined;
  }
  return current;
}

/**
 * A small JSON Schema check (type, enum, const, required, properties, items, anyOf/oneOf/allOf,
 * additionalProperties, minimum/maximum): the problems found, empty when the value fits. Used to check
 * error bodies against the schema the document itself gives for them.
 */
export function schemaProblems(
  doc: OpenApiDocument,
  schemaIn: Schema | undefined,
  value: unknown,
  path = '$',
  depth = 0,
): string[] {
  const schema = resolveRef(doc, schemaIn);
  if (!schema || depth > 64) return [];
  const problems: string[] = [];
  const types: string[] | undefined =
    schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types) {
    const actual = jsonType(value);
    const ok = types.some(
      (t) =>
        t === actual ||
        (t === 'number' && actual === 'integer') ||
        (t === 'null' && value === null) ||
        (schema.nullable === true && value === null),
    );
    if (!ok) return [`${path}: expected ${types.join('|')}, got ${actual}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e: unknown) => e === value)) {
    problems.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if ('const' in schema && schema.const !== value) {
    problems.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${path}: below minimum`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) problems.push(`${path}: above maximum`);
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const name of (schema.required as string[] | undefined) ?? []) {
      if (!(name in obj)) problems.push(`${path}: missing required "${name}"`);
    }
    const props: Record<string, Schema> = schema.properties ?? {};
    for (const [k, v] of Object.entries(obj)) {
      if (k in props) problems.push(...schemaProblems(doc, props[k], v, `${path}.${k}`, depth + 1));
      else if (schema.additionalProperties === false) problems.push(`${path}: unexpected "${k}"`);
      else if (typeof schema.additionalProperties === 'object') {
        problems.push(...schemaProblems(doc, schema.additionalProperties, v, `${path}.${k}`, depth + 1));
      }
    }
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((v, i) => {
      problems.push(...schemaProblems(doc, schema.items, v, `${path}[${i}]`, depth + 1));
    });
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options: Schema[] | undefined = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const fits = options.some((s) => schemaProblems(doc, s, value, path, depth + 1).length === 0);
      if (!fits) problems.push(`${path}: fits none of ${key}`);
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const s of schema.allOf as Schema[])
      problems.push(...schemaProblems(doc, s, value, path, depth + 1));
  }
  return problems;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
