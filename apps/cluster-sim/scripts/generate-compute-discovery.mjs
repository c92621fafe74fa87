#!/usr/bin/env node
/**
 * Writes src/http/compute-discovery-methods.generated.ts: what Compute Engine v1's discovery document says
 * of each method cluster-sim's Compute slice serves (src/http/compute-routes.ts): its id, HTTP method, URL
 * template below the service path, parameters (type, location, `pattern`), parameterOrder, request and
 * response messages and OAuth scopes. Read from the client `@googleapis/compute` is generated from that
 * document (`v1.ts`): each method's options (`url`, `method`, `requiredParams`), its `Params$…` interface
 * (field types, `requestBody`), the `Schema$…` it resolves to, and the usage sample in its comment, which
 * names the scopes and gives a parameter that has a pattern the pattern as its value. What the client's
 * types lose (`maxResults` is a uint32 with a default and a minimum, an int64 is a string) is listed below
 * as Google's document has it. src/http/compute-discovery.ts builds the served document from this table.
 *
 * Usage: node scripts/generate-compute-discovery.mjs           (writes the file)
 *        node scripts/generate-compute-discovery.mjs --stdout  (prints what it would write)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientMethods, paramInterfaces, paramType } from './discovery-client.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, '..', 'src', 'http', 'compute-discovery-methods.generated.ts');
const SERVICE_PATH = 'compute/v1/';

const require = createRequire(import.meta.url);
const PKG = dirname(require.resolve('@googleapis/compute/package.json'));
const PKG_VERSION = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8')).version;

/** The methods the slice serves, by the client's resource class and the document's resource name. */
const SLICE = [
  [
    'Instancegroupmanagers',
    'instanceGroupManagers',
    ['aggregatedList', 'get', 'list', 'listManagedInstances'],
  ],
  ['Instancegroups', 'instanceGroups', ['get', 'listInstances']],
  ['Instances', 'instances', ['get', 'list']],
];

/** Query parameters whose document entry says more than the client's type (Google's compute v1 document). */
const QUERY_FACTS = {
  maxResults: { type: 'integer', format: 'uint32', default: '500', minimum: '0' },
  serviceProjectNumber: { type: 'string', format: 'int64' },
};

const TYPES = { s: { type: 'string' }, b: { type: 'boolean' }, 's[]': { type: 'string', repeated: true } };

/** A resource class's text with the `Params$…` interfaces after it (up to the next class). */
function section(source, cls) {
  const start = source.indexOf(`  export class Resource$${cls} {`);
  if (start < 0) throw new Error(`no class Resource$${cls}`);
  const next = source.indexOf('  export class Resource$', start + 10);
  return source.slice(start, next < 0 ? undefined : next);
}

/** The usage sample in a method's comment: its scopes and each parameter's sample value. */
function sample(text, resource, name) {
  const at = text.indexOf(`await compute.${resource}.${name}({`);
  if (at < 0) throw new Error(`no sample for ${resource}.${name}`);
  const scopesAt = text.lastIndexOf('scopes: [', at);
  const scopes = [...text.slice(scopesAt, text.indexOf(']', scopesAt)).matchAll(/'([^']+)'/g)].map(
    (m) => m[1],
  );
  const end = text.indexOf('});', at);
  const body = text
    .slice(at, end)
    .split('\n')
    .filter((line) => !/^\s*\*\s*\/\//.test(line))
    .map((line) => line.replace(/^\s*\*\s?/, ''))
    .join('\n');
  const values = new Map();
  for (const [, param, value] of body.matchAll(/^\s*'?([\w.$-]+)'?:\s*'([^'\n]*)',/gm))
    values.set(param, value.replaceAll('&#92;', '\\'));
  return { scopes, values };
}

function collect(source) {
  const rows = [];
  for (const [cls, resource, names] of SLICE) {
    const text = section(source, cls);
    const params = paramInterfaces(text);
    const methods = clientMethods(text).filter((m) => m.cls === cls && names.includes(m.name));
    for (const name of names) {
      const m = methods.find((x) => x.name === name);
      if (!m) throw new Error(`no method ${resource}.${name}`);
      const p = params.get(m.params);
      if (!p) throw new Error(`no ${m.params}`);
      if (!m.url.startsWith(SERVICE_PATH)) throw new Error(`${resource}.${name}: ${m.url}`);
      const { scopes, values } = sample(text, resource, name);
      const path = m.url.slice(SERVICE_PATH.length);
      const parameters = {};
      for (const [field, ts] of p.fields) {
        const location = m.pathParams.includes(field) ? 'path' : 'query';
        const value = values.get(field);
        const pattern = location === 'path' && value && value !== 'placeholder-value' ? value : undefined;
        const type = paramType(ts);
        if (location === 'query' && type === 'i' && !QUERY_FACTS[field])
          throw new Error(`no facts for ${field}`);
        parameters[field] = {
          ...(location === 'query' && QUERY_FACTS[field] ? QUERY_FACTS[field] : TYPES[type]),
          location,
          ...(location === 'path' ? { required: true } : {}),
          ...(pattern ? { pattern } : {}),
        };
      }
      rows.push({
        id: `compute.${resource}.${name}`,
        path,
        httpMethod: m.httpMethod,
        parameters,
        parameterOrder: m.required,
        ...(p.request ? { request: p.request } : {}),
        response: m.response,
        scopes,
      });
    }
  }
  return rows;
}

function render(rows) {
  const lines = [
    '// Generated by scripts/generate-compute-discovery.mjs: do not edit.',
    `// What Compute Engine v1's discovery document says of each method cluster-sim's Compute slice serves`,
    `// (@googleapis/compute ${PKG_VERSION}): the URL template below \`${SERVICE_PATH}\`, the parameters, their order,`,
    '// the request and response messages and the OAuth scopes.',
    '',
    '/** One method of the Compute document. */',
    'export interface ComputeDocumentMethod {',
    '  readonly id: string;',
    '  readonly path: string;',
    '  readonly httpMethod: string;',
    '  readonly parameters: Readonly<Record<string, Readonly<Record<string, unknown>>>>;',
    '  readonly parameterOrder: readonly string[];',
    '  readonly request?: string;',
    '  readonly response: string;',
    '  readonly scopes: readonly string[];',
    '}',
    '',
    'export const COMPUTE_DOCUMENT_METHODS: readonly ComputeDocumentMethod[] = [',
    ...rows.map((r) => `  ${JSON.stringify(r)},`),
    '];',
    '',
  ];
  return lines.join('\n');
}

const text = render(collect(readFileSync(join(PKG, 'v1.ts'), 'utf8')));
if (process.argv.includes('--stdout')) process.stdout.write(text);
else writeFileSync(OUT, text);
