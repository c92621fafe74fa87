import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, LOC, OPS, POOL, ZONE } from './support/harness';

const REQUEST_INFO = {
  '@type': 'type.googleapis.com/google.rpc.RequestInfo',
  requestId: expect.stringMatching(/^0x[0-9a-f]{16}$/),
};
const CLOUD = 'https://www.googleapis.com/auth/cloud-platform';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

/** Every route of the emulated API, for the checks every route must pass. */
const ROUTES: [string, string, unknown?][] = [
  ['GET', POOL],
  ['PUT', POOL, { nodeVersion: '-' }],
  ['DELETE', POOL],
  ['GET', `${CLUSTER}/nodePools`],
  ['POST', `${CLUSTER}/nodePools`, { nodePool: { name: 'x' } }],
  ['GET', CLUSTER],
  ['DELETE', CLUSTER],
  ['GET', `${LOC}/clusters`],
  ['POST', `${LOC}/clusters`, { cluster: { name: 'x' } }],
  ['GET', `${OPS}/operation-1767225600000-abc`],
  ['POST', `${OPS}/operation-1767225600000-abc:cancel`, {}],
  ['GET', OPS],
  ['GET', `${LOC}/serverConfig`],
  ['POST', `${ZONE}/clusters/c1/nodePools/np1/update`, { nodeVersion: '-' }],
  ['GET', `${ZONE}/serverconfig`],
];

describe('the error envelope', () => {
  it('answers an unknown cluster with 404 and the zones/ form of the name for a zone', async () => {
    const res = await h.get(`${LOC}/clusters/nope/nodePools/np1`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(res.body).toEqual({
      error: {
        code: 404,
        message: 'Not found: projects/p1/zones/us-central1-a/clusters/nope.',
        errors: [
          {
            message: 'Not found: projects/p1/zones/us-central1-a/clusters/nope.',
            domain: 'global',
            reason: 'notFound',
          },
        ],
        status: 'NOT_FOUND',
      },
    });
  });

  it('uses the locations/ form for a regional cluster', async () => {
    const res = await h.get('/v1beta1/projects/p1/locations/us-central1/clusters/nope');
    expect(res.body.error.message).toBe('Not found: projects/p1/locations/us-central1/clusters/nope.');
  });

  it('answers an unknown pool with the real node pool text', async () => {
    const res = await h.get(`${CLUSTER}/nodePools/ghost`);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('Not found: node pool "ghost" not found.');
  });

  it('answers an unknown route with the Google 404 shape', async () => {
    const res = await h.get('/v1beta1/projects/p1/locations/us-central1-a/widgets');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(res.body.error).toMatchObject({
      code: 404,
      status: 'NOT_FOUND',
      errors: [{ reason: 'notFound' }],
    });
  });

  it('maps every injected status to its HTTP code with errors[0].message equal to message', async () => {
    const expected: Record<string, number> = {
      ABORTED: 409,
      FAILED_PRECONDITION: 400,
      INVALID_ARGUMENT: 400,
      NOT_FOUND: 404,
      PERMISSION_DENIED: 403,
      UNAUTHENTICATED: 401,
      RESOURCE_EXHAUSTED: 429,
      UNAVAILABLE: 503,
      DEADLINE_EXCEEDED: 504,
      INTERNAL: 500,
      ALREADY_EXISTS: 409,
    };
    for (const [status, http] of Object.entries(expected)) {
      await h.addFault({
        match: { operation: 'nodePools.get' },
        trigger: { times: 1 },
        effect: { error: { status } },
      });
      const res = await h.get(POOL);
      expect.soft(res.status, status).toBe(http);
      expect.soft(res.body.error.status).toBe(status);
      expect.soft(res.body.error.code).toBe(http);
      expect.soft(res.body.error.errors[0].message).toBe(res.body.error.message);
      expect.soft(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    }
    const unavailable = await (async () => {
      await h.addFault({
        match: { operation: 'nodePools.get' },
        trigger: { times: 1 },
        effect: { error: { status: 'UNAVAILABLE' } },
      });
      return h.get(POOL);
    })();
    expect(unavailable.body.error.message).toBe('The service is currently unavailable.');
    expect(unavailable.body.error.details).toEqual([REQUEST_INFO]);
  });
});

describe('every route addressing a missing cluster', () => {
  const MISSING: [string, string, unknown?][] = [
    ['GET', `${LOC}/clusters/ghost/nodePools/np1`],
    ['PUT', `${LOC}/clusters/ghost/nodePools/np1`, { nodeVersion: '-' }],
    ['DELETE', `${LOC}/clusters/ghost/nodePools/np1`],
    ['GET', `${LOC}/clusters/ghost/nodePools`],
    ['POST', `${LOC}/clusters/ghost/nodePools`, { nodePool: { name: 'x' } }],
    ['GET', `${LOC}/clusters/ghost`],
    ['DELETE', `${LOC}/clusters/ghost`],
    ['POST', `${ZONE}/clusters/ghost/nodePools/np1/update`, { nodeVersion: '-' }],
    ['GET', `${ZONE}/clusters/ghost/nodePools/np1`],
  ];
  it.each(MISSING)('answers %s %s with the Google 404 shape', async (method, path, body) => {
    const res = await h.request(method, path, { body });
    expect(res.status, res.text).toBe(404);
    const message = 'Not found: projects/p1/zones/us-central1-a/clusters/ghost.';
    expect(res.body).toEqual({
      error: {
        code: 404,
        message,
        errors: [{ message, domain: 'global', reason: 'notFound' }],
        status: 'NOT_FOUND',
      },
    });
  });
});

describe('authentication and authorisation', () => {
  it.each(ROUTES)(
    'answers %s %s without credentials with 401 CREDENTIALS_MISSING',
    async (method, path, body) => {
      const res = await h.request(method, path, { token: null, body });
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toMatchObject({
        code: 401,
        status: 'UNAUTHENTICATED',
        message:
          'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        errors: [
          {
            message: 'Login Required.',
            domain: 'global',
            reason: 'required',
            location: 'Authorization',
            locationType: 'header',
          },
        ],
      });
      expect(res.body.error.details[0]).toMatchObject({
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'CREDENTIALS_MISSING',
        domain: 'googleapis.com',
        metadata: { service: 'container.googleapis.com' },
      });
    },
  );

  it('names the RPC in ErrorInfo metadata', async () => {
    const res = await h.put(POOL, { nodeVersion: '-' }, { token: null });
    expect(res.body.error.details[0].metadata.method).toBe(
      'google.container.v1beta1.ClusterManager.UpdateNodePool',
    );
  });

  it('accepts any bearer token by default', async () => {
    expect((await h.get(POOL, { token: 'whatever' })).status).toBe(200);
  });

  it('answers a rejected token with 401 and its ErrorInfo reason', async () => {
    await h.settings({ auth: { rejectedTokens: { old: 'ACCESS_TOKEN_EXPIRED' } } });
    const res = await h.get(POOL, { token: 'old' });
    expect(res.status).toBe(401);
    expect(res.body.error.errors[0]).toEqual({
      message: 'Invalid Credentials',
      domain: 'global',
      reason: 'authError',
      location: 'Authorization',
      locationType: 'header',
    });
    expect(res.body.error.details[0].reason).toBe('ACCESS_TOKEN_EXPIRED');
    expect(res.body.error.message).toMatch(/^Request had invalid authentication credentials\./);
  });

  it('answers a token without the cloud-platform scope with 403 ACCESS_TOKEN_SCOPE_INSUFFICIENT', async () => {
    await h.settings({
      auth: {
        principals: {
          narrow: { scopes: ['https://www.googleapis.com/auth/userinfo.email'], permissions: ['*'] },
        },
      },
    });
    const res = await h.get(POOL, { token: 'narrow' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      status: 'PERMISSION_DENIED',
      message: 'Request had insufficient authentication scopes.',
      errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
      details: [{ reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', domain: 'googleapis.com' }],
    });
  });

  it('answers a principal without container.clusters.update with 403 and the real text', async () => {
    await h.settings({
      auth: {
        principals: {
          viewer: { scopes: [CLOUD], permissions: ['container.clusters.get', 'container.operations.*'] },
        },
      },
    });
    expect((await h.get(POOL, { token: 'viewer' })).status).toBe(200);
    const res = await h.put(POOL, { nodeVersion: '-' }, { token: 'viewer' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      status: 'PERMISSION_DENIED',
      message:
        'Required "container.clusters.update" permission(s) for "projects/p1/locations/us-central1-a/clusters/c1".',
      errors: [{ reason: 'forbidden' }],
    });
  });

  it('scopes permissions to resources', async () => {
    await h.seed({ clusters: [aCluster('c2').build()] });
    await h.settings({
      auth: {
        principals: {
          scoped: {
            scopes: [CLOUD],
            permissions: ['container.clusters.*@projects/p1/*/us-central1-a/clusters/c2'],
          },
        },
      },
    });
    expect((await h.get(`${LOC}/clusters/c2`, { token: 'scoped' })).status).toBe(200);
    expect((await h.get(CLUSTER, { token: 'scoped' })).status).toBe(403);
  });
});

describe('request parsing', () => {
  it('accepts snake_case names, numeric enums and int64 numbers like the front end', async () => {
    const res = await h.put(POOL, {
      node_version: '-',
      upgrade_settings: { max_surge: 2, strategy: 3 },
      taints: { taints: [{ key: 'k', value: 'v', effect: 1 }] },
      disk_size_gb: 150,
      kubelet_config: { pod_pids_limit: 1024 },
    });
    expect(res.status, res.text).toBe(200);
    await h.advance('2s');
    const pool = (await h.get(POOL)).body;
    expect(pool.upgradeSettings).toEqual({ maxSurge: 2, strategy: 'SURGE' });
    expect(pool.config.taints).toEqual([{ key: 'k', value: 'v', effect: 'NO_SCHEDULE' }]);
    expect(pool.config.diskSizeGb).toBe(150);
    expect(pool.config.kubeletConfig.podPidsLimit).toBe('1024');
  });

  it('ignores $alt, alt, prettyPrint, key and x-goog-* headers', async () => {
    const res = await h.request(
      'PUT',
      `${POOL}?$alt=json%3Benum-encoding%3Dint&alt=json&prettyPrint=false&key=k`,
      {
        body: { nodeVersion: '-' },
        headers: {
          'x-goog-api-client': 'gax/5.0.8',
          'x-goog-request-params': 'name=x',
          'x-goog-user-project': 'p1',
        },
      },
    );
    expect(res.status, res.text).toBe(200);
  });

  it('rejects an unknown field with 400 and a BadRequest detail', async () => {
    const res = await h.put(POOL, { nodeVersion: '-', nodeVersoin: '1.33' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 400,
        message: 'Invalid JSON payload received. Unknown name "nodeVersoin": Cannot find field.',
        errors: [
          {
            message: 'Invalid JSON payload received. Unknown name "nodeVersoin": Cannot find field.',
            domain: 'global',
            reason: 'badRequest',
          },
        ],
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [
              {
                description: 'Invalid JSON payload received. Unknown name "nodeVersoin": Cannot find field.',
              },
            ],
          },
        ],
      },
    });
  });

  it('names the parent of a nested unknown field', async () => {
    const res = await h.put(POOL, { upgradeSettings: { maxSurge: 1, surge: 2 } });
    expect(res.body.error.message).toBe(
      `Invalid JSON payload received. Unknown name "surge" at 'upgrade_settings': Cannot find field.`,
    );
  });

  it('ignores unknown fields when strictness is off', async () => {
    await h.settings({ strictUnknownFields: false });
    const res = await h.put(POOL, { nodeVersion: '-', newerClientField: { x: 1 } });
    expect(res.status, res.text).toBe(200);
  });

  it('type-checks fields: maxRunDuration as a Duration, diskSizeGb as int64, enums by name', async () => {
    const cases: [unknown, string][] = [
      [
        { maxRunDuration: '1h' },
        `Invalid value at 'max_run_duration' (type.googleapis.com/google.protobuf.Duration), "1h"`,
      ],
      [{ diskSizeGb: 'big' }, `Invalid value at 'disk_size_gb' (TYPE_INT64), "big"`],
      [{ nodeVersion: 133 }, `Invalid value at 'node_version' (TYPE_STRING), 133`],
      [
        { upgradeSettings: { strategy: 'FAST' } },
        `Invalid value at 'upgrade_settings.strategy' (type.googleapis.com/google.container.v1beta1.NodePoolUpdateStrategy), "FAST"`,
      ],
      [{ flexStart: 'yes' }, `Invalid value at 'flex_start' (TYPE_BOOL), "yes"`],
      [
        { taints: { taints: [{ effect: 9 }] } },
        `Invalid value at 'taints.taints[0].effect' (type.googleapis.com/google.container.v1beta1.NodeTaint.Effect), 9`,
      ],
      [
        { upgradeSettings: { maxSurge: 1.5 } },
        `Invalid value at 'upgrade_settings.max_surge' (TYPE_INT32), 1.5`,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await h.put(POOL, body);
      expect.soft(res.status, JSON.stringify(body)).toBe(400);
      expect.soft(res.body.error?.message).toBe(message);
    }
    expect((await h.put(POOL, { maxRunDuration: '0.5s' })).status).toBe(200);
  });

  it('rejects malformed JSON with 400 INVALID_ARGUMENT', async () => {
    const res = await h.request('PUT', POOL, { body: '{"nodeVersion": ', headers: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.message).toMatch(/^Invalid JSON payload received\./);
  });

  it('rejects unknown query parameters like the front end', async () => {
    const res = await h.get(`${POOL}?verbose=1`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('Unknown name "verbose": Cannot bind query parameter.');
  });

  it('rejects a regional cluster addressed through the legacy zones path', async () => {
    await h.seed({ clusters: [aCluster('r1').inLocation('us-central1').build()] });
    const res = await h.get('/v1beta1/projects/p1/zones/us-central1/clusters/r1');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      "'zone' field cannot be used to access GKE regional clusters. Use 'name' field instead.",
    );
  });
});

describe('responses', () => {
  it('use string enums, int64 strings and camelCase, omitting default scalars', async () => {
    const pool = (await h.get(POOL)).body;
    expect(pool.status).toBe('RUNNING');
    expect(pool.maxPodsConstraint).toEqual({ maxPodsPerNode: '110' });
    expect(pool.config.bootDisk.sizeGb).toBe('100');
    expect(pool.config.diskSizeGb).toBe(100);
    expect(pool.upgradeSettings).toEqual({ maxSurge: 1, strategy: 'SURGE' });
    expect(pool.autoscaling).toBeUndefined();
    expect(pool.statusMessage).toBeUndefined();
    expect(JSON.stringify(pool)).not.toMatch(/"[a-z]+_[a-z_]+":/);
  });
});

describe('numeric enums', () => {
  it('answers enum numbers when the client asks for $alt=json;enum-encoding=int', async () => {
    const pool = (await h.get(`${POOL}?$alt=json%3Benum-encoding%3Dint`)).body;
    expect(pool.status).toBe(2);
    expect(pool.upgradeSettings.strategy).toBe(3);
    expect(pool.config.effectiveCgroupMode).toBe(2);
    const op = (await h.put(`${POOL}?$alt=json%3Benum-encoding%3Dint`, { nodeVersion: '-' })).body;
    expect(op).toMatchObject({ status: 1, operationType: 4 });
  });
});
