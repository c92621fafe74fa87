import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createJournal, DeferredJournalEntry, type Journal, type JournalEntry } from '../src/journal';
import { createJournalBudget } from '../src/journal-budget';
import { call } from './support/http';
import { createToySim } from './support/toy-simulator';

const entry = (over: Partial<JournalEntry> = {}): Omit<JournalEntry, 'seq'> => ({
  requestId: 'r',
  time: '2026-01-01T00:00:00.000Z',
  namespace: 'default',
  operation: 'nodePools.get',
  method: 'GET',
  path: '/v1beta1/x',
  query: {},
  headers: {},
  status: 200,
  durationMs: 1,
  faults: [],
  ...over,
});

describe('request journal', () => {
  it('keeps the newest entries of a full ring and counts the dropped ones', () => {
    const journal = createJournal({ capacity: 3 });
    for (let i = 1; i <= 5; i++) journal.record(entry({ requestId: `r${i}` }));
    expect(journal.list().map((e) => e.requestId)).toEqual(['r3', 'r4', 'r5']);
    expect(journal.list().map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(journal.stats()).toEqual({ capacity: 3, size: 3, dropped: 2, total: 5 });
  });

  it('filters by operation, method, path glob, status, fault and since', () => {
    const journal = createJournal();
    journal.record(entry({ operation: 'nodePools.get' }));
    journal.record(entry({ operation: 'nodePools.update', method: 'PUT', status: 409, faults: ['abort'] }));
    journal.record(
      entry({ operation: 'operations.get', path: '/v1beta1/projects/p/locations/l/operations/op-1' }),
    );
    expect(journal.list({ operation: 'nodePools.*' }).map((e) => e.seq)).toEqual([1, 2]);
    expect(journal.list({ method: 'put' }).map((e) => e.seq)).toEqual([2]);
    expect(journal.list({ path: '/v1beta1/**/operations/*' }).map((e) => e.seq)).toEqual([3]);
    expect(journal.list({ status: 409 }).map((e) => e.seq)).toEqual([2]);
    expect(journal.list({ fault: 'abort' }).map((e) => e.seq)).toEqual([2]);
    expect(journal.list({ since: 1 }).map((e) => e.seq)).toEqual([2, 3]);
    expect(journal.list({}, 2).map((e) => e.seq)).toEqual([2, 3]);
  });

  it('wait resolves at once with an existing match', async () => {
    const journal = createJournal();
    journal.record(entry({ operation: 'a' }));
    expect((await journal.wait({ operation: 'a' }, 1000))?.seq).toBe(1);
  });

  it('wait resolves as soon as a matching entry is recorded', async () => {
    const journal = createJournal();
    const waiting = journal.wait({ operation: 'b' }, 60_000);
    journal.record(entry({ operation: 'a' }));
    journal.record(entry({ operation: 'b' }));
    expect((await waiting)?.seq).toBe(2);
  });

  it('wait gives up with undefined after its timeout', async () => {
    const journal = createJournal();
    expect(await journal.wait({ operation: 'never' }, 5)).toBeUndefined();
  });

  it('clear empties the ring but keeps sequence numbers increasing', () => {
    const journal = createJournal({ capacity: 2 });
    for (let i = 0; i < 3; i++) journal.record(entry());
    journal.clear();
    expect(journal.stats()).toEqual({ capacity: 2, size: 0, dropped: 0, total: 0 });
    expect(journal.record(entry()).seq).toBe(4);
  });
});

/** An entry of a known size, tagged with a name to tell it apart. */
class Sized extends DeferredJournalEntry {
  readonly operation = 'op';
  readonly resource = undefined;
  readonly method = 'GET';
  readonly path: string;
  readonly status = 200;
  readonly faults: string[] = [];
  constructor(
    readonly name: string,
    private readonly bytes: number,
  ) {
    super();
    this.path = `/${name}`;
  }
  protected build() {
    return { ...entry({ requestId: this.name, path: this.path }) };
  }
  override byteSize(): number {
    return this.bytes;
  }
}
const names = (journal: Journal) => journal.list().map((e) => e.requestId);

describe('journal byte budget shared by several journals', () => {
  it('drops the oldest entries of any journal once they hold more than the budget together', () => {
    const budget = createJournalBudget(1000);
    const a = createJournal({ budget });
    const b = createJournal({ budget });
    a.record(new Sized('a1', 300));
    b.record(new Sized('b1', 300));
    a.record(new Sized('a2', 300));
    expect(budget.used()).toBe(900);
    b.record(new Sized('b2', 300));
    expect([names(a), names(b), budget.used()]).toEqual([['a2'], ['b1', 'b2'], 900]);
    b.record(new Sized('b3', 250));
    expect([names(a), names(b), budget.used()]).toEqual([['a2'], ['b2', 'b3'], 850]);
    a.record(new Sized('a3', 500));
    expect([names(a), names(b), budget.used()]).toEqual([['a3'], ['b3'], 750]);
    expect(a.stats()).toEqual({ capacity: 10_000, size: 1, dropped: 2, total: 3 });
    expect(b.stats()).toEqual({ capacity: 10_000, size: 1, dropped: 2, total: 3 });
  });

  it('gives back what a journal held when it is cleared or its ring drops an entry', () => {
    const budget = createJournalBudget(1000);
    const a = createJournal({ budget, capacity: 2 });
    const b = createJournal({ budget });
    for (const [i, bytes] of [100, 200, 300].entries()) a.record(new Sized(`a${i}`, bytes));
    expect([names(a), budget.used()]).toEqual([['a1', 'a2'], 500]);
    b.record(new Sized('b0', 400));
    a.clear();
    expect(budget.used()).toBe(400);
    b.record(new Sized('b1', 600));
    expect([names(b), budget.used()]).toEqual([['b0', 'b1'], 1000]);
  });

  it('drops an entry larger than the whole budget at once, after answering its waiters', async () => {
    const budget = createJournalBudget(100);
    const a = createJournal({ budget });
    const waiting = a.wait({ operation: 'op' }, 1000);
    a.record(new Sized('huge', 500));
    expect((await waiting)?.requestId).toBe('huge');
    expect([names(a), budget.used(), a.stats().dropped]).toEqual([[], 0, 1]);
  });

  it('counts plain entries by their JSON length', () => {
    const budget = createJournalBudget(10_000);
    const a = createJournal({ budget });
    a.record(entry({ requestBody: 'x'.repeat(1000) }));
    expect(budget.used()).toBeGreaterThan(1000);
    expect(budget.used()).toBeLessThan(2000);
  });

  it('keeps exactly what a model of it keeps, however records, rings and clears interleave (property)', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('record' as const),
        j: fc.nat(2),
        bytes: fc.integer({ min: 1, max: 400 }),
      }),
      fc.record({ kind: fc.constant('clear' as const), j: fc.nat(2) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), fc.constantFrom(1, 3, 20), (ops, capacity) => {
        const budget = createJournalBudget(1000);
        const journals = [0, 1, 2].map(() => createJournal({ budget, capacity }));
        // The model: every kept entry in recording order, with its journal and size.
        let kept: { j: number; name: string; bytes: number }[] = [];
        ops.forEach((o, i) => {
          if (o.kind === 'clear') {
            journals[o.j]?.clear();
            kept = kept.filter((e) => e.j !== o.j);
            return;
          }
          journals[o.j]?.record(new Sized(`e${i}`, o.bytes));
          kept.push({ j: o.j, name: `e${i}`, bytes: o.bytes });
          const mine = kept.filter((e) => e.j === o.j);
          if (mine.length > capacity) kept = kept.filter((e) => e !== mine[0]);
          let used = kept.reduce((sum, e) => sum + e.bytes, 0);
          while (used > 1000) used -= (kept.shift() as { bytes: number }).bytes;
        });
        for (const j of [0, 1, 2])
          expect(names(journals[j] as Journal)).toEqual(kept.filter((e) => e.j === j).map((e) => e.name));
        expect(budget.used()).toBe(kept.reduce((sum, e) => sum + e.bytes, 0));
      }),
      { numRuns: 200 },
    );
  });
});

describe('journal byte budget in the kernel', () => {
  it("is shared by all namespaces: one namespace's traffic pushes out the oldest entries of others", async () => {
    const kernel = createToySim({ journalMaxBytes: 20_000, clock: { mode: 'manual' } });
    const { app } = kernel;
    for (let i = 0; i < 5; i++) await call(app, 'GET', `/_ns/quiet/widgets/q${i}`);
    for (let i = 0; i < 200; i++) await call(app, 'GET', `/_ns/busy/widgets/b${i}`);
    const quiet = (await call(app, 'GET', '/_ns/quiet/_sim/journal')).body;
    const busy = (await call(app, 'GET', '/_ns/busy/_sim/journal')).body;
    expect(quiet.entries).toEqual([]);
    expect(quiet.stats).toMatchObject({ size: 0, dropped: 5 });
    expect(busy.stats.size).toBeGreaterThan(10);
    expect(busy.stats.size).toBeLessThan(200);
    expect(busy.entries.at(-1).path).toBe('/widgets/b199');
  });

  it('keeps only a preview of a body past the capture limit, and counts no more than that', async () => {
    // A budget far below the body: the entry stays only if it keeps (and counts) the preview alone.
    const kernel = createToySim({ journalBodyLimit: 1024, journalMaxBytes: 50_000 });
    await call(kernel.app, 'POST', '/widgets', { name: 'big', color: 'c'.repeat(1_000_000) });
    const [entry] = kernel.namespaces.get('default').journal.list();
    expect(entry?.requestBody).toMatchObject({ truncated: true, size: expect.any(Number) });
    expect((entry?.requestBody as { size?: number } | undefined)?.size).toBeGreaterThan(1_000_000);
    // Its hash tells which body came without the journal keeping it.
    const sent = JSON.stringify({ name: 'big', color: 'c'.repeat(1_000_000) });
    expect(entry?.requestBody).toMatchObject({
      sha256: createHash('sha256').update(sent).digest('hex'),
    });
    // The response (the widget, a million characters) is past the limit too: its size and a preview
    // only, no hash (the simulator made it; hashing it cost as much as serving it).
    expect(entry?.responseBody).toEqual({
      truncated: true,
      size: expect.any(Number),
      preview: expect.stringMatching(/^{"name":"big"/),
    });
    expect(kernel.namespaces.get('default').journal.stats()).toMatchObject({ size: 1, dropped: 0 });
  });

  it('lets a deleted namespace give its share back', async () => {
    const kernel = createToySim({ journalMaxBytes: 5_000 });
    for (let i = 0; i < 3; i++) await call(kernel.app, 'GET', '/_ns/gone/widgets/x');
    await call(kernel.app, 'DELETE', '/_sim/namespaces/gone');
    for (let i = 0; i < 3; i++) await call(kernel.app, 'GET', '/_ns/kept/widgets/x');
    expect(kernel.namespaces.get('kept').journal.stats()).toMatchObject({ size: 3, dropped: 0 });
  });
});
