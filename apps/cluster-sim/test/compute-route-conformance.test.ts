import type { Send } from '@sims/test-support/control-dialect';
import { checkRouteRows } from '@sims/test-support/route-conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { computeRouteEntries } from '../src/http/compute-routes';
import { createHarness } from './support/harness';

/**
 * The Compute slice's route rows (src/http/compute-routes.ts) under the shared check: each row's path
 * is answered by that row (not by the 501 every other Compute path gets) and journaled under its
 * operation. The OpenAPI document does not list the Compute rows yet, so the document's part of the
 * check is given the rows themselves.
 */
const h = createHarness();
afterAll(() => h.sim.close());

const send: Send = async (method, path, init = {}) => {
  h.sim.world().journal.clear();
  return h.sim.app.request(path, {
    method,
    body: init.body,
    headers: {
      authorization: 'Bearer test-token',
      ...(init.contentType ? { 'content-type': init.contentType } : {}),
    },
  });
};

describe("the Compute slice's route rows", () => {
  it('are answered by their rows and journaled under their operation', async () => {
    const entries = computeRouteEntries();
    const paths: Record<string, Record<string, { operationId: string }>> = {};
    for (const e of entries) {
      const item = paths[e.path] ?? {};
      item[e.method] = { operationId: e.operation };
      paths[e.path] = item;
    }
    const report = await checkRouteRows({
      entries,
      document: { paths },
      send,
      // The 501 of a Compute path no row serves, or the front end's URL-not-found page.
      unmatched: (res, text) =>
        res.headers.get('x-sim-reason') === 'not-simulated' ||
        (res.status === 404 && text.includes('was not found on this server.')),
      lastOperation: () => h.sim.world().journal.list().at(-1)?.operation,
    });
    expect(report.violations).toEqual([]);
    expect(report.called).toHaveLength(8);
    expect(report.called).toContain(
      'POST /compute/v1/projects/{project}/zones/{zone}/instanceGroupManagers/{name}/listManagedInstances',
    );
  });
});
