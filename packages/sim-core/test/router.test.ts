import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createRouter, LiteralsApartRouter } from '../src/http/router';

// The kernel's router keeps literal paths apart from Hono's RegExpRouter (docs/decisions/0008). These
// pin that it answers as Hono's default router does, where the RegExpRouter alone would refuse.
function app() {
  const a = new Hono({ router: createRouter() });
  const seen: string[] = [];
  a.use('*', async (_c, next) => {
    seen.push('mw');
    await next();
  });
  a.get('/users/self', (c) => c.text('self'));
  a.get('/users/:id', (c) => c.text(`user ${c.req.param('id')}`));
  a.patch('/users/:id', (c) => c.text(`patched ${c.req.param('id')}`));
  a.all('/ping', (c) => c.text(`pong ${c.req.method}`));
  a.get('/events', async (_c, next) => {
    seen.push('first');
    await next();
  });
  a.get('/events', (c) => c.text('events'));
  return { a, seen };
}

describe('LiteralsApartRouter', () => {
  it('serves a literal beside a parameter, in the order the routes were added, middleware first', async () => {
    const { a, seen } = app();
    expect(await (await a.request('/users/self')).text()).toBe('self');
    expect(await (await a.request('/users/7')).text()).toBe('user 7');
    expect(await (await a.request('/users/self', { method: 'PATCH' })).text()).toBe('patched self');
    expect(await (await a.request('/ping', { method: 'DELETE' })).text()).toBe('pong DELETE');
    expect(await (await a.request('/events')).text()).toBe('events');
    expect((await a.request('/nothing')).status).toBe(404);
    expect(seen).toEqual(['mw', 'mw', 'mw', 'mw', 'mw', 'first', 'mw']);
    expect(a.router.name).toBe('SmartRouter + LiteralsApartRouter');
  });

  it('gives parameters of pattern routes through the RegExpRouter', () => {
    const router = new LiteralsApartRouter<string>();
    router.add('GET', '/a/:x/b/:y', 'pattern');
    router.add('GET', '/a/literal/b/c', 'literal');
    const [handlers, stash] = router.match('GET', '/a/literal/b/c') as [
      [string, Record<string, number>][],
      string[],
    ];
    expect(handlers.map(([h]) => h)).toEqual(['pattern', 'literal']);
    const params = handlers[0]?.[1] ?? {};
    expect({ x: stash[params.x ?? -1], y: stash[params.y ?? -1] }).toEqual({ x: 'literal', y: 'c' });
  });

  it('serves a literal segment beside a parameter under an earlier parameter, each with its parameters', async () => {
    const a = new Hono({ router: createRouter() });
    const seen: string[] = [];
    a.use('/tasks/:id/*', async (c, next) => {
      seen.push(`mw ${c.req.param('id')}`);
      await next();
    });
    a.get('/tasks/:id/data/:file{[0-9]+_[a-f]+}', (c) =>
      c.text(`file ${c.req.param('id')} ${c.req.param('file')}`),
    );
    a.get('/tasks/:id/data/meta', (c) => c.text(`meta ${c.req.param('id')}`));
    a.patch('/tasks/:id/data/meta', (c) => c.text(`patched meta ${c.req.param('id')}`));
    expect(await (await a.request('/tasks/3/data/12_ab')).text()).toBe('file 3 12_ab');
    expect(await (await a.request('/tasks/4/data/meta')).text()).toBe('meta 4');
    expect(await (await a.request('/tasks/5/data/meta', { method: 'PATCH' })).text()).toBe('patched meta 5');
    expect((await a.request('/tasks/4/data/other')).status).toBe(404);
    expect(seen).toEqual(['mw 3', 'mw 4', 'mw 5', 'mw 4']);
    // The RegExpRouter alone refuses the pair: the app would have fallen back to the TrieRouter.
    expect(a.router.name).toBe('SmartRouter + LiteralsApartRouter');
  });
});
