import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, POOL } from './support/harness';

/**
 * OAuth scopes as each API's front end checks them: the scopes every method lists in its discovery
 * document (`@googleapis/container` 26.0.0, `@googleapis/compute` 42.0.0). Container: `cloud-platform`
 * and `container`, a read also `container.read-only`. Compute: `cloud-platform` and `compute`, a read
 * also `compute.readonly`. Neither lists `cloud-platform.read-only`.
 */
let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const SCOPE = 'https://www.googleapis.com/auth/';
/** One principal per scope, named after it, with every permission. */
const PRINCIPALS = Object.fromEntries(
  [
    'cloud-platform',
    'cloud-platform.read-only',
    'container',
    'container.read-only',
    'compute',
    'compute.readonly',
  ].map((scope) => [scope, { scopes: [`${SCOPE}${scope}`], permissions: ['*'] }]),
);

const ZONE = '/compute/v1/projects/p1/zones/us-central1-a';

/** The IGM path of the pool's first instanceGroupUrl, as the container API hands it out. */
async function igmPath(): Promise<string> {
  const url = (await h.get(POOL)).body.instanceGroupUrls[0] as string;
  return url.replace('https://www.googleapis.com', '');
}

describe("Compute's scopes", () => {
  it.each(['cloud-platform', 'compute', 'compute.readonly'])(
    'answers a read with a %s token',
    async (scope) => {
      await h.settings({ auth: { principals: PRINCIPALS } });
      const path = await igmPath();
      const got = await h.get(path, { token: scope });
      expect(got.status, got.text).toBe(200);
      expect((await h.get(`${ZONE}/instanceGroupManagers`, { token: scope })).status).toBe(200);
      const listed = await h.post(`${path}/listManagedInstances`, {}, { token: scope });
      expect(listed.status, listed.text).toBe(200);
    },
  );

  it.each(['container', 'container.read-only', 'cloud-platform.read-only'])(
    'answers a read with a %s token with the front end 403 naming the Compute method',
    async (scope) => {
      await h.settings({ auth: { principals: PRINCIPALS } });
      const path = await igmPath();
      const res = await h.get(path, { token: scope });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: {
          code: 403,
          message: 'Request had insufficient authentication scopes.',
          errors: [
            { message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' },
          ],
          status: 'PERMISSION_DENIED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
              domain: 'googleapis.com',
              metadata: {
                service: 'compute.googleapis.com',
                method: 'compute.v1.InstanceGroupManagersService.Get',
              },
            },
          ],
        },
      });
    },
  );

  it('checks the scope before answering a write it does not simulate: compute.readonly cannot resize', async () => {
    await h.settings({ auth: { principals: PRINCIPALS } });
    const resize = `${ZONE}/instanceGroupManagers/gke-x-grp/resize?size=3`;
    const readonly = await h.post(resize, {}, { token: 'compute.readonly' });
    expect(readonly.status).toBe(403);
    expect(readonly.body.error.details[0].reason).toBe('ACCESS_TOKEN_SCOPE_INSUFFICIENT');
    const full = await h.post(resize, {}, { token: 'compute' });
    expect(full.status).toBe(501);
    expect(full.body.error.message).toContain('compute.instanceGroupManagers.resize');
  });
});

describe("the container API's scopes", () => {
  it.each(['cloud-platform', 'container', 'container.read-only'])(
    'answers a read with a %s token',
    async (scope) => {
      await h.settings({ auth: { principals: PRINCIPALS } });
      const res = await h.get(POOL, { token: scope });
      expect(res.status, res.text).toBe(200);
    },
  );

  it.each(['cloud-platform.read-only', 'compute', 'compute.readonly'])(
    'refuses a read with a %s token with ACCESS_TOKEN_SCOPE_INSUFFICIENT',
    async (scope) => {
      await h.settings({ auth: { principals: PRINCIPALS } });
      const res = await h.get(POOL, { token: scope });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        message: 'Request had insufficient authentication scopes.',
        details: [
          {
            reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
            metadata: { service: 'container.googleapis.com' },
          },
        ],
      });
    },
  );

  it('refuses a write with a container.read-only token', async () => {
    await h.settings({ auth: { principals: PRINCIPALS } });
    const res = await h.put(POOL, { nodeVersion: '-' }, { token: 'container.read-only' });
    expect(res.status).toBe(403);
    expect(res.body.error.details[0].reason).toBe('ACCESS_TOKEN_SCOPE_INSUFFICIENT');
    expect((await h.put(POOL, { nodeVersion: '-' }, { token: 'container' })).status).toBe(200);
  });
});
