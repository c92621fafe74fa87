import type { Send } from '@sims/test-support/control-dialect';
import { checkRouteRows } from '@sims/test-support/route-conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { computeRouteEntries } from '../src/http/compute-routes';
import { clusterRouteEntries } from '../src/http/routes/route-entries';
import { createHarness } from './support/harness';

/**
 * The route rows are cluster-sim's one registry (issue 34): the shared check over every (method, path)
 * the rows give (both versions, both path forms, the custom verbs, the discovery table's methods), and
 * the Compute slice's rows (src/http/compute-routes.ts).
 */
const h = createHarness();
afterAll(() => h.sim.close());

/** Sends with credentials, the journal emptied first: what it holds after is this request's entry alone. */
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

describe("cluster-sim's route rows", () => {
  it('are answered by their rows, journaled under their operation and listed by the OpenAPI document', async () => {
    const entries = [...clusterRouteEntries(), ...computeRouteEntries()];
    const report = await checkRouteRows({
      entries,
      document: (await h.get('/openapi.json', { token: null })).body,
      send,
      // Google's front end's page for a URL no method has (ROUTE_NOT_FOUND), not a missing resource's 404;
      // under /compute/v1, the 501 of the Compute paths no row serves.
      unmatched: (res, text) =>
        (res.status === 404 && text.includes('was not found on this server.')) ||
        (res.status === 501 && text.includes('its Compute Engine slice serves')),
      lastOperation: () => h.sim.world().journal.list().at(-1)?.operation,
    });
    expect(report.violations).toEqual([]);
    expect(report.called.length).toBe(entries.length);
    expect(report.called).toContain(
      'POST /v1/projects/{projectId}/zones/{zone}/operations/{operationId}:cancel',
    );
    expect(report.called.length).toBeGreaterThan(140);
    expect(report.called).toContain(
      'POST /compute/v1/projects/{project}/zones/{zone}/instanceGroupManagers/{name}/listManagedInstances',
    );
  });
});
