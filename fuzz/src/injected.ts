/**
 * Injected faults: a fault rule whose effect is a 5xx (an `error` effect, or a raw `http` one) makes the
 * next matching request fail on purpose. The hardening issue: "the only 5xx are those the simulator
 * means: injected faults and CVAT's own documented 500s, and each carries X-Sim-Reason in both
 * simulators". So the answer must carry X-Sim-Reason, and an `error` effect's body must be in the API's
 * envelope.
 */
import { createAnnotationSim } from '@sims/annotation-sim';
import { createClusterSim } from '@sims/cluster-sim';
import fc from 'fast-check';
import { type FuzzRequest, type FuzzResponse, plainRequest, type SendOutcome, send } from './http';
import { checkResponse, cvatEnvelope, googleEnvelope, type Violation } from './invariants';
import { loadDocument, type Schema } from './openapi';
import { ADMIN, offlineSender, START } from './targets/annotation';
import { T0 } from './targets/cluster';

export interface InjectedCase {
  effect: Record<string, unknown>;
  /** Which API request to send (index into the simulator's list). */
  target: number;
}

const CLUSTER_ERROR_STATUSES = [
  'INTERNAL',
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'UNKNOWN',
  'DATA_LOSS',
  'UNIMPLEMENTED',
  13,
  14,
  4,
  2,
];

export const clusterInjectedArb: fc.Arbitrary<InjectedCase> = fc.record({
  effect: fc.oneof(
    fc.record({
      error: fc.record(
        {
          status: fc.constantFrom(...CLUSTER_ERROR_STATUSES),
          message: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        },
        { requiredKeys: ['status'] },
      ),
    }),
    fc.record({
      http: fc.record(
        {
          status: fc.integer({ min: 500, max: 599 }),
          body: fc.option(fc.constantFrom<unknown>({ a: 1 }, 'oops', ''), { nil: undefined }),
        },
        { requiredKeys: ['status'] },
      ),
    }),
  ),
  target: fc.nat(2),
});

export const annotationInjectedArb: fc.Arbitrary<InjectedCase> = fc.record({
  effect: fc.oneof(
    fc.record({
      error: fc.record(
        {
          status: fc.constantFrom<string | number>('SERVER_ERROR', 'UNAVAILABLE', 500, 502, 503, 504, 599),
          message: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        },
        { requiredKeys: ['status'] },
      ),
    }),
    fc.record({
      http: fc.record(
        {
          status: fc.integer({ min: 500, max: 599 }),
          body: fc.option(fc.constantFrom<unknown>({ a: 1 }, 'oops', ''), { nil: undefined }),
        },
        { requiredKeys: ['status'] },
      ),
    }),
  ),
  target: fc.nat(2),
});

export interface InjectedRun {
  req: FuzzRequest;
  rule: unknown;
  outcome: SendOutcome;
  violations: Violation[];
}

const withoutUndefined = (v: unknown) => JSON.parse(JSON.stringify(v));

export async function runClusterInjected(c: InjectedCase): Promise<InjectedRun> {
  const sim = createClusterSim({ seed: 7, clock: { mode: 'manual', start: T0 } });
  try {
    const doc = await loadDocument(sim.app, '/openapi.json');
    const google = googleEnvelope(doc, doc.components?.schemas?.Status as Schema);
    await send(
      sim.app,
      plainRequest('POST', '/_sim/seed', {
        clusters: [{ projectId: 'p1', location: 'us-central1-a', name: 'c1', nodePools: [{ name: 'np1' }] }],
      }),
    );
    const paths = [
      ['GET', '/v1beta1/projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1', undefined],
      ['GET', '/v1/projects/p1/locations/us-central1-a/clusters', undefined],
      [
        'POST',
        '/v1beta1/projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1:setSize',
        { nodeCount: 2 },
      ],
    ] as const;
    const [method, path, body] = paths[c.target % paths.length] as (typeof paths)[number];
    const rule = withoutUndefined({ match: { path: '/v1*/**' }, effect: c.effect });
    const added = await send(sim.app, plainRequest('POST', '/_sim/faults', rule));
    if (added.kind !== 'response' || added.res.status !== 201)
      throw new Error(`fault rule refused: ${added.kind === 'response' ? added.res.text : added.kind}`);
    const req = plainRequest(method, path, body, [['authorization', 'Bearer t']]);
    const outcome = await send(sim.app, req, { timeoutMs: 10_000 });
    const violations = check(
      req,
      outcome,
      'cluster-sim API (injected fault)',
      c.effect,
      'error' in c.effect ? (_r, res) => google(res) : () => [],
    );
    return { req, rule, outcome, violations };
  } finally {
    sim.close();
  }
}

export async function runAnnotationInjected(c: InjectedCase): Promise<InjectedRun> {
  const sim = createAnnotationSim({
    seed: 7,
    clock: { mode: 'manual', start: START },
    sender: offlineSender,
    delivery: { thread: 'main' },
  });
  try {
    await send(sim.app, plainRequest('POST', '/_sim/seed', { projects: [{ name: 'p', owner: 'admin' }] }));
    const paths = [
      ['GET', '/api/projects/1', undefined],
      ['GET', '/api/projects', undefined],
      ['PATCH', '/api/projects/1', { name: 'q' }],
    ] as const;
    const [method, path, body] = paths[c.target % paths.length] as (typeof paths)[number];
    const rule = withoutUndefined({ match: { path: '/api/**' }, effect: c.effect });
    const added = await send(sim.app, plainRequest('POST', '/_sim/faults', rule));
    if (added.kind !== 'response' || added.res.status !== 201)
      throw new Error(`fault rule refused: ${added.kind === 'response' ? added.res.text : added.kind}`);
    const req = plainRequest(method, path, body, [['authorization', ADMIN]]);
    const outcome = await send(sim.app, req, { timeoutMs: 10_000 });
    const violations = check(
      req,
      outcome,
      'annotation-sim API (injected fault)',
      c.effect,
      'error' in c.effect ? cvatEnvelope : () => [],
    );
    return { req, rule, outcome, violations };
  } finally {
    sim.close();
  }
}

function check(
  req: FuzzRequest,
  outcome: SendOutcome,
  api: string,
  effect: Record<string, unknown>,
  envelope: (req: FuzzRequest, res: FuzzResponse) => string[],
): Violation[] {
  if (outcome.kind !== 'response')
    return [{ kind: 'crash', signature: `${api}|${outcome.kind}`, message: outcome.kind }];
  const kind = 'error' in effect ? 'error' : 'http';
  const out = checkResponse(req, outcome.res, { api, envelope }).map((v) =>
    v.kind === 'unintended-5xx'
      ? {
          kind: 'no-sim-reason' as const,
          signature: `${api}|no-sim-reason|${kind} effect`,
          message: `an injected ${outcome.res.status} (fault rule with an ${kind} effect) carries no X-Sim-Reason`,
        }
      : v,
  );
  if (outcome.res.status < 500) {
    out.push({
      kind: 'unintended-5xx',
      signature: `${api}|not-injected|${kind}`,
      message: `the injected 5xx did not happen: ${outcome.res.status}`,
    });
  }
  return out;
}
