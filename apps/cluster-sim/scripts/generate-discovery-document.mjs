#!/usr/bin/env node
/**
 * Writes src/http/discovery-document-methods.generated.ts: what the discovery document says of each method
 * of the container API beyond src/http/methods.generated.ts (its id, HTTP method and flat path): the
 * URL template (`v1/{+name}:setResourceLabels`), the parameters with where each goes and whether it is
 * required, the request and response messages. Read from the client `@googleapis/container` is generated
 * from the discovery documents (`v1.ts`, `v1beta1.ts`): each resource class's methods (the options' `url`,
 * `method`, `requiredParams` and `pathParams`), the `Params$…` interface of each (its fields and
 * `requestBody`), and the `Schema$…` the method resolves to. The simulator builds the documents it serves
 * from this table, the flat paths of methods.generated.ts and the message schemas of @sims/cluster-schema
 * (src/http/discovery-document.ts). Compute's slice can reuse the parsing with `@googleapis/compute`.
 *
 * Usage: node scripts/generate-discovery-document.mjs           (writes the file)
 *        node scripts/generate-discovery-document.mjs --stdout  (prints what it would write)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DISCOVERY_NAMES, resourcePaths } from './discovery-client.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, '..', 'src', 'http', 'discovery-document-methods.generated.ts');
const VERSIONS = ['v1beta1', 'v1'];

const require = createRequire(import.meta.url);
const PKG = dirname(require.resolve('@googleapis/container/package.json'));
const PKG_VERSION = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8')).version;

/** The `Params$…` interfaces: name → fields (`[name, tsType]`), `requestBody`'s message if any. */
function paramInterfaces(source) {
  const out = new Map();
  const re = /^ {2}export interface (Params\$\S+) extends StandardParameters \{([\s\S]*?)^ {2}\}/gm;
  for (const [, name, body] of source.matchAll(re)) {
    const fields = [];
    let request;
    // Each field with its doc comment: the client's comment starts with "Deprecated." where the document
    // marks the parameter `deprecated` (the legacy projectId/zone/clusterId of a `{+name}` method).
    const fieldRe = /(?:\/\*\*([\s\S]*?)\*\/\s*)?^\s*'?([\w.$-]+)'?\?: ([^;]+);/gm;
    for (const [, doc = '', field, type] of body.matchAll(fieldRe)) {
      if (field === 'requestBody') request = type.replace(/^Schema\$/, '');
      else fields.push([field, type, /^\s*\*\s*Deprecated\./.test(doc)]);
    }
    out.set(name, { fields, request });
  }
  return out;
}

/** Every method of a client source: class, name, its Params interface, response, URL and parameters. */
function clientMethods(source) {
  const re =
    /^ {2}export class Resource\$(\S+) \{|^ {4}(\w+)\(\n\s+params\?: (Params\$\S+),\n\s+options\?: MethodOptions\n\s+\): Promise<\s*GaxiosResponseWithHTTP2<Schema\$(\w+)>\s*>;|url: \(\s*rootUrl\s*\+\s*'\/([^']+)'|method: '(\w+)',|requiredParams: \[([^\]]*)\]|pathParams: \[([^\]]*)\]/gm;
  const out = [];
  let cls;
  const list = (text) => [...text.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  for (const m of source.matchAll(re)) {
    if (m[1]) cls = m[1];
    else if (m[2]) out.push({ cls, name: m[2], params: m[3], response: m[4] });
    else if (m[5]) out[out.length - 1].url = m[5];
    else if (m[6]) out[out.length - 1].httpMethod = m[6];
    else if (m[7] !== undefined) out[out.length - 1].required = list(m[7]);
    else out[out.length - 1].pathParams = list(m[8]);
  }
  return out;
}

/** A parameter's discovery type from the client's TypeScript type. */
function paramType(ts) {
  if (ts === 'string') return 's';
  if (ts === 'number') return 'i';
  if (ts === 'boolean') return 'b';
  if (ts === 'string[]') return 's[]';
  throw new Error(`no discovery type for ${ts}`);
}

function collect() {
  const rows = [];
  for (const version of VERSIONS) {
    const source = readFileSync(join(PKG, `${version}.ts`), 'utf8');
    const paths = resourcePaths(source, '  export class ');
    const params = paramInterfaces(source);
    for (const m of clientMethods(source)) {
      const names = paths.get(m.cls);
      if (!names) throw new Error(`no resource path for ${m.cls}`);
      const p = params.get(m.params);
      if (!p) throw new Error(`no ${m.params}`);
      const id = ['container', ...names, m.name].map((n) => DISCOVERY_NAMES[n] ?? n).join('.');
      // Path parameters in the template's order (parameterOrder), then the query ones as the client lists them.
      const pathNames = [...m.url.matchAll(/\{\+?(\w+)\}/g)].map((x) => x[1]);
      const types = new Map(p.fields.map(([n, t]) => [n, paramType(t)]));
      const parameters = [
        ...pathNames.map((n) => `${n}:${types.get(n) ?? 's'}:path`),
        ...p.fields
          .filter(([n]) => !pathNames.includes(n))
          .map(([n, , deprecated]) => `${n}:${types.get(n)}:query${deprecated ? ':deprecated' : ''}`),
      ];
      for (const n of m.required) if (!pathNames.includes(n)) throw new Error(`${id}: required query ${n}`);
      rows.push({ id, version, path: m.url, parameters, request: p.request, response: m.response });
    }
  }
  return rows;
}

function render(rows) {
  const lines = [
    '// Generated by scripts/generate-discovery-document.mjs: do not edit.',
    `// What the container API's discovery documents say of each method (@googleapis/container ${PKG_VERSION}) beyond`,
    '// methods.generated.ts: the URL template, the parameters (`name:type:location[:deprecated]`, type `s` string,',
    "// `i` int32, `b` boolean, `s[]` repeated string; path ones in the template's order), the request and response",
    '// messages.',
    '',
    '/** One method of a discovery document, by id and version. */',
    'export interface DocumentMethod {',
    '  readonly id: string;',
    "  readonly version: 'v1beta1' | 'v1';",
    '  /** The URL template below the root: `v1/{+name}:setResourceLabels`. */',
    '  readonly path: string;',
    '  readonly parameters: readonly string[];',
    '  readonly request?: string;',
    '  readonly response: string;',
    '}',
    '',
    'export const DOCUMENT_METHODS: readonly DocumentMethod[] = [',
    ...rows.map(
      (r) =>
        `  { id: '${r.id}', version: '${r.version}', path: '${r.path}', parameters: [${r.parameters.map((x) => `'${x}'`).join(', ')}],${r.request ? ` request: '${r.request}',` : ''} response: '${r.response}' },`,
    ),
    '];',
    '',
  ];
  return lines.join('\n');
}

const text = render(collect());
if (process.argv.includes('--stdout')) process.stdout.write(text);
else writeFileSync(OUT, text);
