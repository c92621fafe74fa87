import { createAnnotationSim } from '@sims/annotation-sim';
import { createClusterSim } from '@sims/cluster-sim';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadDocument, type Operation, operationsOf } from '../src/openapi';
import { hostileQueryArb, isListRoute } from '../src/query-hostile';
import { listQuerySweep } from '../src/suite';
import { SEED, TIMEOUT } from './support';

/**
 * Query parameters bounded like bodies (issue 33): every list route of both served OpenAPI documents
 * gets the hostile queries its declared parameters invite (deep JSON Logic, garbage sort keys, huge
 * search strings and numbers, parameters repeated thousands of times), each answered within the
 * campaign's invariants (no crash, no unintended 5xx, the API's error envelope).
 */
async function listRoutes(sim: 'cluster' | 'annotation'): Promise<Operation[]> {
  const s = sim === 'cluster' ? createClusterSim({}) : createAnnotationSim({});
  try {
    return operationsOf(await loadDocument(s.app, '/openapi.json')).filter(isListRoute);
  } finally {
    await s.close();
  }
}

/** The kinds of hostile query a route's declared parameters call for. */
function expectedKinds(op: Operation): string[] {
  const names = new Set(op.query.map((p) => p.name));
  return [
    'repeated parameter',
    ...(names.has('filter') ? ['deep filter'] : []),
    ...(names.has('sort') ? ['garbage sort'] : []),
    ...(names.has('search') ? ['huge search'] : []),
    ...(op.query.some((p) => p.schema.type === 'integer') ? ['huge number'] : []),
  ];
}

describe('hostile list queries from the served documents', () => {
  for (const [api, sim, minRoutes] of [
    ['annotation-api', 'annotation', 14],
    ['cluster-api', 'cluster', 14],
  ] as const) {
    it(
      `${api}: every list route answers every hostile query within the invariants`,
      async () => {
        const routes = await listRoutes(sim);
        expect(routes.length).toBeGreaterThanOrEqual(minRoutes);
        const r = await listQuerySweep(api);
        expect(r.failures, r.failures.join('\n')).toEqual([]);
        for (const op of routes) {
          expect([...(r.coverage.get(op.id) ?? [])], op.id).toEqual(
            expect.arrayContaining(expectedKinds(op)),
          );
        }
      },
      TIMEOUT,
    );
  }

  it('draws hostile values only for the parameters a route declares', async () => {
    const [webhooks] = (await listRoutes('annotation')).filter((op) => op.id === 'webhooks_list');
    expect(webhooks).toBeDefined();
    const declared = new Set(webhooks?.query.map((p) => p.name));
    const samples = fc.sample(hostileQueryArb(webhooks?.query ?? []), { seed: SEED, numRuns: 200 });
    const names = new Set(samples.flatMap((s) => s.query.map((q) => ('name' in q ? q.name : ''))));
    expect([...names].every((n) => declared.has(n))).toBe(true);
    const tags = new Set(samples.flatMap((s) => s.tags));
    for (const kind of ['deep filter', 'garbage sort', 'huge search', 'huge number', 'repeated parameter']) {
      expect(tags).toContain(`hostile list query: ${kind}`);
    }
  });
});
