/**
 * cluster-sim's emulated GKE API, fuzzed from `GET /openapi.json`, in a seeded namespace.
 */
import { createClusterSim } from '@sims/cluster-sim';
import fc from 'fast-check';
import { operationRequestArb, type RequestArbParts, unknownRouteArb } from '../arbitraries';
import type { FuzzRequest } from '../http';
import {
  computeEnvelope,
  controlEnvelope,
  googleEnvelope,
  hasInvalidNamespace,
  reachesCompute,
  reachesControlPlane,
} from '../invariants';
import { loadDocument, type OpenApiDocument, operationsOf, type Schema } from '../openapi';
import { listQuerySweep } from '../query-hostile';
import { mergeHeaders, must, namespaceArb, resetAll } from './common';
import type { FuzzSetup, HeaderChoice, Instance } from './types';

const CLUSTER_NS = 'fuzz';
export const T0 = '2026-01-01T00:00:00.000Z';

const VERSIONS = [
  '1.33.5-gke.1308000',
  '1.33.4-gke.1350000',
  '1.34.1-gke.1829001',
  '1.32.9-gke.1108000',
  '1.29.15-gke.1325000',
  '1.33',
  '1',
  'latest',
  '-',
  '',
  '1.99.0-gke.1',
  '0.0.0',
];

const LOCATIONS = ['us-central1-a', 'us-central1', 'europe-west1-b', '-'];

/** The seed every batch starts from: zonal and regional clusters, pools, a running and a done operation. */
export function clusterSeed(strict: boolean, variant: number) {
  return {
    projects: [{ projectId: 'p1', projectNumber: '123456789012' }],
    settings: {
      strictUnknownFields: strict,
      ...(variant === 2
        ? {
            auth: {
              principals: {
                'reader-token': { scopes: ['https://www.googleapis.com/auth/cloud-platform.read-only'] },
              },
              rejectedTokens: { 'expired-token': 'ACCESS_TOKEN_EXPIRED' as const },
            },
          }
        : {}),
    },
    clusters: [
      {
        projectId: 'p1',
        location: 'us-central1-a',
        name: 'c1',
        currentMasterVersion: '1.33.5-gke.1308000',
        nodePools: [
          { name: 'np1', version: '1.33.5-gke.1308000', initialNodeCount: 3 },
          { name: 'np2', version: '1.32.9-gke.1108000', initialNodeCount: 1 },
        ],
      },
      {
        projectId: 'p1',
        location: 'us-central1',
        name: 'c2',
        currentMasterVersion: '1.33.5-gke.1308000',
        nodePools: [{ name: 'np1', version: '1.33.5-gke.1308000', initialNodeCount: 2 }],
      },
      { projectId: 'p1', location: 'europe-west1-b', name: 'c3', nodePools: [] },
    ],
    operations: [
      // Running on c3, so that c1 and c2 take writes (a running operation makes its cluster busy).
      { projectId: 'p1', location: 'europe-west1-b', cluster: 'c3', status: 'RUNNING' as const },
      { projectId: 'p1', location: 'us-central1', cluster: 'c2', status: 'DONE' as const },
    ],
  };
}

interface SeedContext {
  operations: string[];
  etags: string[];
}

function createInstance(): Instance {
  const sim = createClusterSim({ seed: 7, clock: { mode: 'manual', start: T0 } });
  return { app: sim.app, close: () => sim.close() };
}

async function prepare(inst: Instance, variant: number): Promise<SeedContext> {
  const ns: [string, string][] = [['x-sim-namespace', CLUSTER_NS]];
  await resetAll(inst);
  await must(inst, 'POST', '/_sim/reset', undefined, ns);
  const seeded = (await must(inst, 'POST', '/_sim/seed', clusterSeed(variant % 2 === 1, variant), ns)) as {
    seeded: { operations?: string[]; nodePools?: { etag: string }[] };
  };
  return {
    operations: seeded.seeded.operations ?? [],
    etags: (seeded.seeded.nodePools ?? []).map((p) => p.etag),
  };
}

const authArb: fc.Arbitrary<HeaderChoice> = fc
  .oneof(
    { weight: 12, arbitrary: fc.constant<[string, string][]>([['authorization', 'Bearer test-token']]) },
    {
      weight: 3,
      arbitrary: fc.constantFrom<[string, string][]>(
        [],
        [['authorization', 'Bearer ']],
        [['authorization', 'Bearer reader-token']],
        [['authorization', 'Bearer expired-token']],
        [['authorization', 'Basic dXNlcjpwYXNz']],
        [['authorization', 'bearer test-token']],
        [['authorization', 'Bearer test-token, Bearer other']],
        [['authorization', `Bearer ${'x'.repeat(9000)}`]],
        [['authorization', 'Bearer \u00ff\u00fe']],
        [['authorization', 'Bearer __proto__']],
        [['authorization', 'Bearer toString']],
        [['authorization', 'Bearer constructor']],
        [['x-goog-api-key', 'k']],
      ),
    },
  )
  .map((headers) => ({
    headers,
    tags: headers.length === 1 && headers[0]?.[1] === 'Bearer test-token' ? [] : ['odd credentials'],
    pathPrefix: '',
  }));

const extraArb: fc.Arbitrary<HeaderChoice> = fc
  .oneof(
    { weight: 10, arbitrary: fc.constant<[string, string][]>([]) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string][]>(
        [['x-http-method-override', 'DELETE']],
        [['accept', 'application/x-protobuf']],
        [['x-goog-request-params', 'name=projects%2Fp1']],
        [['if-match', '*']],
        [['x-goog-user-project', '__proto__']],
      ),
    },
  )
  .map((headers) => ({ headers, tags: headers.length ? ['extra headers'] : [], pathPrefix: '' }));

/** Builds the campaign setup: reads the served document from a probe simulator. */
export async function clusterApiSetup(): Promise<FuzzSetup> {
  const probe = createInstance();
  let doc: OpenApiDocument;
  let ctx: SeedContext;
  try {
    doc = await loadDocument(probe.app, '/openapi.json');
    ctx = await prepare(probe, 0);
  } finally {
    await probe.close();
  }
  const ops = operationsOf(doc);
  const notes = new Set<string>();
  const statusSchema = doc.components?.schemas?.Status as Schema;
  if (!statusSchema) throw new Error('cluster-sim /openapi.json has no Status schema');
  const google = googleEnvelope(doc, statusSchema);

  const names = {
    projectId: ['p1', '123456789012', 'p2'],
    location: LOCATIONS,
    zone: LOCATIONS,
    clusterId: ['c1', 'c2', 'c3', 'c9'],
    nodePoolId: ['np1', 'np2', 'np9'],
    operationId: [...ctx.operations, 'operation-1767225600000-00000000'],
  } as Record<string, string[]>;
  const resourceNames = [
    'projects/p1/locations/us-central1-a/clusters/c1',
    'projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1',
    'projects/p1/locations/us-central1',
    'projects/p2/locations/us-central1-a/clusters/c1',
    'projects/p1/locations/us-central1-a/operations/x',
  ];
  // Resources that exist after the seed, with every path parameter that names them.
  const tuples: Record<string, string>[] = [];
  for (const projectId of ['p1', '123456789012']) {
    for (const [location, clusterId, pools, operation] of [
      ['us-central1-a', 'c1', ['np1', 'np2'], undefined],
      ['us-central1', 'c2', ['np1'], ctx.operations[1]],
      ['europe-west1-b', 'c3', ['np1'], ctx.operations[0]],
    ] as const) {
      for (const nodePoolId of pools) {
        tuples.push({
          projectId,
          location,
          zone: location,
          clusterId,
          nodePoolId,
          operationId: operation ?? 'operation-0',
        });
      }
    }
  }
  const parts: RequestArbParts = {
    doc,
    pathValues: (_op, param) => names[param] ?? [],
    pathTuples: () => tuples,
    bodySchema: (op) => op.bodySchema,
    stringHints: {
      ...names,
      name: ['np1', 'np-new', 'c-new', ...resourceNames],
      parent: resourceNames,
      nodeVersion: VERSIONS,
      version: VERSIONS,
      masterVersion: VERSIONS,
      initialClusterVersion: VERSIONS,
      currentMasterVersion: VERSIONS,
      desiredNodeVersion: VERSIONS,
      desiredMasterVersion: VERSIONS,
      etag: [...ctx.etags, 'stale-etag', ''],
      locations: ['us-central1-a', 'us-central1-b', 'europe-west1-b'],
      machineType: ['e2-medium', 'n2-standard-4', ''],
      imageType: ['COS_CONTAINERD', 'UBUNTU_CONTAINERD'],
    },
    queryHints: (op) => ({
      alt: ['json', 'proto', 'media'],
      $alt: ['json;enum-encoding=int', 'json'],
      prettyPrint: ['false', 'true'],
      fields: ['name', 'nodePools(name,etag)', '*'],
      '$.xgafv': ['2', '1'],
      key: ['api-key'],
      access_token: ['test-token'],
      ...(op.id.includes('fetchNodePoolUpgradeInfo') ? { version: VERSIONS } : {}),
      projectId: names.projectId as string[],
      zone: LOCATIONS,
      clusterId: names.clusterId as string[],
      nodePoolId: names.nodePoolId as string[],
      operationId: names.operationId as string[],
      name: resourceNames,
      parent: resourceNames,
    }),
    cleanHeaders: {
      headers: [
        ['x-sim-namespace', CLUSTER_NS],
        ['authorization', 'Bearer test-token'],
      ],
      tags: [],
      pathPrefix: '',
    },
    headers: fc
      .tuple(namespaceArb(CLUSTER_NS), authArb, extraArb)
      .map(([ns, auth, extra]) => mergeHeaders(ns, auth, extra)),
    snakeCase: true,
    // The deprecated ids of the request messages: the path names the resource already.
    rareKeys: new Set(['projectId', 'zone', 'clusterId', 'nodePoolId', 'operationId', 'name', 'parent']),
  };
  const byOperation = ops.map((op) => operationRequestArb(op, parts));
  const requests: fc.Arbitrary<FuzzRequest> = fc.oneof(
    { weight: 20, arbitrary: fc.oneof(...byOperation) },
    {
      weight: 1,
      arbitrary: unknownRouteArb(
        ops.map((o) => o.template),
        parts.headers,
      ),
    },
  );
  return {
    api: 'cluster-sim API',
    operationCount: ops.length,
    listQuerySweep: listQuerySweep(ops, (_op, p) => tuples[0]?.[p], parts.cleanHeaders.headers),
    create: async () => createInstance(),
    prepare: async (inst, variant) => {
      await prepare(inst, variant);
    },
    tick: async (inst) => {
      await must(inst, 'POST', '/_sim/clock/advance', { by: '10m' }, [['x-sim-namespace', CLUSTER_NS]]);
    },
    requests,
    notes,
    timeouts: () => ({ timeoutMs: 10_000 }),
    invariants: {
      api: 'cluster-sim API',
      envelope: (req, res) => {
        if (hasInvalidNamespace(req) && controlEnvelope(res).length === 0) {
          notes.add(
            "cluster-sim API: a malformed namespace (X-Sim-Namespace or /_ns/<name>) on an emulated-API route is answered 400 in the control-plane envelope ({error:{status,reason,message}}), not in Google's. Accepted as the simulator's own header, but a Google client reading it sees no google.rpc.Status: decide whether that is intended.",
          );
          return [];
        }
        // A path that resolves to /_sim (dot segments) is the control plane's to answer.
        if (reachesControlPlane(req)) return controlEnvelope(res);
        // The Compute slice answers in Compute's envelope (no status on Compute's own errors).
        if (reachesCompute(req)) return computeEnvelope(res);
        return google(res);
      },
    },
  };
}
