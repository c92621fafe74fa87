import type * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createSimKernel } from '../src/http/kernel';
import { isSecretField, redactJson, redactText } from '../src/http/redact';
import { formatRequestLog } from '../src/journal';
import { call } from './support/http';
import { createToySim, toyDefinition } from './support/toy-simulator';

// Records every comparison the guard makes, to show it goes through timingSafeEqual on digests.
const compared = vi.hoisted(() => [] as [number, number][]);
vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof crypto>();
  return {
    ...original,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return original.timingSafeEqual(a, b);
    },
  };
});

const TOKEN = 's3cret-admin-token';

describe('admin token', () => {
  it('is compared in constant time, as SHA-256 digests of equal length, whatever the length given', async () => {
    const { app } = createToySim({ adminToken: TOKEN });
    compared.length = 0;
    const tries = ['x', `${TOKEN.slice(0, -1)}X`, `${TOKEN}-and-more`, TOKEN];
    const statuses = [];
    for (const given of tries)
      statuses.push(
        (await call(app, 'GET', '/_sim/faults', undefined, { authorization: `Bearer ${given}` })).status,
      );
    statuses.push((await call(app, 'GET', '/_sim/faults', undefined, { 'x-sim-admin-token': TOKEN })).status);
    expect(statuses).toEqual([401, 401, 401, 200, 200]);
    expect(compared).toEqual(Array(5).fill([32, 32]));
    // No token given at all: refused without a comparison.
    expect((await call(app, 'GET', '/_sim/faults', undefined, { authorization: 'Basic abc' })).status).toBe(
      401,
    );
    expect(compared).toHaveLength(5);
  });

  it('never reaches the journal or the request log, nor does any Authorization value', async () => {
    const lines: string[] = [];
    const { app } = createToySim({
      adminToken: TOKEN,
      requestLog: (entry) => lines.push(formatRequestLog(entry), JSON.stringify(entry)),
    });
    const admin = { 'x-sim-admin-token': TOKEN };
    // Clients of the emulated API that send the admin token or credentials along.
    await call(
      app,
      'POST',
      '/widgets?access_token=query-secret&pageToken=p2',
      { name: 'a' },
      {
        ...admin,
        authorization: `Bearer ${TOKEN}`,
        'proxy-authorization': 'Basic cHJveHk6cHc=',
        'x-service-token': 'header-secret',
      },
    );
    await call(app, 'GET', '/widgets/a', undefined, { authorization: 'api-key-without-scheme' });
    // Control-plane calls are not journaled at all.
    await call(
      app,
      'POST',
      '/_sim/faults',
      { match: { operation: 'nothing' }, effect: { delay: '1s' } },
      admin,
    );
    const journal = await call(app, 'GET', '/_sim/journal', undefined, admin);
    expect(journal.body.entries).toHaveLength(2);
    const seen = `${journal.text}\n${lines.join('\n')}`;
    for (const secret of [TOKEN, 'cHJveHk6cHc=', 'header-secret', 'query-secret', 'api-key-without-scheme'])
      expect(seen).not.toContain(secret);
    const [first, second] = journal.body.entries;
    expect(first.headers).toMatchObject({
      authorization: 'Bearer [REDACTED]',
      'proxy-authorization': '[REDACTED]',
      'x-sim-admin-token': '[REDACTED]',
      'x-service-token': '[REDACTED]',
    });
    expect(first.query).toEqual({ access_token: '[REDACTED]', pageToken: 'p2' });
    expect(second.headers.authorization).toBe('[REDACTED]');
    expect(lines[0]).toMatch(/^\[default\] POST \/widgets\?access_token=%5BREDACTED%5D&pageToken=p2 201 /);
  });
});

describe('secret-looking body fields in the journal', () => {
  it('tells secret names from ordinary ones, without case, _ or -', () => {
    for (const name of [
      'secret',
      'password',
      'PASSWORD',
      'token',
      'access_token',
      'accessToken',
      'Refresh-Token',
      'client_secret',
      'clientSecret',
      'new_password1',
      'secret_key',
      'api_key',
      'passwd',
    ])
      expect(isSecretField(name), name).toBe(true);
    for (const name of ['pageToken', 'nextPageToken', 'key', 'name', 'tokens', 'maxPods', 'etag'])
      expect(isSecretField(name), name).toBe(false);
  });

  it('are redacted in request and response bodies of the entry, never in what the handler saw', async () => {
    const kernel = createToySim();
    const seenByHandler: unknown[] = [];
    kernel.app.post('/echo', kernel.operation('echo'), (c) => {
      seenByHandler.push(structuredClone(c.var.sim.json));
      return c.json(c.var.sim.json as object);
    });
    const body = {
      name: 'n',
      password: 'hunter2',
      Token: 12345,
      nested: { client_secret: 'cs', accessToken: 'at', deeper: [{ refresh_token: 'rt', color: 'red' }] },
      secretManagerConfig: { enabled: true },
      nextPageToken: 'page-2',
      secret: null,
    };
    const res = await call(kernel.app, 'POST', '/echo', body);
    // The client gets the handler's answer unchanged, and the handler saw the body as sent.
    expect(res.body).toEqual(body);
    expect(seenByHandler).toEqual([body]);
    const redacted = {
      ...body,
      password: '[REDACTED]',
      Token: '[REDACTED]',
      nested: {
        client_secret: '[REDACTED]',
        accessToken: '[REDACTED]',
        deeper: [{ refresh_token: '[REDACTED]', color: 'red' }],
      },
    };
    const [entry] = kernel.namespaces.get('default').journal.list();
    expect(entry?.requestBody).toEqual(redacted);
    expect(entry?.responseBody).toEqual(redacted);
    expect((await call(kernel.app, 'GET', '/_sim/journal')).text).not.toMatch(/hunter2|"cs"|"at"|"rt"|12345/);
  });

  it('are redacted in truncated previews and form bodies too', async () => {
    const kernel = createToySim({ journalBodyLimit: 100 });
    kernel.app.post('/token', kernel.operation('token'), (c) => c.text('ok'));
    await call(kernel.app, 'POST', '/token', {
      username: 'u',
      password: 'hunter2',
      padding: 'x'.repeat(500),
    });
    await call(
      kernel.app,
      'POST',
      '/token',
      'grant_type=password&username=u&password=hunter2&client_secret=s%3Dx',
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    const [json, form] = kernel.namespaces.get('default').journal.list();
    expect(json?.requestBody).toMatchObject({ truncated: true, size: expect.any(Number) });
    const preview = (json?.requestBody as { preview?: string } | undefined)?.preview;
    expect(preview).toContain('"password":"[REDACTED]"');
    expect(preview).not.toContain('hunter2');
    expect(form?.requestBody).toBe(
      'grant_type=password&username=u&password=[REDACTED]&client_secret=[REDACTED]',
    );
  });

  it("include the simulator's own names (sensitiveFields), in bodies and queries", async () => {
    const kernel = createSimKernel({ ...toyDefinition, sensitiveFields: ['Key', 'session_id'] });
    kernel.app.post('/login', kernel.operation('login'), (c) => c.json({ key: 'api-token-1', user: 'u' }));
    await call(kernel.app, 'POST', '/login?sessionId=s1&org=o', { username: 'u', 'session-id': 's2' });
    const [entry] = kernel.namespaces.get('default').journal.list();
    expect(entry?.responseBody).toEqual({ key: '[REDACTED]', user: 'u' });
    expect(entry?.requestBody).toEqual({ username: 'u', 'session-id': '[REDACTED]' });
    expect(entry?.query).toEqual({ sessionId: '[REDACTED]', org: 'o' });
    // Without them, `key` is an ordinary name (a taint's key, a label's key).
    const plain = createToySim();
    plain.app.post('/login', plain.operation('login'), (c) => c.json({ key: 'k' }));
    await call(plain.app, 'POST', '/login', {});
    expect(plain.namespaces.get('default').journal.list()[0]?.responseBody).toEqual({ key: 'k' });
  });

  it('are redacted in text cut inside a secret, and in JSON nested deeper than the stack', () => {
    expect(redactText('{"a":1,"password":"hunt')).toBe('{"a":1,"password":"[REDACTED]"');
    expect(redactText('{"note":"say \\"password\\": \\"x\\"","token": 42}')).toBe(
      '{"note":"say \\"password\\": \\"x\\"","token": "[REDACTED]"}',
    );
    let deep: Record<string, unknown> = { password: 'p' };
    for (let i = 0; i < 100_000; i++) deep = { child: deep };
    let node = redactJson(deep);
    while (node.child) node = node.child as Record<string, unknown>;
    expect(node).toEqual({ password: '[REDACTED]' });
  });
});
