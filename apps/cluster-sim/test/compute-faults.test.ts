import { compute } from '@googleapis/compute';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeAuth, useSocketSim } from './support/client-sim';
import { createHarness, type Harness, POOL } from './support/harness';

/**
 * Fault rules on the Compute slice's routes: the one fault engine decides, and the answer is rendered in
 * the envelope of the route's API. Compute's own errors carry the legacy envelope alone (no `status`, no
 * details); the container API's, google.rpc.Status; the statuses Google's front end answers before
 * Compute sees the request (401, 429) the front end's envelope.
 */
const ZONE = '/compute/v1/projects/p1/zones/us-central1-a';
const IGMS = `${ZONE}/instanceGroupManagers`;

describe('a fault rule on a Compute route', () => {
  let h: Harness;
  beforeEach(async () => {
    h = createHarness();
    await h.seedDefault();
  });
  afterEach(() => h.close());

  it("answers in Compute's envelope, and the same rule on a container method in google.rpc.Status", async () => {
    const rule = await h.addFault({
      match: { operation: ['compute.instanceGroupManagers.list', 'nodePools.get'] },
      effect: { error: { status: 'UNAVAILABLE' } },
    });
    const onCompute = await h.get(IGMS);
    expect(onCompute.status).toBe(503);
    expect(onCompute.headers.get('x-sim-reason')).toBe(`fault:${rule.id}`);
    expect(onCompute.body).toEqual({
      error: {
        code: 503,
        message: 'The service is currently unavailable.',
        errors: [
          { message: 'The service is currently unavailable.', domain: 'global', reason: 'backendError' },
        ],
      },
    });
    const onContainer = await h.get(POOL);
    expect(onContainer.status).toBe(503);
    expect(onContainer.body.error).toMatchObject({
      code: 503,
      status: 'UNAVAILABLE',
      details: [{ '@type': 'type.googleapis.com/google.rpc.RequestInfo' }],
    });
  });

  it("answers an injected 404 on a manager as Compute's notFound of that resource", async () => {
    await h.addFault({
      match: { operation: 'compute.instanceGroupManagers.get' },
      effect: { error: { status: 'NOT_FOUND' } },
    });
    const res = await h.get(`${IGMS}/gke-c1-np1-0000-grp`);
    const message =
      "The resource 'projects/p1/zones/us-central1-a/instanceGroupManagers/gke-c1-np1-0000-grp' was not found";
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { code: 404, message, errors: [{ message, domain: 'global', reason: 'notFound' }] },
    });
  });

  it("keeps a rule's own message and reason, Compute's 400 reason otherwise", async () => {
    await h.addFault({
      match: { operation: 'compute.instances.list' },
      effect: { error: { status: 'INVALID_ARGUMENT', message: 'Invalid value for field zone.' } },
      trigger: { times: 1 },
    });
    await h.addFault({
      match: { operation: 'compute.instances.list' },
      effect: { error: { status: 'INTERNAL', message: 'Internal error.', reason: 'internalError' } },
    });
    const invalid = await h.get(`${ZONE}/instances`);
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.errors).toEqual([
      { message: 'Invalid value for field zone.', domain: 'global', reason: 'invalid' },
    ]);
    const internal = await h.get(`${ZONE}/instances`);
    expect(internal.status).toBe(500);
    expect(internal.body.error).toEqual({
      code: 500,
      message: 'Internal error.',
      errors: [{ message: 'Internal error.', domain: 'global', reason: 'internalError' }],
    });
  });

  it("keeps the front end's envelope for a rate limit, answered before Compute sees the request", async () => {
    await h.addFault({
      match: { operation: 'compute.instanceGroupManagers.aggregatedList' },
      effect: { error: { status: 'RESOURCE_EXHAUSTED' } },
    });
    const res = await h.get('/compute/v1/projects/p1/aggregated/instanceGroupManagers');
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      errors: [{ domain: 'global', reason: 'rateLimitExceeded' }],
    });
    expect(JSON.stringify(res.body)).not.toContain('container');
  });

  it('renders a rule on a Compute method the simulator refuses in the same envelope', async () => {
    await h.addFault({
      match: { operation: 'compute.instanceGroupManagers.resize' },
      effect: { error: { status: 'ABORTED' } },
    });
    const res = await h.post(`${IGMS}/gke-x-grp/resize?size=3`, {});
    expect(res.status).toBe(409);
    expect(res.body.error.status).toBeUndefined();
    expect(res.body.error.errors[0]).toMatchObject({ domain: 'global', reason: 'aborted' });
  });
});

describe('a Terraform-style read through @googleapis/compute', () => {
  const simOf = useSocketSim(12, { seedEach: true });

  it("sees an injected 404 on instanceGroupManagers.get as Compute's notFound, the 404 the provider's read skips", async () => {
    const sim = simOf();
    const res = await sim.app.request('/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({
        match: { operation: 'compute.instanceGroupManagers.get' },
        effect: { error: { status: 'NOT_FOUND' } },
      }),
    });
    expect(res.status).toBe(201);
    const gce = compute({ version: 'v1', rootUrl: `${sim.url}/`, auth: fakeAuth() as never });
    const pool = (await (await sim.app.request(POOL, { headers: { authorization: 'Bearer t' } })).json()) as {
      instanceGroupUrls: string[];
    };
    const [, project, zone, name] = /projects\/([^/]+)\/zones\/([^/]+)\/instanceGroupManagers\/([^/]+)/.exec(
      pool.instanceGroupUrls[0] as string,
    ) as unknown as [string, string, string, string];
    type ClientError = { code?: number; response?: { data?: unknown } };
    const error = await gce.instanceGroupManagers.get({ project, zone, instanceGroupManager: name }).then(
      () => undefined,
      (e: ClientError) => e,
    );
    // The provider (<= 7.16) skips a URL whose get is a 404 (googleapi.IsGoogleAPIError with code 404).
    expect(error?.code).toBe(404);
    const message = `The resource 'projects/${project}/zones/${zone}/instanceGroupManagers/${name}' was not found`;
    expect(error?.response?.data).toEqual({
      error: { code: 404, message, errors: [{ message, domain: 'global', reason: 'notFound' }] },
    });
  });
});
