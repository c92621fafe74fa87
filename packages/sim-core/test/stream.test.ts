import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { serve } from '../src/http/serve';
import { type ChangeHub, createChangeHub, type StreamEvents, streamRoute } from '../src/http/stream';
import { call } from './support/http';
import { createToySim } from './support/toy-simulator';

const START = '2026-01-01T00:00:00.000Z';
const sim = (extra = {}) => createToySim({ seed: 1, clock: { mode: 'manual', start: START }, ...extra });

type EventName = keyof StreamEvents;
// biome-ignore lint/suspicious/noExplicitAny: test convenience for reading event payloads
type SseEvent = { event: EventName; data: any };

/** Reads server-sent events from a response body one at a time; `close()` cancels it. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let closed = false;
  async function next(): Promise<SseEvent> {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        return { event: event as EventName, data: JSON.parse(data.join('\n')) };
      }
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended (unread: ${JSON.stringify(buffer)})`);
      buffer += decoder.decode(value, { stream: true });
    }
  }
  return {
    next,
    /** The next event other than `tick` (ticks come every 2 s whatever else happens). */
    async event(): Promise<SseEvent> {
      for (;;) {
        const e = await next();
        if (e.event !== 'tick') return e;
      }
    },
    /** The next `n` events other than ticks. */
    async events(n: number): Promise<SseEvent[]> {
      const out: SseEvent[] = [];
      while (out.length < n) out.push(await this.event());
      return out;
    },
    async close() {
      if (closed) return;
      closed = true;
      await reader.cancel().catch(() => undefined);
    },
  };
}

type App = ReturnType<typeof createToySim>['app'];
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** Opens `GET path` as an event stream on the app (no socket) and reads its `hello`. */
async function watch(app: App | Hono, path = '/_sim/stream', headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  expect(res.headers.get('cache-control')).toBe('no-cache');
  const stream = sseReader(res.body as ReadableStream<Uint8Array>);
  open.push(stream);
  const hello = await stream.next();
  expect(hello.event).toBe('hello');
  return { stream, hello: hello.data as StreamEvents['hello'] };
}

describe('GET /_sim/stream', () => {
  it('starts with hello: the namespace, the last seq and the world clock', async () => {
    const { app } = sim();
    await call(app, 'GET', '/widgets/a');
    await call(app, 'GET', '/widgets/b');
    const { hello } = await watch(app);
    expect(hello).toEqual({ namespace: 'default', seq: 2, clock: { now: START, mode: 'manual' } });
    const prefixed = await watch(app, '/_ns/team-a/_sim/stream');
    expect(prefixed.hello).toMatchObject({ namespace: 'team-a', seq: 0 });
    const header = await watch(app, '/_sim/stream', { 'x-sim-namespace': 'team-b' });
    expect(header.hello.namespace).toBe('team-b');
  });

  it('never creates the namespace it watches', async () => {
    const { app } = sim();
    const { hello } = await watch(app, '/_ns/nobody/_sim/stream');
    expect(hello.namespace).toBe('nobody');
    expect(hello.seq).toBe(0);
    // No world, no world clock: the wall clock, and mode "none".
    expect(hello.clock.mode).toBe('none');
    expect(Number.isNaN(Date.parse(hello.clock.now))).toBe(false);
    expect((await call(app, 'GET', '/_sim/namespaces')).body.namespaces).toEqual([]);
    expect((await call(app, 'GET', '/_sim/health')).body.namespaces).toBe(0);
  });

  it('refuses an invalid namespace with a 400', async () => {
    const { app } = sim();
    const res = await call(app, 'GET', '/_sim/stream', undefined, { 'x-sim-namespace': '-bad' });
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe('INVALID_INPUT');
  });

  it('sends each new journal entry of its namespace as a request summary', async () => {
    const { app } = sim();
    await call(app, 'GET', '/widgets/before');
    const { stream } = await watch(app);
    await call(app, 'POST', '/widgets', { name: 'a', color: 'red' });
    const first = await stream.event();
    expect(first.event).toBe('request');
    const entry = (await call(app, 'GET', '/_sim/journal/2')).body.entry;
    // Enough for a list row, and nothing more (no headers, no bodies).
    expect(first.data).toEqual({
      seq: 2,
      requestId: entry.requestId,
      time: START,
      method: 'POST',
      path: '/widgets',
      status: 201,
      operation: 'widgets.create',
      durationMs: entry.durationMs,
      faults: [],
    });
    // Requests in another namespace are not this stream's; the next one here is.
    await call(app, 'GET', '/_ns/other/widgets/a');
    await call(app, 'GET', '/widgets/a');
    const second = await stream.event();
    expect(second.data).toMatchObject({ seq: 3, method: 'GET', path: '/widgets/a', status: 200 });
    // A request no route answers has no operation, and the summary leaves the key out.
    await call(app, 'GET', '/nowhere');
    const third = await stream.event();
    expect(third.data).toMatchObject({ seq: 4, path: '/nowhere', status: 404 });
    expect('operation' in third.data).toBe(false);
  });

  it('names the fault rules that fired for a request', async () => {
    const { app } = sim();
    await call(app, 'POST', '/_sim/faults', {
      id: 'boom',
      match: { operation: 'widgets.get' },
      effect: { error: { status: 'X' } },
    });
    const { stream } = await watch(app);
    await call(app, 'GET', '/widgets/a');
    expect((await stream.event()).data).toMatchObject({ status: 503, faults: ['boom'] });
  });

  it('sends the entries after ?since=, and a gap past 100 at once', async () => {
    const { app } = sim();
    for (let i = 1; i <= 150; i++) await call(app, 'GET', `/widgets/w${i}`);
    const { stream, hello } = await watch(app, '/_sim/stream?since=0');
    expect(hello.seq).toBe(0);
    const gap = await stream.event();
    expect(gap).toEqual({ event: 'gap', data: { skipped: 50, seq: 150 } });
    const sent = await stream.events(100);
    expect(sent.every((e) => e.event === 'request')).toBe(true);
    expect(sent.map((e) => e.data.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 51 + i));

    // 100 exactly is no gap.
    const { stream: exact } = await watch(app, '/_sim/stream?since=50');
    const all = await exact.events(100);
    expect(all.map((e) => e.event)).toEqual(Array(100).fill('request'));
    expect(all[0]?.data.seq).toBe(51);

    // A since that is not a number is refused, as the journal's own `since` is.
    const refused = await call(app, 'GET', '/_sim/stream?since=abc');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { reason: 'INVALID_INPUT', path: 'since' } });
  });

  it('sends changed for a change made through the control plane in its namespace', async () => {
    const { app } = sim();
    // Both namespaces exist first (a stream whose namespace appears sends reset before changed).
    await call(app, 'PUT', '/_sim/namespaces/default');
    await call(app, 'PUT', '/_sim/namespaces/other');
    const { stream } = await watch(app);
    expect((await call(app, 'POST', '/_sim/faults', { effect: { delay: '1s' } })).status).toBe(201);
    expect(await stream.event()).toEqual({ event: 'changed', data: { reason: 'POST /_sim/faults' } });

    // Not: reads, failed changes, or changes in another namespace.
    await call(app, 'GET', '/_sim/faults');
    expect((await call(app, 'POST', '/_sim/faults', { effect: { nope: 1 } })).status).toBe(400);
    expect((await call(app, 'DELETE', '/_sim/faults/missing')).status).toBe(404);
    await call(app, 'POST', '/_ns/other/_sim/clock/advance', { by: '1m' });
    await call(app, 'POST', '/_sim/seed', { widgets: [] }, { 'x-sim-namespace': 'other' });
    // The next event is the next change here.
    expect((await call(app, 'PUT', '/_sim/clock', { set: '2026-02-01T00:00:00Z' })).status).toBe(200);
    expect(await stream.event()).toEqual({ event: 'changed', data: { reason: 'PUT /_sim/clock' } });

    // A namespaced stream hears changes made under its prefix or its header.
    const { stream: other } = await watch(app, '/_ns/other/_sim/stream');
    await call(app, 'DELETE', '/_ns/other/_sim/faults');
    expect(await other.event()).toEqual({ event: 'changed', data: { reason: 'DELETE /_sim/faults' } });
    await call(app, 'DELETE', '/_sim/journal', undefined, { 'x-sim-namespace': 'other' });
    expect(await other.event()).toEqual({ event: 'changed', data: { reason: 'DELETE /_sim/journal' } });
  });

  it('sends no changed for signing in to the dashboard (it changes nothing)', async () => {
    const { app } = sim();
    await call(app, 'PUT', '/_sim/namespaces/default');
    const { stream } = await watch(app);
    const signIn = await app.request('/_sim/ui/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=x',
    });
    expect(signIn.status).toBe(303);
    await call(app, 'DELETE', '/_sim/faults');
    expect(await stream.event()).toEqual({ event: 'changed', data: { reason: 'DELETE /_sim/faults' } });
  });

  it('tells every stream when a namespace is created or deleted', async () => {
    const { app } = sim();
    await call(app, 'PUT', '/_sim/namespaces/b');
    const a = (await watch(app, '/_ns/a/_sim/stream')).stream;
    const b = (await watch(app, '/_ns/b/_sim/stream')).stream;
    expect((await call(app, 'PUT', '/_sim/namespaces/c')).status).toBe(201);
    for (const s of [a, b])
      expect(await s.event()).toEqual({ event: 'changed', data: { reason: 'PUT /_sim/namespaces/c' } });
    expect((await call(app, 'DELETE', '/_sim/namespaces/c')).status).toBe(204);
    for (const s of [a, b])
      expect(await s.event()).toEqual({ event: 'changed', data: { reason: 'DELETE /_sim/namespaces/c' } });
  });

  it('sends reset when its world is replaced, then entries of the new world from seq 1', async () => {
    const { app } = sim();
    await call(app, 'GET', '/widgets/a');
    await call(app, 'GET', '/widgets/b');
    const { stream } = await watch(app);
    expect((await call(app, 'POST', '/_sim/reset')).status).toBe(200);
    expect(await stream.events(2)).toEqual([
      { event: 'reset', data: { exists: true } },
      { event: 'changed', data: { reason: 'POST /_sim/reset' } },
    ]);
    await call(app, 'GET', '/widgets/c');
    expect((await stream.event()).data).toMatchObject({ seq: 1, path: '/widgets/c' });
  });

  it('sends reset when its namespace is deleted, and again when it comes back', async () => {
    const { app } = sim();
    await call(app, 'PUT', '/_sim/namespaces/gone');
    const { stream } = await watch(app, '/_ns/gone/_sim/stream');
    expect((await call(app, 'DELETE', '/_sim/namespaces/gone')).status).toBe(204);
    expect(await stream.events(2)).toEqual([
      { event: 'reset', data: { exists: false } },
      { event: 'changed', data: { reason: 'DELETE /_sim/namespaces/gone' } },
    ]);
    // Watching a namespace that is not there does not bring it back.
    expect((await call(app, 'GET', '/_sim/namespaces')).body.namespaces).toEqual([]);
    expect((await call(app, 'PUT', '/_sim/namespaces/gone')).status).toBe(201);
    expect(await stream.events(2)).toEqual([
      { event: 'reset', data: { exists: true } },
      { event: 'changed', data: { reason: 'PUT /_sim/namespaces/gone' } },
    ]);
    await call(app, 'GET', '/_ns/gone/widgets/x');
    expect((await stream.event()).data).toMatchObject({ seq: 1, path: '/widgets/x' });
  });

  it('follows a namespace created after the stream opened', async () => {
    const { app } = sim();
    const { stream } = await watch(app, '/_ns/later/_sim/stream');
    expect((await call(app, 'PUT', '/_sim/namespaces/later')).status).toBe(201);
    expect(await stream.events(2)).toEqual([
      { event: 'reset', data: { exists: true } },
      { event: 'changed', data: { reason: 'PUT /_sim/namespaces/later' } },
    ]);
  });

  it('sends a tick with the world clock every two seconds', async () => {
    const { app } = sim();
    await call(app, 'POST', '/_sim/clock/advance', { by: '1h' });
    const { stream } = await watch(app);
    const started = Date.now();
    const tick = await stream.next();
    expect(tick).toEqual({ event: 'tick', data: { now: '2026-01-01T01:00:00.000Z', mode: 'manual' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
  }, 10_000);

  it('needs the admin token (or the dashboard cookie) when one is set', async () => {
    const { app } = sim({ adminToken: 's3cret' });
    expect((await call(app, 'GET', '/_sim/stream')).status).toBe(401);
    const { hello } = await watch(app, '/_sim/stream', { cookie: 'sims_admin_toy_sim=s3cret' });
    expect(hello.namespace).toBe('default');
    const { hello: bearer } = await watch(app, '/_sim/stream', { authorization: 'Bearer s3cret' });
    expect(bearer.namespace).toBe('default');
  });
});

describe('stream lifetime', () => {
  /** A hub that says when a stream subscribes and unsubscribes. */
  function countingHub() {
    const hub = createChangeHub();
    const live = new Set<string>();
    let onGone: (() => void) | undefined;
    const counting: ChangeHub = {
      ...hub,
      subscribe(namespace, listener) {
        const off = hub.subscribe(namespace, listener);
        live.add(namespace);
        return () => {
          off();
          live.delete(namespace);
          onGone?.();
        };
      },
    };
    const gone = () =>
      new Promise<void>((resolve) => {
        if (live.size === 0) resolve();
        else onGone = () => live.size === 0 && resolve();
      });
    return { hub: counting, live, gone };
  }

  it('unsubscribes when the watcher cancels, waiting for nothing', async () => {
    const { namespaces } = sim();
    const { hub, live, gone } = countingHub();
    const app = new Hono();
    app.get('/_sim/stream', streamRoute(namespaces, hub));
    const { stream } = await watch(app);
    expect([...live]).toEqual(['default']);
    await stream.close();
    await gone();
    expect(live.size).toBe(0);
  });

  it('unsubscribes when the watcher cancels while entries are being sent', async () => {
    const kernel = sim();
    const { hub, live, gone } = countingHub();
    const app = new Hono();
    app.get('/_sim/stream', streamRoute(kernel.namespaces, hub));
    for (let i = 0; i < 5; i++) await call(kernel.app, 'GET', `/widgets/${i}`);
    const { stream } = await watch(app, '/_sim/stream?since=0');
    expect((await stream.event()).event).toBe('request');
    await stream.close();
    await gone();
    expect(live.size).toBe(0);
  });

  it('streams over HTTP and ends when the client goes away, and the server closes', async () => {
    const { app } = sim();
    const server = await serve(app, { port: 0, host: '127.0.0.1' });
    const aborted = new AbortController();
    try {
      const res = await fetch(`${server.url}/_ns/http/_sim/stream`, { signal: aborted.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      const stream = sseReader(res.body as ReadableStream<Uint8Array>);
      expect(await stream.next()).toMatchObject({ event: 'hello', data: { namespace: 'http', seq: 0 } });
      const made = await fetch(`${server.url}/_sim/namespaces/http`, { method: 'PUT' });
      expect(made.status).toBe(201);
      await made.body?.cancel();
      expect(await stream.events(2)).toEqual([
        { event: 'reset', data: { exists: true } },
        { event: 'changed', data: { reason: 'PUT /_sim/namespaces/http' } },
      ]);
      const got = await fetch(`${server.url}/_ns/http/widgets/a`);
      await got.body?.cancel();
      expect((await stream.event()).data).toMatchObject({ seq: 1, path: '/widgets/a', status: 404 });
      aborted.abort();
      await stream.close();
    } finally {
      aborted.abort();
      await server.close();
    }
  });
});

describe('createChangeHub', () => {
  it('wakes the listeners of one namespace, or of all, until they unsubscribe', () => {
    const hub = createChangeHub();
    const heard: string[] = [];
    const offA = hub.subscribe('a', (r) => heard.push(`a1:${r}`));
    hub.subscribe('a', (r) => heard.push(`a2:${r}`));
    const offB = hub.subscribe('b', (r) => heard.push(`b:${r}`));
    hub.notify('a', 'x');
    hub.notify('c', 'nobody');
    hub.notifyAll('y');
    offA();
    offB();
    hub.notify('a', 'z');
    hub.notify('b', 'z');
    offB();
    expect(heard).toEqual(['a1:x', 'a2:x', 'a1:y', 'a2:y', 'b:y', 'a2:z']);
  });
});
