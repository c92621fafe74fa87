import type { ApiVersion } from '../../domain/names';
import { METHOD_STATES, type MethodState } from '../method-states';
import { DISCOVERY_METHODS, type DiscoveryMethod } from '../methods.generated';
import type { RouteAction } from '../route-support';
import { discoverySpecs } from './cluster-setters';

/**
 * The discovery table as routes: every method answers, by its path's shape. A method of an RPC served by
 * `discoverySpecs` runs that spec; a refused RPC's method answers 501 naming it; the other simulated RPCs
 * have rows in the route tables of their families and are left to them.
 */

/** What a request that matches a discovery method gets. */
export type DiscoveryTarget =
  | { kind: 'spec'; method: DiscoveryMethod; spec: RouteAction<never>; viaZones: boolean }
  | { kind: 'refused'; method: DiscoveryMethod; name: string; reason: string };

/**
 * What cluster-sim does with an RPC of the table: simulated by its row when the discovery table serves
 * it (`discoverySpecs`), else its entry in METHOD_STATES (none: the method is new to cluster-sim).
 */
export function methodState(rpc: string): MethodState | undefined {
  return discoverySpecs.has(rpc) ? { state: 'simulated' } : METHOD_STATES[rpc];
}

/** Decodes a path segment, keeping it as it is when it is not valid percent-encoding. */
function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The shape of a path below the version: every second segment is an id and becomes `*`, a custom verb on
 * the last one is kept (`projects/p1/locations/l/clusters/c1:setResourceLabels` has the shape of
 * `projects/{projectsId}/locations/{locationsId}/clusters/{clustersId}:setResourceLabels`). A discovery
 * flat path and a request path of the same method give the same shape.
 */
function shapeOf(segments: readonly string[]): string {
  return segments
    .map((segment, i) => {
      if (i % 2 === 0) return segment;
      if (i !== segments.length - 1) return '*';
      const colon = segment.lastIndexOf(':');
      return colon < 0 ? '*' : `*${segment.slice(colon)}`;
    })
    .join('/');
}

function key(httpMethod: string, version: string, shape: string): string {
  return `${httpMethod} ${version} ${shape}`;
}

/** The request shape a discovery method is found by: no two methods may share one. */
export function methodKey(method: DiscoveryMethod): string {
  return key(method.httpMethod, method.version, shapeOf(method.path.split('/')));
}

/** A method's name for fault rules and the journal: `clusters.setMasterAuth` (the `locations` form's). */
function shortName(id: string): string {
  return id.replace(/^container\.projects\.(locations\.|zones\.)?/, '');
}

/**
 * Methods that real clients call but the discovery documents of `@googleapis/container` (the generated
 * table) do not list: refused like the table's refused methods, never the URL-not-found page.
 * `completeConvertToAutopilot` is in gcloud's generated v1 and v1beta1 clients
 * (`googlecloudsdk/generated_clients/apis/container/{version}`, flat path
 * `…/clusters/{clustersId}:CompleteConvertToAutopilot`, POST), behind the hidden
 * `gcloud container clusters update --complete-convert-to-autopilot` (GA and beta).
 */
const CLIENT_ONLY_METHODS: readonly { method: DiscoveryMethod; reason: string }[] = (
  ['v1beta1', 'v1'] as const
).map((version) => ({
  method: {
    id: 'container.projects.locations.clusters.completeConvertToAutopilot',
    version,
    httpMethod: 'POST',
    path: 'projects/{projectsId}/locations/{locationsId}/clusters/{clustersId}:CompleteConvertToAutopilot',
    rpc: 'CompleteConvertToAutopilot',
    request: 'CompleteConvertToAutopilotRequest',
  },
  reason:
    'it commits a conversion to Autopilot (deleting every Standard node pool once no pods run on them), and cluster-sim simulates neither Autopilot clusters nor the pods',
}));

/** Every discovery method served here, by request shape. */
export function discoveryTargets(): ReadonlyMap<string, DiscoveryTarget> {
  const nameByRpc = new Map<string, string>();
  for (const m of DISCOVERY_METHODS) {
    if (!m.id.includes('.zones.') && !nameByRpc.has(m.rpc)) nameByRpc.set(m.rpc, shortName(m.id));
  }
  const targets = new Map<string, DiscoveryTarget>();
  for (const method of DISCOVERY_METHODS) {
    const k = methodKey(method);
    const spec = discoverySpecs.get(method.rpc);
    const state = methodState(method.rpc);
    if (spec) {
      targets.set(k, { kind: 'spec', method, spec, viaZones: method.path.split('/')[2] === 'zones' });
    } else if (state?.state !== 'simulated') {
      const reason = state?.state === 'refused' ? state.reason : 'the method is new to cluster-sim';
      const name = nameByRpc.get(method.rpc) ?? shortName(method.id);
      targets.set(k, { kind: 'refused', method, name, reason });
    }
  }
  for (const { method, reason } of CLIENT_ONLY_METHODS)
    targets.set(methodKey(method), { kind: 'refused', method, name: shortName(method.id), reason });
  return targets;
}

/** The discovery target of a request, with the path's parameters, if it is one. */
export function matchDiscovery(
  targets: ReadonlyMap<string, DiscoveryTarget>,
  httpMethod: string,
  path: string,
): { target: DiscoveryTarget; params: Record<string, string>; version: ApiVersion } | undefined {
  const [, version, ...segments] = path.split('/');
  if (version !== 'v1beta1' && version !== 'v1') return undefined;
  const last = segments.length - 1;
  if (last >= 0) segments[last] = decode(segments[last] ?? '');
  const target = targets.get(key(httpMethod, version, shapeOf(segments)));
  if (!target) return undefined;
  const params: Record<string, string> = {};
  const names: Record<string, string> = {
    projects: 'project',
    locations: 'location',
    zones: 'location',
    clusters: 'cluster',
    nodePools: 'pool',
    operations: 'operation',
  };
  for (let i = 0; i + 1 < segments.length; i += 2) {
    const name = names[segments[i] ?? ''];
    const value = decode(segments[i + 1] ?? '');
    if (name) params[name] = i + 1 === last ? value.replace(/:[A-Za-z-]+$/, '') : value;
  }
  return { target, params, version };
}
