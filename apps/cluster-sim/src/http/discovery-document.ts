import type { ApiVersion } from '../domain/names';
import { DOCUMENT_METHODS, type DocumentMethod } from './discovery-document-methods.generated';
import { STANDARD_PARAMETERS } from './discovery-document-parameters';
import { type DiscoverySchema, discoverySchemas } from './discovery-document-schemas';
import { DISCOVERY_METHODS, type DiscoveryMethod } from './methods.generated';
import { discoveryTargets } from './routes/discovery';

/**
 * The container API's discovery documents (`discovery#restDescription`, v1beta1 and v1) as cluster-sim
 * serves them: Google's shape, every method the simulator routes (the discovery table, answered or
 * refused with its 501, and the methods real clients call beyond it), the parameters, request and
 * response of each, and the schemas of the messages they name. Built on first use per version, once per
 * simulator; each answer carries the root URL the request reached, so a client built from the document
 * calls the simulator.
 */

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** A method's entry in the document. */
interface DocumentEntry {
  id: string;
  path: string;
  flatPath: string;
  httpMethod: string;
  parameters: Record<string, Record<string, unknown>>;
  parameterOrder: string[];
  request?: { $ref: string };
  response: { $ref: string };
  scopes: string[];
}

const PARAM_TYPES: Readonly<Record<string, Record<string, unknown>>> = {
  s: { type: 'string' },
  i: { type: 'integer', format: 'int32' },
  b: { type: 'boolean' },
  's[]': { type: 'string', repeated: true },
};

/**
 * The pattern of a `{+name}` parameter: the flat path's segments it stands for
 * (`v1/{+name}:setSize` over `v1/projects/{projectsId}/…/nodePools/{nodePoolsId}:setSize`).
 */
function patternOf(path: string, flatPath: string, param: string): string | undefined {
  const at = path.indexOf(`{+${param}}`);
  if (at < 0) return undefined;
  const suffix = path.slice(at + param.length + 3);
  const covered = flatPath.slice(at, flatPath.length - suffix.length);
  return `^${covered.replace(/\{[^}]+\}/g, '[^/]+')}$`;
}

/** What the generated table lacks for a method real clients call beyond it (a `{+name}` method). */
function synthesized(method: DiscoveryMethod): DocumentMethod {
  const verb = /:(\w+)$/.exec(method.path)?.[1];
  return {
    id: method.id,
    version: method.version,
    path: `${method.version}/{+name}${verb ? `:${verb}` : ''}`,
    parameters: ['name:s:path'],
    ...(method.httpMethod === 'GET' ? {} : { request: method.request }),
    response: 'Operation',
  };
}

function entryOf(method: DiscoveryMethod, doc: DocumentMethod): DocumentEntry {
  const flatPath = `${method.version}/${method.path}`;
  const parameters: DocumentEntry['parameters'] = {};
  const parameterOrder: string[] = [];
  for (const text of doc.parameters) {
    const [name = '', type = 's', location = 'query', flag] = text.split(':');
    const pattern = location === 'path' ? patternOf(doc.path, flatPath, name) : undefined;
    parameters[name] = {
      ...PARAM_TYPES[type],
      location,
      ...(location === 'path' ? { required: true } : {}),
      ...(pattern ? { pattern } : {}),
      ...(flag === 'deprecated' ? { deprecated: true } : {}),
    };
    if (location === 'path') parameterOrder.push(name);
  }
  return {
    id: method.id,
    path: doc.path,
    flatPath,
    httpMethod: method.httpMethod,
    parameters,
    parameterOrder,
    ...(doc.request ? { request: { $ref: doc.request } } : {}),
    response: { $ref: doc.response },
    scopes: [SCOPE],
  };
}

interface ResourceNode {
  methods?: Record<string, DocumentEntry>;
  resources?: Record<string, ResourceNode>;
}

/** Every method a version's document lists: the routed discovery methods, each with its entry. */
function documentEntries(version: ApiVersion): DocumentEntry[] {
  const docs = new Map(DOCUMENT_METHODS.map((m) => [`${m.version} ${m.id}`, m]));
  const methods = new Map<string, DiscoveryMethod>();
  for (const m of DISCOVERY_METHODS) if (m.version === version) methods.set(m.id, m);
  for (const target of discoveryTargets().values()) {
    if (target.method.version === version) methods.set(target.method.id, target.method);
  }
  return [...methods.values()].map((m) => entryOf(m, docs.get(`${version} ${m.id}`) ?? synthesized(m)));
}

function buildDocument(version: ApiVersion): Record<string, unknown> {
  const root: ResourceNode = {};
  const entries = documentEntries(version);
  for (const entry of entries) {
    const names = entry.id.split('.').slice(1);
    const method = names.pop() ?? '';
    let node = root;
    for (const name of names) {
      node.resources ??= {};
      node = node.resources[name] ??= {};
    }
    node.methods ??= {};
    node.methods[method] = entry;
  }
  const refs = new Set(
    entries.flatMap((e) => [e.request?.$ref, e.response.$ref]).filter((r) => r !== undefined),
  );
  const schemas: Record<string, DiscoverySchema> = discoverySchemas(version, refs);
  return {
    kind: 'discovery#restDescription',
    discoveryVersion: 'v1',
    id: `container:${version}`,
    name: 'container',
    canonicalName: 'Container',
    version,
    revision: '0',
    title: 'Kubernetes Engine API',
    description: 'Google Kubernetes Engine as cluster-sim simulates it.',
    ownerDomain: 'google.com',
    ownerName: 'Google',
    documentationLink: 'https://cloud.google.com/kubernetes-engine/docs/',
    icons: {
      x16: 'http://www.google.com/images/icons/product/search-16.gif',
      x32: 'http://www.google.com/images/icons/product/search-32.gif',
    },
    protocol: 'rest',
    rootUrl: '',
    mtlsRootUrl: '',
    servicePath: '',
    basePath: '',
    baseUrl: '',
    batchPath: 'batch',
    fullyEncodeReservedExpansion: true,
    parameters: STANDARD_PARAMETERS,
    auth: { oauth2: { scopes: { [SCOPE]: { description: 'Google Cloud data, read and write.' } } } },
    resources: root.resources ?? {},
    schemas,
  };
}

/** A simulator's discovery documents: each version's built on its first request, then kept. */
export interface DiscoveryDocuments {
  /** The document's JSON text for a version with the given root URL (ending in `/`), or undefined. */
  render(version: string, rootUrl: string): string | undefined;
}

/** The discovery documents of one simulator (one per `createClusterSim`, none at module level). */
export function createDiscoveryDocuments(): DiscoveryDocuments {
  const built = new Map<ApiVersion, Record<string, unknown>>();
  return {
    render(version, rootUrl) {
      if (version !== 'v1beta1' && version !== 'v1') return undefined;
      let doc = built.get(version);
      if (doc === undefined) {
        doc = buildDocument(version);
        built.set(version, doc);
      }
      // Spread keeps the keys' order: the roots stay where Google's documents have them.
      return JSON.stringify({ ...doc, rootUrl, mtlsRootUrl: rootUrl, baseUrl: rootUrl });
    },
  };
}
