import type { DiscoveryMethod } from '../../src/http/methods.generated';

/**
 * How the every-method tests call each method of the discovery table: the ids of the seeded fixture
 * (project p1, zonal cluster c1 in us-central1-a, pool np1), a request per RPC and what it answers.
 */

const IDS: Record<string, string> = {
  projectsId: 'p1',
  projectId: 'p1',
  locationsId: 'us-central1-a',
  zonesId: 'us-central1-a',
  zone: 'us-central1-a',
  clustersId: 'c1',
  clusterId: 'c1',
  nodePoolsId: 'np1',
  nodePoolId: 'np1',
  operationsId: 'op1',
  operationId: 'op1',
};

/** The method's flat path with the fixture's ids. */
export function filledPath(method: DiscoveryMethod): string {
  return method.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = IDS[name];
    if (id === undefined) throw new Error(`no fixture id for {${name}} in ${method.path}`);
    return id;
  });
}

/**
 * The client's parameters for a URL template (`/v1beta1/{+name}:setResourceLabels`) that gives the path:
 * `{+x}` takes any characters, `{x}` one segment. The GAPIC request fields have the same names.
 */
export function paramsFor(template: string, path: string): Record<string, string> {
  const names: string[] = [];
  const literal = (text: string) => text.replace(/[.*+?^$(){}|[\]\\]/g, '\\$&');
  let pattern = '';
  let at = 0;
  for (const m of template.matchAll(/\{(\+?)(\w+)\}/g)) {
    pattern += literal(template.slice(at, m.index)) + (m[1] ? '(.+)' : '([^/]+)');
    names.push(m[2] as string);
    at = m.index + m[0].length;
  }
  pattern += literal(template.slice(at));
  const match = new RegExp(`^${pattern}$`).exec(path);
  if (!match) throw new Error(`${template} does not give ${path}`);
  return Object.fromEntries(names.map((n, i) => [n, match[i + 1] as string]));
}

/** The URL template of a discovery client method, read from the generated client's own code. */
export function urlTemplate(fn: (...args: never[]) => unknown): string {
  const m = /url: \(rootUrl\s*\+\s*'([^']+)'\)/.exec(fn.toString());
  if (!m?.[1]) throw new Error('no URL template in the client method');
  return m[1];
}

/** What a call answers: 200, a domain error of the simulator (status and text), or the 501. */
export type Expected = { status: 200 } | { status: number; message: RegExp } | { status: 501 };

interface Call {
  body: Record<string, unknown>;
  expect: Expected;
}

const OK = { status: 200 } as const;
const ok = (body: Record<string, unknown> = {}): Call => ({ body, expect: OK });
const refused: Call = { body: {}, expect: { status: 501 } };

/** A request per RPC, valid against the fixture, and its answer. */
export const CALLS: Readonly<Record<string, Call>> = {
  CancelOperation: {
    body: {},
    expect: { status: 404, message: /^Not found: projects\/p1\/zones\/us-central1-a\/operations\/op1\.$/ },
  },
  CheckAutopilotCompatibility: refused,
  CompleteControlPlaneUpgrade: refused,
  CompleteIPRotation: {
    body: {},
    expect: { status: 400, message: /^Cluster "c1" has no IP rotation in progress/ },
  },
  CompleteNodePoolUpgrade: {
    body: {},
    expect: { status: 400, message: /^Node pool "np1" is not in the node pool soaking phase/ },
  },
  CreateCluster: ok({ cluster: { name: 'c2', initialNodeCount: 1 } }),
  CreateNodePool: ok({ nodePool: { name: 'np2', initialNodeCount: 1 } }),
  DeleteCluster: ok(),
  DeleteNodePool: ok(),
  FetchClusterUpgradeInfo: ok(),
  FetchNodePoolUpgradeInfo: ok(),
  GetCluster: ok(),
  GetJSONWebKeys: ok(),
  GetNodePool: ok(),
  GetOpenIDConfig: ok(),
  GetOperation: {
    body: {},
    expect: { status: 404, message: /^Not found: projects\/p1\/zones\/us-central1-a\/operations\/op1\.$/ },
  },
  GetServerConfig: ok(),
  ListClusters: ok(),
  ListLocations: ok(),
  ListNodePools: ok(),
  ListOperations: ok(),
  ListUsableSubnetworks: ok(),
  RollbackNodePoolUpgrade: ok(),
  SetAddonsConfig: ok({ addonsConfig: { httpLoadBalancing: { disabled: true } } }),
  SetLabels: ok({ resourceLabels: { team: 'a' }, labelFingerprint: 'a9dc16a7' }),
  SetLegacyAbac: ok({ enabled: true }),
  SetLocations: ok({ locations: ['us-central1-a', 'us-central1-b'] }),
  SetLoggingService: ok({ loggingService: 'none' }),
  SetMaintenancePolicy: ok({
    maintenancePolicy: { window: { dailyMaintenanceWindow: { startTime: '03:00' } } },
  }),
  SetMasterAuth: ok({ action: 'SET_USERNAME', update: { username: '' } }),
  SetMonitoringService: ok({ monitoringService: 'none' }),
  // Enforcement off: turning it on needs the NetworkPolicy addon first (cluster-setters.test.ts).
  SetNetworkPolicy: ok({ networkPolicy: { enabled: false, provider: 'CALICO' } }),
  SetNodePoolAutoscaling: ok({ autoscaling: { enabled: true, minNodeCount: 1, maxNodeCount: 3 } }),
  SetNodePoolManagement: ok({ management: { autoUpgrade: true, autoRepair: true } }),
  SetNodePoolSize: ok({ nodeCount: 2 }),
  StartIPRotation: ok({ rotateCredentials: true }),
  UpdateCluster: ok({ update: { desiredMasterVersion: 'latest' } }),
  UpdateMaster: ok({ masterVersion: 'latest' }),
  UpdateNodePool: ok({ nodeVersion: '-' }),
};

/** The discovery client's accessor path of a method id (`well-known` → `wellKnown`, …). */
export function clientPath(id: string): string[] {
  return id
    .replace(/^container\./, '')
    .split('.')
    .map((part) => part.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase()));
}
