/**
 * The control plane (`/_sim`) of either simulator, fuzzed from `GET /_sim/openapi.json`. Its document
 * types every body as `object`, so bodies come from examples per route (valid seeds, fault rules,
 * clock moves, settings, snapshots, scenarios), mutated, plus the generic hostile bodies.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAnnotationSim } from '@sims/annotation-sim';
import { createClusterSim } from '@sims/cluster-sim';
import fc from 'fast-check';
import { contentTypeArb, contentTypeTags, hostileBody, pathSegment, queryArb } from '../arbitraries';
import type { BodySpec, FuzzRequest } from '../http';
import { controlEnvelope, reachesControlPlane } from '../invariants';
import { fromPlain, type JValue } from '../json-text';
import { loadDocument, type Operation, operationsOf } from '../openapi';
import { annotationSeed, offlineSender, START } from './annotation';
import { clusterSeed, T0 } from './cluster';
import { must, mutatedExamples, namespaceArb, resetAll } from './common';
import type { FuzzSetup, Instance } from './types';

const CONTROL_NS = 'cp';

const SCENARIOS_DIR = fileURLToPath(new URL('../../../scenarios/', import.meta.url));

function scenarioTexts(): string[] {
  try {
    return readdirSync(SCENARIOS_DIR)
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => readFileSync(`${SCENARIOS_DIR}${f}`, 'utf8'));
  } catch {
    return [];
  }
}

/** YAML that tries alias bombs, deep nesting, tags, prototype keys, huge numbers. */
const HOSTILE_YAML = [
  `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\nseed: *f\n`,
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `seed: ${'{a: '.repeat(3000)}1${'}'.repeat(3000)}`,
  'name: !!js/function "function(){}"\n',
  '__proto__:\n  polluted: yes\n',
  'seed:\n  __proto__:\n    polluted: yes\n',
  'name: a\nname: b\n',
  'clock:\n  advance: 1e400\n',
  'clock:\n  advance: 99999999999999999999s\n',
  'clock:\n  set: 99999999999999999999999\n',
  'clock:\n  speed: -1\n',
  'faults:\n  - effect:\n      delay: 99999999999999999999s\n',
  'faults:\n  - effect:\n      error:\n        status: __proto__\n',
  '---\nname: a\n---\nname: b\n',
  '\tname: tab',
  '? [complex, key]\n: value\n',
  '',
  'null',
  '- just\n- a list\n',
  '"\\ud800"',
  '%YAML 9.9\n---\nname: x\n',
];

const FAULT_RULES: unknown[] = [
  { match: { operation: 'nodePools.get' }, effect: { error: { status: 'UNAVAILABLE' } } },
  {
    match: { path: '/api/*' },
    effect: { http: { status: 503, body: { detail: 'x' } } },
    trigger: { times: 1 },
  },
  { match: { path: '/**' }, effect: { delay: '10ms' }, trigger: { probability: 0.5 } },
  { effect: { connection: 'reset' }, trigger: { nth: 2 } },
  {
    match: { method: 'GET', headers: { 'x-a': '*' }, query: { a: '1' }, body: { 'a.b': 1 } },
    effect: { error: { status: 13 } },
  },
  {
    effect: { error: { status: 'INTERNAL', message: 'boom' } },
    trigger: { window: { from: '+1s', to: '2030-01-01T00:00:00Z' } },
  },
  { effect: { operationFails: { atProgress: 0.5 } } },
  { effect: { exportDelay: { duration: '1s' } } },
  { effect: { deliveryDelay: '5s' } },
  [{ effect: { error: { status: 'NOT_FOUND' } } }, { effect: { http: { status: 429 } } }],
];

/** Long polls (they wait wall time), always with a short or pathological-but-quick time limit. */
const JOURNAL_WAIT_BODIES: unknown[] = [
  { timeout: '10ms' },
  { timeout: 5, operation: 'nodePools.get' },
  { timeout: '99999999999999999999s', since: 999999 },
  { timeout: -1 },
  { timeout: 'NaNms' },
  { timeout: '1e400ms' },
  { timeout: 20, status: 'x' },
];
const DELIVERY_WAIT_BODIES: unknown[] = [
  { timeoutMs: 10 },
  { timeoutMs: -1 },
  { timeoutMs: 'x' },
  { timeoutMs: 20, webhook: 1, event: 'ping' },
  { timeoutMs: 20, webhook: '__proto__' },
];

function examples(
  sim: 'cluster' | 'annotation',
  snapshot: unknown,
  serverConfig: unknown,
): Record<string, unknown[]> {
  const seed = sim === 'cluster' ? clusterSeed(false, 0) : annotationSeed();
  const common: Record<string, unknown[]> = {
    'POST /_sim/seed':
      sim === 'cluster'
        ? [
            seed,
            {},
            {
              clusters: [
                { projectId: 'p9', location: 'asia-east1-a', name: 'new', nodePools: [{ name: 'a' }] },
              ],
            },
            { nodePools: [{ projectId: 'p1', location: 'us-central1-a', cluster: 'c1', name: 'np7' }] },
            {
              operations: [
                {
                  projectId: 'p1',
                  location: 'us-central1-a',
                  cluster: 'c1',
                  status: 'RUNNING',
                  startTime: 'x',
                },
              ],
            },
            { settings: { maxOperations: 1, concurrentOperationsQuota: 1 } },
          ]
        : [
            seed,
            {},
            { users: [{ username: 'zed', token: 't'.repeat(40) }] },
            { projects: [{ name: 'p', owner: 'nobody' }] },
            { tasks: [{ name: 't', owner: 'admin', size: 100, segment_size: 1 }] },
          ],
    'PUT /_sim/state': [
      snapshot,
      { state: {} },
      { state: null },
      { simulator: 'other', state: {} },
      { faults: [{}], state: (snapshot as { state?: unknown })?.state },
    ],
    'POST /_sim/faults': FAULT_RULES,
    'PUT /_sim/clock': [
      { mode: 'manual' },
      { speed: 2 },
      { set: '2026-02-01T00:00:00Z' },
      { set: 0 },
      { mode: 'real', speed: 1000 },
      { set: 8.64e15 },
    ],
    'POST /_sim/clock/advance': [{ by: '1s' }, { by: 1000 }, { by: '1h' }, { by: '1d' }, { by: 0 }],
    'POST /_sim/journal/wait': JOURNAL_WAIT_BODIES,
    'POST /_sim/deliveries/wait': DELIVERY_WAIT_BODIES,
  };
  if (sim === 'cluster') {
    return {
      ...common,
      'PUT /_sim/settings': [
        { strictUnknownFields: true },
        { operationDurationMs: 0 },
        { operationPolls: 1 },
        { rollout: { batchMs: 1, phaseMs: 1 } },
        {
          auth: {
            principals: { t: { scopes: ['x'], deniedPermissions: ['container.clusters.get'] } },
            denyUnknownTokens: true,
          },
        },
        { cancelError: { status: 'INTERNAL', message: 'x' }, busyMessage: 'legacy' },
        { maxOperations: 1 },
      ],
      'PUT /_sim/server-config': [
        serverConfig,
        {},
        { validNodeVersions: [] },
        { defaultClusterVersion: 'x' },
      ],
      'POST /_sim/operations/{id}/fail': [{ status: 'INTERNAL', message: 'x' }, {}, { status: 99 }],
      'POST /_sim/operations/{id}/complete': [{}],
    };
  }
  return {
    ...common,
    'PATCH /_sim/events/settings': [
      { exportDuration: '2s', exportQueued: '500ms', storeConnected: false, resultTtl: '24h', maxEvents: 10 },
      { maxEvents: 0 },
      { storeConnected: true },
    ],
    'POST /_sim/events/records': [
      {
        events: [
          { scope: 'create:task', source: 'server', timestamp: '2026-01-01T00:00:00Z', obj_name: 'x' },
        ],
      },
      { events: [{ scope: 'x', timestamp: 1767225600000 }] },
      { events: [] },
    ],
    'POST /_sim/events/exports': [
      { query_id: '00000000-0000-4000-8000-000000000001', user_id: 1, username: 'admin', status: 'finished' },
      { query_id: 'bad', user_id: 1, username: 'admin', status: 'failed', message: 'x' },
      {
        query_id: '00000000-0000-4000-8000-000000000002',
        user_id: 1,
        username: 'admin',
        status: 'queued',
        from: 'x',
        to: 'y',
      },
    ],
    'POST /_sim/events/exports/complete': [
      { rq_id: 'action=export&target=events&id=00000000-0000-4000-8000-000000000001&user_id=1' },
      { rq_id: 'x', fail: 'boom' },
    ],
    'POST /_sim/events/exports/expire-file': [
      { rq_id: 'action=export&target=events&id=00000000-0000-4000-8000-000000000001&user_id=1' },
      {},
    ],
  };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Seed fields that size what the simulator builds, left alone by mutation: a seeded task of
 * `size: 2147483647` frames (annotation-sim) allocates until the process dies, which would end the
 * fuzzer rather than fail one request. That exhaustion is reported in the findings file on its own.
 */
const UNBOUNDED = new Set([
  'size',
  'segment_size',
  'overlap',
  'initialNodeCount',
  'nodeCount',
  'maxOperations',
  'maxEvents',
]);

function controlRequestArb(
  op: Operation,
  bodies: Record<string, unknown[]>,
  pathValues: Record<string, string[]>,
): fc.Arbitrary<FuzzRequest> {
  const key = `${op.method} ${op.template}`;
  const isWait = op.template.endsWith('/wait');
  const isScenario = op.template === '/_sim/scenarios';
  const exampleList = (bodies[key] ?? [{}]).map(fromPlain);
  type Made = { body?: BodySpec; tags: string[]; contentType: string | undefined };
  let bodyArb: fc.Arbitrary<Made>;
  if (!BODY_METHODS.has(op.method)) bodyArb = fc.constant({ tags: [], contentType: undefined });
  else if (isWait) {
    bodyArb = fc.constantFrom(...exampleList).map((value) => ({
      body: { kind: 'json', value } as BodySpec,
      tags: ['long poll'],
      contentType: 'application/json',
    }));
  } else if (isScenario) {
    const texts = scenarioTexts();
    bodyArb = fc.oneof(
      ...(texts.length
        ? [
            fc.constantFrom(...texts).map((text) => ({
              body: { kind: 'text', text } as BodySpec,
              tags: [],
              contentType: 'application/yaml',
            })),
          ]
        : []),
      fc.constantFrom(...HOSTILE_YAML).map((text) => ({
        body: { kind: 'text', text } as BodySpec,
        tags: ['hostile YAML'],
        contentType: 'application/yaml',
      })),
      hostileBody([]).map((b) => ({ ...b, contentType: 'application/yaml' })),
    );
  } else {
    bodyArb = fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .tuple(mutatedExamples(exampleList as JValue[], UNBOUNDED), contentTypeArb)
          .map(([m, ct]) => ({
            body: { kind: 'json', value: m.value } as BodySpec,
            tags: [...m.tags, ...contentTypeTags(ct)],
            contentType: ct,
          })),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(hostileBody([]), contentTypeArb)
          .map(([b, ct]) => ({ body: b.body, tags: [...b.tags, ...contentTypeTags(ct)], contentType: ct })),
      },
      { weight: 1, arbitrary: fc.constant<Made>({ tags: ['no body'], contentType: undefined }) },
    );
  }
  const segments = op.pathParams.map((p) => pathSegment(pathValues[p] ?? []));
  return fc
    .record({
      segments: fc.tuple(...segments),
      ns: namespaceArb(CONTROL_NS),
      body: bodyArb,
      query: queryArb(
        op.template === '/_sim/journal'
          ? {
              operation: ['nodePools.*', 'x'],
              status: ['200', 'x', '1e400'],
              since: ['0', '-1', 'x'],
              limit: ['1', '0', '-1', '1e3', 'x'],
              method: ['GET'],
              path: ['/**'],
              fault: ['x'],
            }
          : op.template === '/_sim/faults'
            ? { unfired: ['true', 'false'] }
            : op.template === '/_sim/scenarios'
              ? { source: ['x.yaml', '', '__proto__'] }
              : {},
      ),
      method: fc.oneof(
        { weight: 20, arbitrary: fc.constant(op.method) },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') },
      ),
    })
    .map(({ segments: segs, ns, body, query, method }) => {
      let path = op.template;
      op.pathParams.forEach((p, i) => {
        path = path.replace(`{${p}}`, () => (segs[i] as { value: string }).value);
      });
      const headers: [string, string][] = [...ns.headers];
      const carries = BODY_METHODS.has(method) && body.body !== undefined;
      if (carries && body.contentType !== undefined) headers.push(['content-type', body.contentType]);
      const tags = [...ns.tags, ...(carries ? body.tags : [])];
      if ((segs as { hostile: boolean }[]).some((s) => s.hostile)) tags.push('hostile path parameter');
      if (method !== op.method) tags.push(`method ${method} on a ${op.method} route`);
      if (query.length) tags.push('query');
      return {
        op: key,
        template: op.template,
        method,
        path: `${ns.pathPrefix}${path}`,
        query,
        headers,
        body: carries ? body.body : undefined,
        tags,
      } satisfies FuzzRequest;
    });
}

function create(sim: 'cluster' | 'annotation'): Instance {
  if (sim === 'cluster') {
    const s = createClusterSim({ seed: 7, clock: { mode: 'manual', start: T0 } });
    return { app: s.app, close: () => s.close() };
  }
  const s = createAnnotationSim({
    seed: 7,
    clock: { mode: 'manual', start: START },
    sender: offlineSender,
    delivery: { thread: 'main' },
  });
  return { app: s.app, close: () => s.close() };
}

async function prepare(
  sim: 'cluster' | 'annotation',
  inst: Instance,
): Promise<{ faultId: string; operations: string[] }> {
  const ns: [string, string][] = [['x-sim-namespace', CONTROL_NS]];
  await resetAll(inst);
  await must(inst, 'POST', '/_sim/reset', undefined, ns);
  // A world left in real-clock mode by an earlier batch is reset with the namespace.
  const seeded = (await must(
    inst,
    'POST',
    '/_sim/seed',
    sim === 'cluster' ? clusterSeed(false, 0) : annotationSeed(),
    ns,
  )) as {
    seeded: { operations?: string[] };
  };
  const rule = (await must(
    inst,
    'POST',
    '/_sim/faults',
    { description: 'fuzz', match: { path: '/nothing/*' }, effect: { delay: '1ms' } },
    ns,
  )) as { id: string };
  return { faultId: rule.id, operations: seeded.seeded.operations ?? [] };
}

export async function controlSetup(sim: 'cluster' | 'annotation'): Promise<FuzzSetup> {
  const api = `${sim}-sim control plane`;
  const probe = create(sim);
  let ops: Operation[];
  let ctx: { faultId: string; operations: string[] };
  let snapshot: unknown;
  let serverConfig: unknown;
  try {
    ops = operationsOf(await loadDocument(probe.app, '/_sim/openapi.json'));
    ctx = await prepare(sim, probe);
    snapshot = await must(probe, 'GET', '/_sim/state', undefined, [['x-sim-namespace', CONTROL_NS]]);
    serverConfig =
      sim === 'cluster'
        ? await must(probe, 'GET', '/_sim/server-config', undefined, [['x-sim-namespace', CONTROL_NS]])
        : {};
  } finally {
    await probe.close();
  }
  const bodies = examples(sim, snapshot, serverConfig);
  const pathValues: Record<string, string[]> = {
    id: [ctx.faultId, ...ctx.operations, 'unfired', 'nope'],
    name: [CONTROL_NS, 'other-ns', 'default'],
  };
  const unknown: fc.Arbitrary<FuzzRequest> = fc
    .record({
      path: fc.constantFrom(
        '/_sim',
        '/_sim/',
        '/_sim/nope',
        '/_sim/faults/x/y',
        '/_sim/health/x',
        '/_sim/openapi.json/x',
        '/_sim/%ZZ',
        '/_sim/..%2f..',
      ),
      method: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
      ns: namespaceArb(CONTROL_NS),
    })
    .map(({ path, method, ns }) => ({
      op: 'unknown-control-route',
      template: '(unknown /_sim route)',
      method,
      path: `${ns.pathPrefix}${path}`,
      query: [],
      headers: ns.headers,
      tags: ['unknown control route', ...ns.tags],
    }));
  const requests = fc.oneof(
    { weight: 20, arbitrary: fc.oneof(...ops.map((op) => controlRequestArb(op, bodies, pathValues))) },
    { weight: 1, arbitrary: unknown },
  );
  return {
    api,
    operationCount: ops.length,
    create: async () => create(sim),
    prepare: async (inst) => {
      await prepare(sim, inst);
    },
    requests,
    notes: new Set(),
    // Long-polls and the event stream answer when something happens: the client gives up after 300 ms,
    // as a test's client would, and the route must then end (a hang is a finding).
    timeouts: (req) =>
      req.template.endsWith('/wait') || req.template.endsWith('/idle') || req.template.endsWith('/stream')
        ? { timeoutMs: 3_000, abortAfterMs: 300 }
        : { timeoutMs: 10_000 },
    // A hostile path parameter (`..`) can lead out of /_sim: the emulated API answers that one, in its own
    // envelope (its own targets check those).
    invariants: { api, envelope: (req, res) => (reachesControlPlane(req) ? controlEnvelope(res) : []) },
  };
}
