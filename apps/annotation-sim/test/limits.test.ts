import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';

/**
 * Limits as CVAT has them: a request body past DATA_UPLOAD_MAX_MEMORY_SIZE (100 MB) gets Django's 400 page
 * without being read on; JSON nested past Python's recursion limit is the RecursionError Django answers
 * with its 500 page, said so in X-Sim-Reason.
 */
let h: Harness;
afterEach(() => h?.close());

const LIMIT = 100 * 1024 * 1024;

function setup() {
  h = createHarness();
  h.seed({ ...TEAM, projects: [{ name: 'p', owner: 'bob' }] });
}

async function post(
  path: string,
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
) {
  const auth = `Basic ${Buffer.from('bob:password').toString('base64')}`;
  const res = await h.sim.app.request(`http://localhost${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json', ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('request body limits', () => {
  it('answers a body past 100 MB with Django 400 page from its Content-Length, unread', async () => {
    setup();
    const res = await post('/api/projects', '{}', { 'content-length': String(LIMIT + 1) });
    expect(res.status).toBe(400);
    expect(res.text).toContain('<title>Bad Request (400)</title>');
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(res.headers.get('connection')).toBe('close');
  });

  it('keeps nothing past the limit: the rest is dropped up to 400 MiB, then the stream is cut', async () => {
    setup();
    let pulled = 0;
    const chunk = new Uint8Array(8 * 1024 * 1024).fill(0x20);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled > 80) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await post('/api/projects', stream);
    expect(res.status).toBe(400);
    expect(pulled).toBeGreaterThan(13);
    expect(pulled).toBeLessThanOrEqual(52);
  });
});

describe('deeply nested JSON', () => {
  it('is the RecursionError CVAT fails with: Django 500 page with X-Sim-Reason, nothing created', async () => {
    setup();
    const before = await h.get('/api/projects', { as: 'bob' });
    for (const depth of [1_001, 100_000]) {
      const res = await post(
        '/api/projects',
        `{"name":"p2","labels":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      );
      expect(res.status).toBe(500);
      expect(res.text).toContain('<title>Server Error (500)</title>');
      expect(res.headers.get('x-sim-reason')).toMatch(/^RecursionError/);
    }
    const events = await post('/api/events', `{"events":${'['.repeat(2_000)}${']'.repeat(2_000)}}`);
    expect(events.status).toBe(500);
    expect(events.headers.get('x-sim-reason')).toMatch(/^RecursionError/);
    expect((await h.get('/api/projects', { as: 'bob' })).body.count).toBe(before.body.count);
  });

  it('parses what Python parses: 900 levels are a validation error, not a 500', async () => {
    setup();
    const res = await post('/api/projects', `{"name":${'['.repeat(900)}${']'.repeat(900)}}`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ name: ['Not a valid string.'] });
  });
});

describe('hostile query values', () => {
  it('takes Object member names as the unknown sort keys they are', async () => {
    setup();
    for (const sort of ['__defineGetter__', 'constructor', '-toString', '__proto__']) {
      const res = await h.get(`/api/projects?sort=${sort}`, { as: 'bob' });
      expect(res.status, sort).toBe(200);
    }
  });

  it('says why in a header any client can read, whatever characters the input had', async () => {
    setup();
    const res = await h.get('/api/projects?org_id=%C4%80%F0%9F%98%80', { as: 'bob' });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-sim-reason')).toBe('invalid literal for int(): \\u0100\\ud83d\\ude00');
  });
});

describe('echoes', () => {
  it('cuts a refused value DRF would quote whole at 1,000 characters', async () => {
    setup();
    const huge = 'x'.repeat(2_000_000);
    const res = await post(
      '/api/webhooks',
      JSON.stringify({
        target_url: 'http://127.0.0.1/h',
        type: 'project',
        project_id: 1,
        content_type: huge,
        events: [huge],
      }),
    );
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(10_000);
    expect(res.text).toContain('…');
  });
});
