import { routeEntries } from '@sims/sim-core';
import type { Send } from '@sims/test-support/control-dialect';
import { checkRouteRows } from '@sims/test-support/route-conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { deliveryOf } from '../src/definition';
import { apiRoutes } from '../src/http/api-routes';
import type { AppDeps } from '../src/http/deps';
import { cvatOperationId } from '../src/http/openapi';
import { createHarness } from './support/harness';

/**
 * The route rows are annotation-sim's one registry (issue 34): the shared check over every
 * (method, path) of `apiRoutes`, the rows `registerRoutes` registers.
 */
const h = createHarness();
afterAll(() => h.sim.close());

const ADMIN = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
/** Sends with credentials, the journal emptied first: what it holds after is this request's entry alone. */
const send: Send = async (method, path, init = {}) => {
  h.sim.world().journal.clear();
  return h.sim.app.request(`http://localhost${path}`, {
    method,
    body: init.body,
    headers: { authorization: ADMIN, ...(init.contentType ? { 'content-type': init.contentType } : {}) },
  });
};

/**
 * What the rows read of the app's deps as they are listed (signed URLs off, as in the harness's app): the
 * rows are listed here, and run by the harness's app with its own deps.
 */
const DEPS = {
  auth: { signedUrls: false, secretKey: 'unused', trustedOrigins: [] },
  strictAccept: true,
  quirks: { webhookConstraint500: true, unknownDelivery500: true },
  delivery: deliveryOf,
} as Partial<AppDeps> as AppDeps;

const lastOperation = () => h.sim.world().journal.list().at(-1)?.operation;

describe("annotation-sim's route rows", () => {
  it('are answered by their rows, journaled under their operation and listed by the OpenAPI document', async () => {
    // The document names each operation as CVAT's schema does (`projects_partial_update`).
    const entries = routeEntries(apiRoutes(DEPS)).map((e) => ({
      ...e,
      operationId: cvatOperationId(e.method, e.path),
    }));
    const report = await checkRouteRows({
      entries,
      document: (await h.get('/openapi.json')).body,
      send,
      // A TUS upload's id has CVAT's form (`<user id>_<uuid>`); every other id is a number DRF routes.
      fill: (name) => (name === 'file_id' ? '999_00000000-0000-4000-8000-000000000000' : '999999'),
      // Django's HTML 404 page for a URL no view has, or DRF's 405 for a method a known path lacks: the
      // kernel's fallbacks, which journal no operation. (A view may answer either itself: the requests
      // API's page for an unknown rq_id, the 405 of a TUS upload's GET.)
      unmatched: (res) => (res.status === 404 || res.status === 405) && lastOperation() === undefined,
      lastOperation,
    });
    expect(report.violations).toEqual([]);
    expect(report.called.length).toBe(entries.length);
    expect(report.called).toContain('POST /api/events');
    expect(report.called.length).toBeGreaterThan(60);
  });
});
