import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * When deleting namespaces forces a full garbage collection (world.ts, `collectAfterDeletes`): after a
 * burst (no pause over 100 ms between two deletes) of at least that many, and at least as many as
 * remain; never for namespaces deleted one at a time through a long run, where a forced collection every
 * few hundred deletes stalled the requests in flight (figure 8's soak).
 */
const collect = vi.hoisted(() => vi.fn(async () => true));
vi.mock('../src/collect-garbage', () => ({ collectGarbage: collect }));

const { createNamespaces } = await import('../src/world');
const { toyDefinition } = await import('./support/toy-simulator');

beforeEach(() => {
  collect.mockClear();
  vi.useFakeTimers({ toFake: ['performance'] });
});
afterEach(() => vi.useRealTimers());

/** Lets a started collection finish (its `finally` clears the in-progress flag). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function namespaces(count: number, collectAfterDeletes: number) {
  const ns = createNamespaces(toyDefinition, { collectAfterDeletes });
  for (let i = 0; i < count; i++) ns.get(`ns-${i}`);
  return ns;
}

describe('the collection after deletes', () => {
  it('runs once a burst reaches the threshold and every namespace is gone', async () => {
    const ns = namespaces(4, 4);
    for (let i = 0; i < 3; i++) {
      ns.delete(`ns-${i}`);
      vi.advanceTimersByTime(50);
    }
    expect(collect).not.toHaveBeenCalled();
    ns.delete('ns-3');
    expect(collect).toHaveBeenCalledTimes(1);
    await settle();
  });

  it('does not run for deletes spaced over 100 ms apart, however many', async () => {
    const ns = namespaces(12, 4);
    for (let i = 0; i < 12; i++) {
      ns.delete(`ns-${i}`);
      vi.advanceTimersByTime(101);
    }
    expect(collect).not.toHaveBeenCalled();
  });

  it('counts a burst afresh after a pause', async () => {
    const ns = namespaces(6, 4);
    for (let i = 0; i < 3; i++) ns.delete(`ns-${i}`);
    vi.advanceTimersByTime(500);
    for (let i = 3; i < 6; i++) ns.delete(`ns-${i}`);
    expect(collect).not.toHaveBeenCalled();
  });

  it('waits for a burst at least as large as the namespaces that remain', async () => {
    const ns = namespaces(10, 4);
    for (let i = 0; i < 4; i++) ns.delete(`ns-${i}`);
    // Four deleted, six remain: deleting a few of many is no reason to stall them.
    expect(collect).not.toHaveBeenCalled();
    for (let i = 4; i < 6; i++) ns.delete(`ns-${i}`);
    expect(collect).toHaveBeenCalledTimes(1);
    await settle();
  });

  it('never runs when turned off (0)', async () => {
    const ns = namespaces(8, 0);
    for (let i = 0; i < 8; i++) ns.delete(`ns-${i}`);
    expect(collect).not.toHaveBeenCalled();
  });
});
