import { COMPUTE_DOCUMENT_METHODS } from './compute-discovery-methods.generated';
import { computeSchemas } from './compute-discovery-schemas';
import { STANDARD_PARAMETERS } from './discovery-document-parameters';

/**
 * Compute Engine v1's discovery document (`discovery#restDescription`, `compute:v1`) as cluster-sim
 * serves it: Google's shape, with the methods the Compute slice answers (src/http/compute-routes.ts; the
 * methods it refuses with 501 are not listed, since a client built from the document would only be
 * refused) and the schemas of what they answer. Built on first use, once per simulator; each answer is
 * rooted where its request arrived, so a client built from it calls the simulator.
 */

const SERVICE_PATH = 'compute/v1/';

/** The OAuth scopes the listed methods take, with Google's descriptions. */
const SCOPES: Readonly<Record<string, { description: string }>> = {
  'https://www.googleapis.com/auth/cloud-platform': {
    description:
      'See, edit, configure, and delete your Google Cloud data and see the email address for your Google Account.',
  },
  'https://www.googleapis.com/auth/compute': {
    description: 'View and manage your Google Compute Engine resources',
  },
  'https://www.googleapis.com/auth/compute.readonly': {
    description: 'View your Google Compute Engine resources',
  },
};

/** `resources`: each method under its resource (`instanceGroupManagers.get`), with Google's entry fields. */
function resources(): Record<string, { methods: Record<string, unknown> }> {
  const out: Record<string, { methods: Record<string, unknown> }> = {};
  for (const m of COMPUTE_DOCUMENT_METHODS) {
    const [, resource = '', method = ''] = m.id.split('.');
    out[resource] ??= { methods: {} };
    out[resource].methods[method] = {
      id: m.id,
      path: m.path,
      flatPath: m.path,
      httpMethod: m.httpMethod,
      parameters: m.parameters,
      parameterOrder: m.parameterOrder,
      ...(m.request ? { request: { $ref: m.request } } : {}),
      response: { $ref: m.response },
      scopes: m.scopes,
    };
  }
  return out;
}

function buildDocument(): Record<string, unknown> {
  return {
    kind: 'discovery#restDescription',
    discoveryVersion: 'v1',
    id: 'compute:v1',
    name: 'compute',
    canonicalName: 'Compute',
    version: 'v1',
    revision: '0',
    title: 'Compute Engine API',
    description: "Compute Engine's managed instance groups of GKE node pools, as cluster-sim simulates them.",
    ownerDomain: 'google.com',
    ownerName: 'Google',
    documentationLink: 'https://cloud.google.com/compute/',
    icons: {
      x16: 'https://www.google.com/images/icons/product/compute_engine-16.png',
      x32: 'https://www.google.com/images/icons/product/compute_engine-32.png',
    },
    protocol: 'rest',
    rootUrl: '',
    mtlsRootUrl: '',
    servicePath: SERVICE_PATH,
    basePath: `/${SERVICE_PATH}`,
    baseUrl: '',
    batchPath: 'batch/compute/v1',
    parameters: {
      ...STANDARD_PARAMETERS,
      userIp: { type: 'string', location: 'query', description: 'Legacy name for `quotaUser`.' },
    },
    auth: { oauth2: { scopes: SCOPES } },
    resources: resources(),
    schemas: computeSchemas(),
  };
}

/** The Compute document of one simulator: built on its first request, then kept. */
export interface ComputeDiscoveryDocument {
  /** The document's JSON text for a version with the given root URL (ending in `/`), or undefined. */
  render(version: string, rootUrl: string): string | undefined;
}

/** The Compute discovery document of one simulator (one per `createClusterSim`, none at module level). */
export function createComputeDiscoveryDocument(): ComputeDiscoveryDocument {
  let built: Record<string, unknown> | undefined;
  return {
    render(version, rootUrl) {
      if (version !== 'v1') return undefined;
      built ??= buildDocument();
      // Spread keeps the keys' order: the roots stay where the other fields put them.
      return JSON.stringify({
        ...built,
        rootUrl,
        mtlsRootUrl: rootUrl,
        baseUrl: `${rootUrl}${SERVICE_PATH}`,
      });
    },
  };
}
