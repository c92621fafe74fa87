import { describe, expect, it } from 'vitest';
import { createClusterSimClient, isSimClient, SimControlError } from '../src/index';

/**
 * The cluster simulator's own control routes are wired here against a recording fetch: these pin
 * method, path, headers and body (cluster-views.test.ts runs the view routes against a real simulator).
 */
function recorder(answer: (url: string, init: RequestInit) => Response) {
  const calls: { method: string; url: string; headers: Record<string, string>; body: unknown }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init = {}) => {
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({
      method: init.method ?? 'GET',
      url: String(input),
      headers: init.headers as Record<string, string>,
      body,
    });
    return answer(String(input), init);
  };
  return { calls, fetch };
}
const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });

describe('createClusterSimClient', () => {
  it('reads and updates settings and the ServerConfig of its namespace', async () => {
    const { calls, fetch } = recorder(() => json({ operationDurationMs: 60000 }));
    const sim = createClusterSimClient({ baseUrl: 'http://127.0.0.1:1', namespace: 'ns1', fetch });
    expect(
      await sim.settings.update({ operationDurationMs: 60000, auth: { denyUnknownTokens: true } }),
    ).toEqual({
      operationDurationMs: 60000,
    });
    await sim.settings.get();
    await sim.serverConfig.get();
    await sim.serverConfig.update({ defaultClusterVersion: '1.30.1-gke.100' });
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      [
        'PATCH',
        'http://127.0.0.1:1/_sim/settings',
        { operationDurationMs: 60000, auth: { denyUnknownTokens: true } },
      ],
      ['GET', 'http://127.0.0.1:1/_sim/settings', undefined],
      ['GET', 'http://127.0.0.1:1/_sim/server-config', undefined],
      ['PATCH', 'http://127.0.0.1:1/_sim/server-config', { defaultClusterVersion: '1.30.1-gke.100' }],
    ]);
    expect(calls.every((c) => c.headers['X-Sim-Namespace'] === 'ns1')).toBe(true);
  });

  it('completes and fails operations now', async () => {
    const { calls, fetch } = recorder((url) => json({ name: url.split('/')[5], status: 'DONE' }));
    const sim = createClusterSimClient({ baseUrl: 'http://127.0.0.1:1', fetch });
    expect(await sim.operations.complete('operation-1')).toEqual({ name: 'operation-1', status: 'DONE' });
    await sim.operations.fail('operation-2', { status: 'INTERNAL', message: 'failed midway' });
    await sim.operations.fail('operation-3');
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['POST', 'http://127.0.0.1:1/_sim/operations/operation-1/complete', {}],
      [
        'POST',
        'http://127.0.0.1:1/_sim/operations/operation-2/fail',
        { status: 'INTERNAL', message: 'failed midway' },
      ],
      ['POST', 'http://127.0.0.1:1/_sim/operations/operation-3/fail', {}],
    ]);
  });

  it('turns the 409 for a finished operation into a SimControlError', async () => {
    const { fetch } = recorder(() =>
      json({ error: { status: 409, reason: 'CONFLICT', message: 'operation "op" is already DONE' } }, 409),
    );
    const sim = createClusterSimClient({ baseUrl: 'http://127.0.0.1:1', fetch });
    const error = await sim.operations.complete('op').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimControlError);
    expect(error).toMatchObject({
      status: 409,
      reason: 'CONFLICT',
      message: 'operation "op" is already DONE',
    });
  });

  it('keeps the cluster routes and the shared ones on withNamespace', async () => {
    const { calls, fetch } = recorder(() => json({ faults: [] }));
    const sim = createClusterSimClient({ baseUrl: 'http://127.0.0.1:1', fetch }).withNamespace('other');
    expect(sim.namespace).toBe('other');
    // Still a SimClient for the matchers (expect(sim).toHaveReceived(…)).
    expect(isSimClient(sim)).toBe(true);
    await sim.faults.list();
    await sim.operations.complete('x');
    expect(calls.map((c) => c.headers['X-Sim-Namespace'])).toEqual(['other', 'other']);
  });
});
