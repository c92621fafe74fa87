import { About, DatasetFormats, Plugins } from '@sims/annotation-schema';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { TEAM } from './support/harness';

/**
 * `/api/server/*` as CVAT 2.73's ServerViewSet answers it, CVAT's own REST tests of it
 * (tests/python/rest_api/test_server.py) among them, and the flow of CVAT's SDK when a client is made.
 * They run against the built CLI (support/cli-harness.ts): one process for the file, a namespace a test.
 */
const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
  await h.seed({
    ...TEAM,
    tasks: [{ name: 'exported', owner: 'alice', size: 4, segment_size: 2 }],
  });
});

describe('GET /api/server/about', () => {
  it('answers anyone with CVAT 2.73.0 in the About shape (CVAT: test_can_retrieve_about_unauthenticated)', async () => {
    const res = await h.get('/api/server/about');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.cvat+json');
    expect(Object.keys(res.body)).toEqual(['name', 'description', 'version', 'logo_url', 'subtitle']);
    expect(About.strict().parse(res.body)).toEqual({
      name: 'Computer Vision Annotation Tool',
      description: expect.stringMatching(
        /^CVAT is completely re-designed and re-implemented version of Video/,
      ),
      version: '2.73.0',
      logo_url: `${h.url}/static/logo.svg`,
      subtitle: 'Open Data Annotation Platform',
    });
    expect(await h.lastOperation()).toBe('server.retrieve_about');
  });

  it('still refuses credentials that are wrong, as DRF authenticates every request', async () => {
    const res = await h.get('/api/server/about', { token: 'not-a-token' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid token.' });
  });

  it("links its logo under the request's host and namespace", async () => {
    const res = await h.get('/_ns/other/api/server/about', { headers: { host: 'cvat.example:8080' } });
    expect(res.body.logo_url).toBe('http://cvat.example:8080/_ns/other/static/logo.svg');
  });
});

describe('GET /api/server/annotation/formats', () => {
  it('needs credentials', async () => {
    const res = await h.get('/api/server/annotation/formats');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('lists the importers and exporters the simulator reads and writes (CVAT: test_can_retrieve_formats)', async () => {
    const res = await h.get('/api/server/annotation/formats', { as: 'dave' });
    expect(res.status).toBe(200);
    const body = DatasetFormats.strict().parse(res.body);
    // CVAT's test: both lists are not empty. CVAT 1.1 reads the files of both CVAT XML exporters.
    expect(body.importers).toContainEqual({
      name: 'CVAT 1.1',
      ext: 'XML, ZIP',
      version: '1.1',
      enabled: true,
      dimension: '2d',
    });
    expect(body).toEqual({
      importers: body.importers,
      exporters: [
        { name: 'CVAT for images 1.1', ext: 'ZIP', version: '1.1', enabled: true, dimension: '2d' },
        { name: 'CVAT for video 1.1', ext: 'ZIP', version: '1.1', enabled: true, dimension: '2d' },
        { name: 'COCO 1.0', ext: 'ZIP', version: '1.0', enabled: true, dimension: '2d' },
        { name: 'YOLO 1.1', ext: 'ZIP', version: '1.1', enabled: true, dimension: '2d' },
        {
          name: 'Ultralytics YOLO Detection 1.0',
          ext: 'ZIP',
          version: '1.0',
          enabled: true,
          dimension: '2d',
        },
        { name: 'PASCAL VOC 1.1', ext: 'ZIP', version: '1.1', enabled: true, dimension: '2d' },
        { name: 'COCO Keypoints 1.0', ext: 'ZIP', version: '1.0', enabled: true, dimension: '2d' },
        { name: 'Datumaro 1.0', ext: 'ZIP', version: '1.0', enabled: true, dimension: '2d' },
      ],
    });
    expect(Object.keys(res.body.exporters[0])).toEqual(['name', 'ext', 'version', 'enabled', 'dimension']);
    expect(await h.lastOperation()).toBe('server.retrieve_annotation_formats');
  });

  it('lists exactly the formats an export request takes', async () => {
    const { exporters } = (await h.get('/api/server/annotation/formats', { as: 'alice' })).body as {
      exporters: { name: string }[];
    };
    for (const { name } of exporters) {
      const res = await h.post(`/api/tasks/1/dataset/export?format=${encodeURIComponent(name)}`, undefined, {
        as: 'alice',
      });
      expect(res.status, `${name}: ${res.text}`).toBe(202);
    }
    const unlisted = await h.post('/api/tasks/1/dataset/export?format=LabelMe%203.0', undefined, {
      as: 'alice',
    });
    expect(unlisted.status).toBe(400);
    expect(unlisted.body).toEqual(['Unknown format specified for the request']);
  });

  it('answers another method with 405 (CVAT: test_method_not_allowed_for_existing_route)', async () => {
    const res = await h.put('/api/server/annotation/formats', undefined, { as: 'admin' });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method "PUT" not allowed.' });
  });
});

describe('GET /api/server/plugins', () => {
  it("answers a plain CVAT's plugins to any user", async () => {
    const res = await h.get('/api/server/plugins', { as: 'wanda' });
    expect(res.status).toBe(200);
    expect(Plugins.strict().parse(res.body)).toEqual({ ANALYTICS: false, MODELS: false });
  });

  it('needs credentials', async () => {
    expect((await h.get('/api/server/plugins')).status).toBe(401);
  });
});

describe('GET /api/server/share', () => {
  it('lists an empty share at its root', async () => {
    for (const query of ['', '?directory=/', '?directory=', '?directory=.', '?directory=/./'])
      expect((await h.get(`/api/server/share${query}`, { as: 'alice' })).body, query).toEqual([]);
    expect(await h.lastOperation()).toBe('server.list_share');
  });

  it('answers any other directory with the bare string CVAT sends', async () => {
    const cases: [string, string][] = [
      ['/images', 'images'],
      ['images/', 'images/'],
      ['//etc', '/etc'],
      ['..', '..'],
    ];
    for (const [directory, named] of cases) {
      const res = await h.get(`/api/server/share?directory=${encodeURIComponent(directory)}`, {
        as: 'admin',
      });
      expect(res.status, directory).toBe(400);
      expect(res.body, directory).toBe(`${named} is an invalid directory`);
    }
  });

  it('is for privilege user or admin: a worker gets 403, no credentials 401', async () => {
    const worker = await h.get('/api/server/share', { as: 'wanda' });
    expect(worker.status).toBe(403);
    expect(worker.body).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect((await h.get('/api/server/share')).status).toBe(401);
  });
});

describe("CVAT's SDK making a client (cvat_sdk.core.client.Client) against the CLI", () => {
  it('detects the scheme, checks the server version, logs in and calls with its token', async () => {
    // The SDK's own requests, with no namespace header: the CLI's default world, its admin seeded.
    const cli = { url: h.url };
    // The generated API client's headers for a JSON operation.
    const headers = { accept: 'application/vnd.cvat+json', 'user-agent': 'cvat_sdk/2.73.0' };
    // `_detect_schema`: GET about without credentials; 200 or 401 means "this scheme is CVAT".
    const probe = await fetch(`${cli.url}/api/server/about`, { headers });
    expect([200, 401]).toContain(probe.status);
    // `check_server_version`: about's version must be ~= the SDK's major.minor (2.73 or 2.74).
    const about = (await probe.json()) as { version: string };
    const [major, minor] = about.version.split('.').map(Number);
    expect([major, minor]).toEqual([2, 73]);
    // `login`: the token, and both cookies the SDK asserts.
    const login = await fetch(`${cli.url}/api/auth/login`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'admin' }),
    });
    expect(login.status).toBe(200);
    const cookies = login.headers.getSetCookie().map((c) => c.split('=')[0]);
    expect(cookies).toEqual(expect.arrayContaining(['sessionid', 'csrftoken']));
    const { key } = (await login.json()) as { key: string };
    const self = await fetch(`${cli.url}/api/users/self`, {
      headers: { ...headers, authorization: `Token ${key}` },
    });
    expect(self.status).toBe(200);
    expect(((await self.json()) as { username: string }).username).toBe('admin');
  });
});
