import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf } from '../src/domain/requests/state';
import { CVAT_JSON } from '../src/http/respond';
import { createHarness, type Harness, TEAM } from './support/harness';

/**
 * The JSON budget (chosen; FIDELITY.md, Limits): CVAT parses any JSON body up to its 100 MB limit; the
 * simulator parses 16 MiB and a million values at most and answers past them as DRF answers JSON its
 * parser refuses. Files in multipart uploads keep the 100 MiB limit and are never decoded.
 */
let h: Harness;
afterEach(() => h?.close());

const MiB = 1024 * 1024;

function world() {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p' }],
  });
}

const json = { 'content-type': 'application/json' };
/** `[{"a":1},…]` with more than a million values (three an object). */
const manyValues = `[${'{"a":1},'.repeat(340_000)}{"a":1}]`;

describe('a JSON body past the budget', () => {
  it('is DRF’s 400 parse error when it holds more than a million values, and nothing is created', async () => {
    world();
    const before = (await h.get('/api/projects', { as: 'admin' })).body.count;
    const res = await h.request('POST', '/api/projects', { as: 'admin', raw: manyValues, headers: json });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe(CVAT_JSON);
    expect(res.body).toEqual({
      detail: "JSON parse error - JSON body with more than 1000000 values (the simulator's limit)",
    });
    expect((await h.get('/api/projects', { as: 'admin' })).body.count).toBe(before);
  });

  it('is the same 400 past 16 MiB, and a body within both is parsed', async () => {
    world();
    const long = `{"name":"${'x'.repeat(16 * MiB)}"}`;
    const res = await h.request('POST', '/api/projects', { as: 'admin', raw: long, headers: json });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: "JSON parse error - JSON body larger than 16777216 bytes (the simulator's limit)",
    });
    // Within the budget the body is read: DRF's own message about the name.
    const within = `{"name":"${'x'.repeat(16 * MiB - 100)}"}`;
    const parsed = await h.request('POST', '/api/projects', { as: 'admin', raw: within, headers: json });
    expect(parsed.status).toBe(400);
    expect(parsed.body.name).toEqual(['Ensure this field has no more than 256 characters.']);
  });

  it('is the same 400 from the events API', async () => {
    world();
    const res = await h.request('POST', '/api/events', { as: 'admin', raw: manyValues, headers: json });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: "JSON parse error - JSON body with more than 1000000 values (the simulator's limit)",
    });
  });

  it('keeps the answers to other content types: 415 unread, an empty one as no body', async () => {
    world();
    const text = { 'content-type': 'text/plain' };
    const refused = await h.request('POST', '/api/projects', {
      as: 'admin',
      raw: '{"name":"p"}',
      headers: text,
    });
    expect(refused.status).toBe(415);
    expect(refused.body).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
    const events = await h.request('POST', '/api/events', { as: 'admin', raw: manyValues, headers: text });
    expect(events.status).toBe(415);
    const blank = await h.request('POST', '/api/projects', { as: 'admin', raw: ' \r\n', headers: text });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ name: ['This field is required.'] });
  });
});

describe('event payloads', () => {
  const event = (payload: string) => ({
    scope: 'send:exception',
    timestamp: '2026-01-01T00:00:00Z',
    payload,
  });
  const send = (...payloads: string[]) =>
    h.post(
      '/api/events',
      { events: payloads.map(event), timestamp: '2026-01-01T00:00:00Z' },
      { as: 'admin' },
    );

  it('are refused past 200,000 values in one request, before they are parsed', async () => {
    world();
    const numbers = (n: number) => `[${'1,'.repeat(n - 2)}1]`;
    for (const res of [await send(numbers(200_001)), await send(numbers(100_000), numbers(100_002))]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        payload:
          "JSON payloads with more than 200000 values in one request are not supported (the simulator's limit)",
      });
    }
    expect((await send(numbers(100_000), numbers(100_000))).status).toBe(201);
  });
});

describe('a multipart upload', () => {
  it('is read as bytes: a binary file is measured in bytes, not as decoded text', async () => {
    world();
    const file = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xc3, 0x28]), randomBytes(1000)]);
    const boundary = 'XyZ';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="client_files[0]"; filename="a.jpg"\r\n` +
          'Content-Type: image/jpeg\r\n\r\n',
      ),
      file,
      Buffer.from(
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\né\r\n--${boundary}--\r\n`,
      ),
    ]);
    const auth = `Basic ${Buffer.from('alice:password').toString('base64')}`;
    const send = (headers: Record<string, string>, payload?: Buffer) =>
      h.sim.app.request('http://localhost/api/tasks/1/data/?org=acme', {
        method: 'POST',
        headers: { authorization: auth, ...headers },
        body: payload,
      });
    expect((await send({ 'upload-start': '' })).status).toBe(202);
    const res = await send(
      { 'upload-multiple': '', 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    );
    expect(res.status).toBe(200);
    expect(requestsOf(h.state()).uploads.get(1)?.files).toEqual([{ name: 'a.jpg', size: file.length }]);
  });
});
