import { describe, expect, it } from 'vitest';
import { createToySim } from './support/toy-simulator';

describe('kernel smoke', () => {
  it('routes, faults, clock and journal work together', async () => {
    const { app } = createToySim({ clock: { mode: 'manual', start: '2026-01-01T00:00:00Z' } });
    const created = await app.request('/widgets', { method: 'POST', body: JSON.stringify({ name: 'a', color: 'red' }) });
    expect(created.status).toBe(201);
    const rule = await app.request('/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({ match: { operation: 'widgets.get' }, trigger: { times: 1 }, effect: { error: { status: 'BUSY' } } }),
    });
    expect(rule.status, await rule.clone().text()).toBe(201);
    const faulted = await app.request('/widgets/a');
    expect(faulted.status).toBe(503);
    expect(await faulted.json()).toEqual({ fault: 'BUSY', message: 'injected' });
    expect((await app.request('/widgets/a')).status).toBe(200);
    await app.request('/widgets/a/paint', { method: 'POST', body: JSON.stringify({ color: 'blue' }) });
    expect(await (await app.request('/widgets/a')).json()).toMatchObject({ color: 'red', painting: true });
    await app.request('/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ by: '1s' }) });
    expect(await (await app.request('/widgets/a')).json()).toMatchObject({ color: 'blue', painting: false });
    const journal = await (await app.request('/_sim/journal?operation=widgets.get')).json();
    expect(journal.entries.map((e: { status: number }) => e.status)).toEqual([503, 200, 200, 200]);
    expect(journal.entries[0].faults).toEqual(['rule-1']);
    const ns = await app.request('/_ns/other/widgets/a');
    expect(ns.status).toBe(404);
    expect(await ns.json()).toEqual({ toyError: 'not found' });
  });
});
