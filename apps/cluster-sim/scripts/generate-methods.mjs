#!/usr/bin/env node
/**
 * Writes src/http/methods.generated.ts: every method of the container API's discovery documents
 * (`v1beta1` and `v1`), as the discovery client `@googleapis/container` is generated from them, with its
 * HTTP method, its flat path (the `locations` or the legacy `zones` form) and the ClusterManager RPC it
 * maps to (from the HTTP bindings of the proto descriptor `@google-cloud/container` ships).
 *
 * The discovery client holds each method as a class per resource (`Resource$Projects$Locations$Clusters`)
 * with a function per method whose request names the URL template (`/v1beta1/{+name}:setResourceLabels`)
 * and the HTTP method; a `{+name}` or `{+parent}` is the resource path of the class (or of its parent for a
 * collection's `list` and `create`), as the discovery document's `flatPath` spells it.
 *
 * Usage: node scripts/generate-methods.mjs           (writes the file)
 *        node scripts/generate-methods.mjs --stdout  (prints what it would write)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DISCOVERY_NAMES, resourcePaths } from './discovery-client.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, '..', 'src', 'http', 'methods.generated.ts');
const VERSIONS = ['v1beta1', 'v1'];

const require = createRequire(import.meta.url);
const DISCOVERY_PKG = dirname(require.resolve('@googleapis/container/package.json'));
const DISCOVERY_VERSION = JSON.parse(readFileSync(join(DISCOVERY_PKG, 'package.json'), 'utf8')).version;
const PROTO_PKG = dirname(require.resolve('@google-cloud/container/package.json'));
const PROTOS = JSON.parse(readFileSync(join(PROTO_PKG, 'build', 'protos', 'protos.json'), 'utf8'));

/** Collections whose members have ids (`clusters/{clustersId}`); the others are fixed segments. */
const COLLECTIONS = new Set(['projects', 'locations', 'zones', 'clusters', 'nodePools', 'operations']);
/**
 * Methods no ClusterManager binding of the proto names: the OIDC document is served by the clusters'
 * service beside ClusterManager (its messages are in the proto, its RPC is not).
 */
const UNBOUND = {
  'GET projects/*/locations/*/clusters/*/.well-known/openid-configuration': {
    rpc: 'GetOpenIDConfig',
    request: 'GetOpenIDConfigRequest',
  },
};

/** Every method of a client source: its class, name, URL template and HTTP method. */
function clientMethods(source) {
  const re =
    /^ {4}class Resource\$(\S+) \{|^ {8}(\w+)\(paramsOrCallback|url: \(rootUrl\s*\+\s*'([^']+)'\)|method: '(\w+)',/gm;
  const out = [];
  let cls;
  let name;
  for (const m of source.matchAll(re)) {
    if (m[1]) cls = m[1];
    else if (m[2]) name = m[2];
    else if (m[3]) out.push({ cls, name, url: m[3] });
    else out[out.length - 1].httpMethod = m[4];
  }
  return out;
}

/** A resource path as the discovery document's flatPath spells it (`projects/{projectsId}/…`). */
function flat(names) {
  return names.map((n) => (COLLECTIONS.has(n) ? `${n}/{${n}Id}` : null)).filter(Boolean);
}

function flatPath(version, names, url) {
  const rest = url.slice(`/${version}/`.length);
  const m = /^\{\+(name|parent)\}(.*)$/.exec(rest);
  if (!m) return rest;
  const [, param, suffix] = m;
  let segments = flat(names);
  const last = [...names].reverse().find((n) => COLLECTIONS.has(n));
  // A collection's list/create names its parent; other `{+parent}`s (jwks, openid, aggregated) the resource.
  if (param === 'parent' && suffix.startsWith(`/${last}`)) segments = segments.slice(0, -1);
  return segments.join('/') + suffix;
}

/** The proto's HTTP bindings of a version: `GET projects/*​/locations/*​/clusters/*` → RPC. */
function protoBindings(version) {
  const service = PROTOS.nested.google.nested.container.nested[version].nested.ClusterManager;
  const bindings = new Map();
  for (const [rpc, method] of Object.entries(service.methods)) {
    for (const [key, value] of Object.entries(method.options ?? {})) {
      const verb = /^\(google\.api\.http\)\.(?:additional_bindings\.)?(get|post|put|delete|patch)$/.exec(key);
      if (!verb) continue;
      for (const path of [value].flat()) {
        const normal = path
          .replace(`/${version}/`, '')
          .replace(/\{[^}=]+=([^}]+)\}/g, '$1')
          .replace(/\{[^}]+\}/g, '*');
        bindings.set(`${verb[1].toUpperCase()} ${normal}`, { rpc, request: method.requestType });
      }
    }
  }
  return bindings;
}

function collect() {
  const rows = [];
  for (const version of VERSIONS) {
    const source = readFileSync(join(DISCOVERY_PKG, 'build', `${version}.js`), 'utf8');
    const paths = resourcePaths(source, '    class ');
    const bindings = protoBindings(version);
    // A method the version's proto lacks (v1's completeControlPlaneUpgrade in 6.10) binds as the other's.
    const others = protoBindings(VERSIONS.find((v) => v !== version));
    for (const m of clientMethods(source)) {
      const names = paths.get(m.cls);
      if (!names) throw new Error(`no resource path for ${m.cls}`);
      const path = flatPath(version, names, m.url);
      const normal = path.replace(/\{[^}]+\}/g, '*');
      const key = `${m.httpMethod} ${normal}`;
      const binding = bindings.get(key) ?? others.get(key) ?? UNBOUND[key];
      if (!binding) throw new Error(`${version} ${m.httpMethod} ${path}: no RPC binds it in the proto`);
      const id = ['container', ...names, m.name].map((n) => DISCOVERY_NAMES[n] ?? n).join('.');
      rows.push({ id, version, httpMethod: m.httpMethod, path, rpc: binding.rpc, request: binding.request });
    }
  }
  return rows;
}

function render(rows) {
  const lines = [
    '// Generated by scripts/generate-methods.mjs: do not edit.',
    `// Every method of the container API's discovery documents (@googleapis/container ${DISCOVERY_VERSION}), with the`,
    `// ClusterManager RPC its path binds to in the proto of @google-cloud/container ${JSON.parse(readFileSync(join(PROTO_PKG, 'package.json'), 'utf8')).version}.`,
    '',
    '/** One method of a discovery document. */',
    'export interface DiscoveryMethod {',
    '  /** The discovery id, e.g. `container.projects.locations.clusters.setResourceLabels`. */',
    '  readonly id: string;',
    "  readonly version: 'v1beta1' | 'v1';",
    "  readonly httpMethod: 'GET' | 'POST' | 'PUT' | 'DELETE';",
    '  /** The flat path below the version: `projects/{projectsId}/locations/{locationsId}/…` or the `zones` form. */',
    '  readonly path: string;',
    '  /** The RPC of `google.container.{version}.ClusterManager`. */',
    '  readonly rpc: string;',
    '  /** The RPC request message. */',
    '  readonly request: string;',
    '}',
    '',
    'export const DISCOVERY_METHODS: readonly DiscoveryMethod[] = [',
    ...rows.map(
      (r) =>
        `  { id: '${r.id}', version: '${r.version}', httpMethod: '${r.httpMethod}', path: '${r.path}', rpc: '${r.rpc}', request: '${r.request}' },`,
    ),
    '];',
    '',
  ];
  return lines.join('\n');
}

const text = render(collect());
if (process.argv.includes('--stdout')) process.stdout.write(text);
else writeFileSync(OUT, text);
