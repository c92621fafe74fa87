import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../src/collect-garbage';
import { createNamespaces } from '../src/world';
import { toyDefinition } from './support/toy-simulator';

/** Lets the current job end, so that V8 stops keeping the targets of WeakRefs made in it. */
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Weak references to the state of `count` namespaces made in `ns` (nothing else holds them). */
function makeWorlds(ns: ReturnType<typeof createNamespaces>, count: number): WeakRef<object>[] {
  const refs: WeakRef<object>[] = [];
  for (let i = 0; i < count; i++) {
    const world = ns.get(`ns-${i}`);
    world.journal.record({
      requestId: `r${i}`,
      time: new Date(0).toISOString(),
      namespace: world.namespace,
      method: 'GET',
      path: '/widgets/a',
      query: {},
      headers: {},
      status: 200,
      durationMs: 1,
      faults: [],
    });
    refs.push(new WeakRef(world.state as object));
  }
  return refs;
}

const alive = (refs: WeakRef<object>[]) => refs.filter((r) => r.deref() !== undefined).length;

describe('namespace memory', () => {
  it('keeps nothing of a deleted namespace: its world is garbage once deleted', async () => {
    const ns = createNamespaces(toyDefinition, { collectAfterDeletes: 0 });
    const refs = makeWorlds(ns, 20);
    await nextTask();
    for (let i = 0; i < 10; i++) ns.delete(`ns-${i}`);
    await nextTask();
    expect(await collectGarbage()).toBe(true);
    // The deleted ten are gone; the ten still held stay.
    expect(alive(refs.slice(0, 10))).toBe(0);
    expect(alive(refs.slice(10))).toBe(10);
    ns.close();
  });

  it('collects the deleted worlds by itself after a bulk delete', async () => {
    const ns = createNamespaces(toyDefinition, { collectAfterDeletes: 8 });
    const refs = makeWorlds(ns, 8);
    await nextTask();
    for (let i = 0; i < 8; i++) ns.delete(`ns-${i}`);
    // No collection is asked for here: the namespaces ask for one after the eighth delete.
    await expect.poll(() => alive(refs), { timeout: 5_000, interval: 20 }).toBe(0);
    ns.close();
  });

  it('collects once the deleted namespaces outnumber the ones left', async () => {
    const ns = createNamespaces(toyDefinition, { collectAfterDeletes: 2 });
    const refs = makeWorlds(ns, 10);
    await nextTask();
    // Five deleted, five left: the fifth delete asks for a collection.
    for (let i = 0; i < 5; i++) ns.delete(`ns-${i}`);
    await expect.poll(() => alive(refs.slice(0, 5)), { timeout: 5_000, interval: 20 }).toBe(0);
    expect(alive(refs.slice(5))).toBe(5);
    ns.close();
  });
});
