import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimClient, type SimClient } from '../src/index';
import { setup } from '../src/vitest';
import { startToySim } from './support/toy-simulator';

setup();

let toy: Awaited<ReturnType<typeof startToySim>>;
let sim: SimClient;

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${toy.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

beforeEach(async () => {
  toy = await startToySim();
  sim = createSimClient({ baseUrl: toy.url });
});
afterEach(async () => {
  await toy.close();
});

describe('toHaveReceived', () => {
  it('passes when a matching request was received, and counts exactly with times', async () => {
    await api('POST', '/widgets', { name: 'a' });
    await api('GET', '/widgets/a');
    await api('GET', '/widgets/a');
    await expect(sim).toHaveReceived();
    await expect(sim).toHaveReceived({ operation: 'widgets.create' });
    await expect(sim).toHaveReceived({ operation: 'widgets.get', times: 2 });
    await expect(sim).toHaveReceived({ operation: 'widgets.*', method: 'GET', status: 200, times: 2 });
    await expect(sim).toHaveReceived({ operation: 'widgets.paint', times: 0 });
    await expect(sim).not.toHaveReceived({ operation: 'widgets.paint' });
    await expect(sim).not.toHaveReceived({ operation: 'widgets.get', times: 1 });
  });

  it('fails with a message listing what was received', async () => {
    await api('POST', '/widgets', { name: 'a' });
    await api('GET', '/widgets/a');
    const error = await expect(sim)
      .toHaveReceived({ operation: 'widgets.get', times: 2 })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `expected simulator at ${toy.url} (namespace "default") to have received 2 requests matching ` +
        '{ operation=widgets.get }, but it received 1.\n' +
        'Matching requests:\n  #2 GET /widgets/a → 200 widgets.get\n' +
        'Most recent requests (any):\n  #1 POST /widgets → 201 widgets.create\n  #2 GET /widgets/a → 200 widgets.get',
    );
  });

  it('fails when nothing matched, saying none were received', async () => {
    await expect(expect(sim).toHaveReceived({ operation: 'widgets.paint' })).rejects.toThrow(
      /to have received at least 1 request matching \{ operation=widgets\.paint \}, but it received 0\.\nMatching requests: none\.\nMost recent requests \(any\): none\./,
    );
  });

  it('fails a negated expectation that holds, listing the matches', async () => {
    await api('GET', '/widgets/a');
    await expect(expect(sim).not.toHaveReceived({ operation: 'widgets.get' })).rejects.toThrow(
      /not to have received at least 1 request matching \{ operation=widgets\.get \}, but it received 1\.\nMatching requests:\n {2}#1 GET \/widgets\/a → 404 widgets\.get/,
    );
  });

  it('reads the namespace of the client it is given', async () => {
    await api('GET', '/_ns/elsewhere/widgets/a');
    await expect(sim).toHaveReceived({ times: 0 });
    await expect(sim.withNamespace('elsewhere')).toHaveReceived({ operation: 'widgets.get', times: 1 });
  });

  it('names the fault rules that fired in its listing', async () => {
    const rule = await sim.faults.add({
      match: { operation: 'widgets.get' },
      effect: { http: { status: 503 } },
    });
    await api('GET', '/widgets/a');
    await expect(expect(sim).toHaveReceived({ status: 200 })).rejects.toThrow(
      `#1 GET /widgets/a → 503 widgets.get [faults: ${rule.id}]`,
    );
  });

  it('rejects what is not a sim client, and a bad count', async () => {
    await expect(expect({ journal: {} }).toHaveReceived()).rejects.toThrow(
      /expects a client made by createSimClient/,
    );
    await expect(expect(sim).toHaveReceived({ times: -1 })).rejects.toThrow(
      /times must be a non-negative integer/,
    );
  });
});

describe('toHaveFired', () => {
  it('passes once the rule fired, re-reading its counters', async () => {
    const rule = await sim.faults.add({
      match: { operation: 'widgets.get' },
      trigger: { times: 2 },
      effect: { error: { status: 'BUSY' } },
    });
    await expect(rule).not.toHaveFired();
    await expect(rule).toHaveFired(0);
    await api('GET', '/widgets/a');
    await expect(rule).toHaveFired();
    await expect(rule).toHaveFired(1);
    await api('GET', '/widgets/a');
    await api('GET', '/widgets/a');
    await expect(rule).toHaveFired(2);
    await expect(rule).not.toHaveFired(3);
  });

  it('works on a handle for a rule a scenario added, and on domain effects', async () => {
    await sim.scenarios.load({
      faults: [
        {
          id: 'paint-fails',
          match: { operation: 'widgets.paint' },
          effect: { paintFails: { reason: 'no paint' } },
        },
      ],
    });
    expect(await api('POST', '/widgets/a/paint', { color: 'red' })).toBe(500);
    await expect(sim.faults.handle('paint-fails')).toHaveFired(1);
  });

  it('fails saying no request matched the rule', async () => {
    const rule = await sim.faults.add({
      id: 'typo',
      match: { operation: 'widget.get' },
      effect: { error: { status: 'BUSY' } },
    });
    await api('GET', '/widgets/a');
    await expect(expect(rule).toHaveFired()).rejects.toThrow(
      'expected fault rule "typo" (namespace "default") to have fired at least once, but it fired 0 times and ' +
        'matched 0 requests. No request matched it: check the operation name, resource glob and namespace.\n' +
        '  Rule: match {"operation":"widget.get"}, trigger {}, phase before, effect {"error":{"status":"BUSY"}}',
    );
  });

  it('fails saying the trigger held it back, and shows an exhausted rule', async () => {
    const later = await sim.faults.add({
      match: { operation: 'widgets.get' },
      trigger: { after: 5 },
      effect: { http: { status: 500 } },
    });
    await api('GET', '/widgets/a');
    await expect(expect(later).toHaveFired()).rejects.toThrow(
      /fired 0 times and matched 1 request\. Requests matched it but its trigger never let it fire\./,
    );
    const once = await sim.faults.add({
      match: { operation: 'widgets.create' },
      trigger: { times: 1 },
      effect: { http: { status: 500 } },
    });
    await api('POST', '/widgets', {});
    await api('POST', '/widgets', {});
    await expect(expect(once).toHaveFired(2)).rejects.toThrow(
      /to have fired 2 times, but it fired 1 time and matched 2 requests \(exhausted\)\./,
    );
    await expect(expect(once).not.toHaveFired(1)).rejects.toThrow(
      /not to have fired 1 time, but it fired 1 time/,
    );
  });

  it('rejects what is not a rule handle, and a removed rule is a 404', async () => {
    await expect(expect({ id: 'rule-1' }).toHaveFired()).rejects.toThrow(/expects a fault rule handle/);
    const rule = await sim.faults.add({ effect: { delay: '1s' } });
    await rule.remove();
    await expect(expect(rule).toHaveFired()).rejects.toMatchObject({ status: 404, reason: 'NOT_FOUND' });
  });
});
