import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from '../src/http/serve';
import { call } from './support/http';
import { createToySim } from './support/toy-simulator';

const START = '2026-01-01T00:00:00.000Z';
const manual = () => createToySim({ seed: 7, clock: { mode: 'manual', start: START } });
const addRule = (app: ReturnType<typeof manual>['app'], rule: unknown, ns?: string) =>
  call(app, 'POST', '/_sim/faults', rule, ns ? { 'x-sim-namespace': ns } : {});

describe('fault phases and effects', () => {
  it('before: the request is not applied and the error is rendered in the API envelope', async () => {
    const { app } = manual();
    await addRule(app, {
      match: { operation: 'widgets.create' },
      trigger: { times: 1 },
      effect: { error: { status: 'BUSY', message: 'try later' } },
    });
    const res = await call(app, 'POST', '/widgets', { name: 'a' });
    expect(res).toMatchObject({ status: 503, body: { fault: 'BUSY', message: 'try later' } });
    expect((await call(app, 'GET', '/widgets/a')).status).toBe(404);
  });

  it('after: the request is applied, then the response is replaced', async () => {
    const { app } = manual();
    await addRule(app, {
      match: { operation: 'widgets.create' },
      phase: 'after',
      effect: { http: { status: 502, body: { oops: true } } },
    });
    const res = await call(app, 'POST', '/widgets', { name: 'a', color: 'red' });
    expect(res).toMatchObject({ status: 502, body: { oops: true } });
    expect((await call(app, 'GET', '/widgets/a')).body).toEqual({ name: 'a', color: 'red' });
  });

  it('http effect sends status, headers and a raw string body as given', async () => {
    const { app } = manual();
    await addRule(app, {
      effect: {
        http: {
          status: 429,
          headers: { 'retry-after': '3', 'content-type': 'text/plain' },
          body: 'slow down',
        },
      },
    });
    const res = await call(app, 'GET', '/widgets/a');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.text).toBe('slow down');
  });

  it('delay holds the response until the manual clock passes it', async () => {
    const { app } = manual();
    await call(app, 'POST', '/widgets', { name: 'a' });
    await addRule(app, { match: { operation: 'widgets.get' }, effect: { delay: '2s' } });
    let settled = false;
    const pending = Promise.resolve(app.request('/widgets/a')).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    await call(app, 'POST', '/_sim/clock/advance', { by: '2s' });
    expect((await pending).status).toBe(200);
  });

  it('domain effects are taken by the handler and recorded as fired', async () => {
    const { app } = manual();
    await call(app, 'POST', '/widgets', { name: 'a', color: 'red' });
    await addRule(app, {
      id: 'slow',
      match: { operation: 'widgets.paint' },
      effect: { slowPaint: { by: '10s' } },
    });
    await call(app, 'POST', '/widgets/a/paint', { color: 'blue' });
    await call(app, 'POST', '/_sim/clock/advance', { by: '5s' });
    expect((await call(app, 'GET', '/widgets/a')).body.color).toBe('red');
    await call(app, 'POST', '/_sim/clock/advance', { by: '5s' });
    expect((await call(app, 'GET', '/widgets/a')).body.color).toBe('blue');
    const journal = await call(app, 'GET', '/_sim/journal?operation=widgets.paint');
    expect(journal.body.entries[0].faults).toEqual(['slow']);
  });

  it('matches on JSON body fields', async () => {
    const { app } = manual();
    await addRule(app, { match: { body: { color: 'red' } }, effect: { error: { status: 'NO_RED' } } });
    expect((await call(app, 'POST', '/widgets', { name: 'a', color: 'red' })).status).toBe(503);
    expect((await call(app, 'POST', '/widgets', { name: 'b', color: 'blue' })).status).toBe(201);
  });
});

describe('connection faults over a real socket', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function rawGet(url: string): Promise<{ status?: number; body: string; error?: string }> {
    return new Promise((resolve) => {
      let status: number | undefined;
      let body = '';
      const req = httpRequest(url, (res) => {
        status = res.statusCode;
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status, body }));
        res.on('error', (e) => resolve({ status, body, error: e.message }));
        res.on('aborted', () => resolve({ status, body, error: 'aborted' }));
      });
      req.on('error', (e) =>
        resolve({ status, body, error: (e as NodeJS.ErrnoException).code ?? e.message }),
      );
      req.setTimeout(5_000, () => req.destroy(new Error('client timeout')));
      req.end();
    });
  }

  it('reset drops the connection without a response', async () => {
    const { app } = manual();
    server = await serve(app);
    await addRule(app, { effect: { connection: 'reset' } });
    const res = await rawGet(`${server.url}/widgets/a`);
    expect(res.status).toBeUndefined();
    expect(res.error).toMatch(/ECONNRESET|socket hang up/);
    const journal = await call(app, 'GET', '/_sim/journal');
    expect(journal.body.entries[0]).toMatchObject({ status: 0, faults: ['rule-1'] });
  });

  it('truncate sends the headers and only part of the promised body', async () => {
    const { app } = manual();
    server = await serve(app);
    await call(app, 'POST', '/widgets', { name: 'a', color: 'x'.repeat(100) });
    await addRule(app, {
      phase: 'after',
      match: { operation: 'widgets.get' },
      effect: { connection: 'truncate' },
    });
    const res = await rawGet(`${server.url}/widgets/a`);
    expect(res.status).toBe(200);
    expect(res.error).toBeDefined();
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.length).toBeLessThan(JSON.stringify({ name: 'a', color: 'x'.repeat(100) }).length);
  });

  it('hang holds the request until the client gives up', async () => {
    const { app } = manual();
    server = await serve(app);
    await addRule(app, { effect: { connection: 'hang' } });
    const res = await new Promise<string>((resolve) => {
      const req = httpRequest(`${server?.url}/widgets/a`, () => resolve('answered'));
      req.on('error', () => resolve('gave up'));
      req.setTimeout(100, () => req.destroy(new Error('client timeout')));
      req.end();
    });
    expect(res).toBe('gave up');
  });

  it('without a socket (app.request) a connection fault rejects like a failed fetch', async () => {
    const { app } = manual();
    await addRule(app, { effect: { connection: 'reset' } });
    await expect(Promise.resolve(app.request('/widgets/a'))).rejects.toThrow(
      /simulated connection fault: reset/,
    );
  });
});

describe('journal through the kernel', () => {
  it('records operation, resource, bodies, status and redacts credentials', async () => {
    const { app } = manual();
    await call(
      app,
      'POST',
      '/widgets',
      { name: 'a' },
      { authorization: 'Bearer secret-token', cookie: 'sessionid=1' },
    );
    const { body } = await call(app, 'GET', '/_sim/journal');
    expect(body.entries[0]).toMatchObject({
      seq: 1,
      time: START,
      namespace: 'default',
      operation: 'widgets.create',
      method: 'POST',
      path: '/widgets',
      requestBody: { name: 'a' },
      status: 201,
      responseBody: { name: 'a', color: 'grey' },
      faults: [],
    });
    expect(body.entries[0].headers.authorization).toBe('Bearer [REDACTED]');
    expect(body.entries[0].headers.cookie).toBe('[REDACTED]');
    expect(body.stats).toMatchObject({ capacity: 10_000, size: 1, dropped: 0 });
  });

  it('records the response body over a real socket too, and the client gets it whole', async () => {
    // Through @hono/node-server the body is read from its lightweight Response, not a cloned stream.
    const { app } = createToySim({ clock: { mode: 'manual' } });
    const running = await serve(app);
    try {
      await call(app, 'POST', '/widgets', { name: 'a' });
      const res = await fetch(`${running.url}/widgets/a`);
      expect(await res.json()).toEqual({ name: 'a', color: 'grey' });
      const missing = await fetch(`${running.url}/widgets/zz`);
      const missingBody = await missing.text();
      const { body } = await call(app, 'GET', '/_sim/journal');
      expect(body.entries[1]).toMatchObject({ status: 200, responseBody: { name: 'a', color: 'grey' } });
      expect(body.entries[2].status).toBe(missing.status);
      expect(body.entries[2].responseBody).toEqual(missingBody === '' ? undefined : JSON.parse(missingBody));
    } finally {
      await running.close();
    }
  });

  it('records headers over a real socket as through app.request: lower-case, sorted, joined, redacted', async () => {
    // Over a socket the kernel keeps Node's raw header lines and builds the record when it is read.
    const kernel = createToySim({ clock: { mode: 'manual' } });
    const app = kernel.app;
    const running = await serve(app);
    try {
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`${running.url}/widgets/a?b=2&a=1&a=3`, {
          headers: {
            'X-Zeta': ' last ',
            'X-Dup': ['one', 'two'],
            Authorization: 'Token abc',
            'X-Api-Key': 'k',
            Cookie: 'a=1',
          },
        });
        req.on('response', (res) => res.resume().on('end', resolve));
        req.on('error', reject);
        req.end();
      });
      const headers = new Headers({ 'X-Zeta': ' last ', Authorization: 'Token abc', 'X-Api-Key': 'k' });
      headers.append('X-Dup', 'one');
      headers.append('X-Dup', 'two');
      headers.append('Cookie', 'a=1');
      headers.set('host', new URL(running.url).host);
      headers.set('connection', 'keep-alive');
      await app.request('/widgets/a?b=2&a=1&a=3', { headers });
      const [socket, direct] = kernel.namespaces.get('default').journal.list();
      expect(socket?.headers).toEqual({
        authorization: 'Token [REDACTED]',
        connection: 'keep-alive',
        cookie: '[REDACTED]',
        host: new URL(running.url).host,
        'x-api-key': '[REDACTED]',
        'x-dup': 'one, two',
        'x-zeta': 'last',
      });
      expect(Object.keys(socket?.headers ?? {})).toEqual(Object.keys(socket?.headers ?? {}).sort());
      expect(socket?.headers).toEqual(direct?.headers);
      expect(socket?.query).toEqual({ b: '2', a: '1' });
    } finally {
      await running.close();
    }
  });

  it('builds an entry once, when first read, and gives it as a plain object', async () => {
    const kernel = createToySim({ clock: { mode: 'manual' } });
    await call(kernel.app, 'POST', '/widgets', { name: 'a' });
    const journal = kernel.namespaces.get('default').journal;
    const [first] = journal.list();
    const [again] = journal.list({ operation: 'widgets.create' });
    expect(again).toBe(first);
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(Object.keys(first ?? {})).toEqual([
      'seq',
      'requestId',
      'time',
      'namespace',
      'operation',
      'resource',
      'method',
      'path',
      'query',
      'headers',
      'requestBody',
      'status',
      'responseBody',
      'durationMs',
      'faults',
    ]);
  });

  it('keeps the response body a plain-looking property of the entry (read lazily)', async () => {
    const kernel = createToySim({ clock: { mode: 'manual' } });
    const seen: unknown[] = [];
    await call(kernel.app, 'POST', '/widgets', { name: 'a' });
    const [entry] = kernel.namespaces.get('default').journal.list();
    expect(Object.keys(entry ?? {})).toContain('responseBody');
    expect({ ...entry }.responseBody).toEqual({ name: 'a', color: 'grey' });
    expect(structuredClone(entry)?.responseBody).toEqual({ name: 'a', color: 'grey' });
    expect(JSON.parse(JSON.stringify(entry)).responseBody).toEqual({ name: 'a', color: 'grey' });
    if (entry) entry.responseBody = 'replaced';
    seen.push(entry?.responseBody);
    expect(seen).toEqual(['replaced']);
  });

  it('caps captured bodies', async () => {
    const { app } = createToySim({ journalBodyLimit: 64, clock: { mode: 'manual' } });
    await call(app, 'POST', '/widgets', { name: 'a', color: 'c'.repeat(500) });
    const { body } = await call(app, 'GET', '/_sim/journal');
    expect(body.entries[0].requestBody).toMatchObject({ truncated: true, size: expect.any(Number) });
  });

  it('uses a bounded ring with a configurable capacity', async () => {
    const { app } = createToySim({ journalCapacity: 2, clock: { mode: 'manual' } });
    for (let i = 0; i < 5; i++) await call(app, 'GET', '/widgets/x');
    const { body } = await call(app, 'GET', '/_sim/journal');
    expect(body.entries).toHaveLength(2);
    expect(body.stats).toMatchObject({ capacity: 2, dropped: 3 });
  });

  it('wait returns as soon as a matching entry exists and 408 on time-out', async () => {
    const { app } = manual();
    const waiting = call(app, 'POST', '/_sim/journal/wait', { operation: 'widgets.create', timeout: '5s' });
    await call(app, 'POST', '/widgets', { name: 'a' });
    expect((await waiting).body.entry).toMatchObject({ operation: 'widgets.create', status: 201 });
    const late = await call(app, 'POST', '/_sim/journal/wait', {
      operation: 'widgets.nothing',
      timeout: '10ms',
    });
    expect(late.status).toBe(408);
    expect(late.body.error.message).toBe('no journal entry matched within 10ms');
  });
});

describe('ids and randomness', () => {
  it('the same seed and the same requests give the same ids', async () => {
    const run = async () => {
      const { app } = createToySim({ seed: 'fixed', clock: { mode: 'manual', start: START } });
      await call(app, 'POST', '/widgets', { name: 'a' });
      const ids = [];
      for (let i = 0; i < 3; i++)
        ids.push((await call(app, 'POST', '/widgets/a/paint', { color: 'b' })).body.id);
      return ids;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    const { app } = createToySim({ seed: 'other', clock: { mode: 'manual' } });
    await call(app, 'POST', '/widgets', { name: 'a' });
    expect((await call(app, 'POST', '/widgets/a/paint', { color: 'b' })).body.id).not.toBe(first[0]);
  });
});
