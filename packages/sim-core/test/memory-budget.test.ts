import { describe, expect, it } from 'vitest';
import { commonHelp } from '../src/cli-help';
import { cliKernelOptions, parseCommonArgs } from '../src/cli-options';
import { createJournal } from '../src/journal';
import { type BudgetKind, createMemoryBudget } from '../src/memory-budget';
import { createNamespaces } from '../src/world';
import { toyDefinition } from './support/toy-simulator';

const ROWS: BudgetKind = { name: 'rows', defaultMaxBytes: 1000, holds: 'rows' };
const FILES: BudgetKind = { name: 'files', defaultMaxBytes: 500, holds: 'files' };

/** A namespace's table of finished rows, counted in the `rows` pool of `budget`. */
function table(budget: ReturnType<typeof createMemoryBudget>) {
  const world = budget.forWorld();
  const rows = new Map<number, string>();
  const queue = world.queue<number>('rows', 'rows', (id) => rows.delete(id));
  return {
    world,
    rows,
    queue,
    add(id: number, bytes = 100) {
      rows.set(id, `row ${id}`);
      queue.add(id, bytes);
    },
  };
}

describe('memory budget', () => {
  it('evicts the oldest finished item of any namespace first, and counts it where it was held', () => {
    const budget = createMemoryBudget([ROWS]);
    const a = table(budget);
    const b = table(budget);
    const c = table(budget);
    // 10 rows of 100 bytes fill the 1,000-byte share: a1 b1 c1 a2 b2 c2 a3 b3 c3 a4
    for (let i = 1; i <= 3; i++) for (const t of [a, b, c]) t.add(i);
    a.add(4);
    expect(budget.pool('rows').used()).toBe(1000);
    b.add(4); // the oldest of all, a1, goes
    expect([...a.rows.keys()]).toEqual([2, 3, 4]);
    c.add(4); // then b1
    c.add(5); // then c1
    expect([...b.rows.keys()]).toEqual([2, 3, 4]);
    expect([...c.rows.keys()]).toEqual([2, 3, 4, 5]);
    expect(budget.pool('rows').used()).toBe(1000);
    expect(budget.pool('rows').stats()).toEqual({
      kind: 'rows',
      maxBytes: 1000,
      usedBytes: 1000,
      evicted: 3,
      members: 3,
    });
    expect(a.world.stats()).toEqual({ rows: { bytes: 300, evicted: 1 } });
    expect(c.world.stats()).toEqual({ rows: { bytes: 400, evicted: 1 } });
  });

  it('frees as many of the oldest as a large item needs, and the item itself when it is larger than the share', () => {
    const budget = createMemoryBudget([ROWS]);
    const a = table(budget);
    const b = table(budget);
    for (let i = 1; i <= 5; i++) a.add(i);
    for (let i = 1; i <= 5; i++) b.add(i);
    b.add(6, 450); // a1..a5 go (500 bytes)
    expect([...a.rows.keys()]).toEqual([]);
    expect([...b.rows.keys()]).toEqual([1, 2, 3, 4, 5, 6]);
    b.add(7, 5000);
    expect(b.rows.size).toBe(0);
    expect(budget.pool('rows').used()).toBe(0);
    expect(budget.pool('rows').stats().members).toBe(0);
  });

  it('never evicts what a store removed itself, and skips the holes it left', () => {
    const budget = createMemoryBudget([ROWS]);
    const a = table(budget);
    const b = table(budget);
    for (let i = 1; i <= 5; i++) a.add(i);
    // The store forgets a1 and a3 on its own (expired, deleted): their bytes go back at once.
    a.rows.delete(1);
    a.queue.remove(1);
    a.rows.delete(3);
    a.queue.remove(3);
    expect(budget.pool('rows').used()).toBe(300);
    for (let i = 1; i <= 8; i++) b.add(i); // 1,100 bytes: one row goes, a2 (a1 is gone already)
    expect([...a.rows.keys()]).toEqual([4, 5]);
    expect([...a.queue.keys()]).toEqual([4, 5]);
    expect(a.queue.evicted).toBe(1);
  });

  it('keeps the kinds apart: each has its own share', () => {
    const budget = createMemoryBudget([ROWS, FILES], { files: 200 });
    const world = budget.forWorld();
    const rows = world.queue<number>('rows', 'rows', () => {});
    const gone: string[] = [];
    const files = world.queue<string>('files', 'files', (k) => gone.push(k));
    for (let i = 0; i < 9; i++) rows.add(i, 100);
    files.add('x', 150);
    files.add('y', 150);
    expect(gone).toEqual(['x']);
    expect(rows.size).toBe(9);
    expect(world.stats()).toEqual({ rows: { bytes: 900, evicted: 0 }, files: { bytes: 150, evicted: 1 } });
    expect(budget.stats().map((s) => [s.kind, s.maxBytes])).toEqual([
      ['journal', 64 * 1024 * 1024],
      ['rows', 1000],
      ['files', 200],
    ]);
  });

  it('gives a disposed world back its bytes, and counts nothing it adds later', () => {
    const budget = createMemoryBudget([ROWS]);
    const a = table(budget);
    for (let i = 1; i <= 4; i++) a.add(i);
    a.world.dispose();
    expect(budget.pool('rows').used()).toBe(0);
    a.add(5); // a late write of a deleted namespace
    expect(budget.pool('rows').used()).toBe(0);
    expect(a.world.queue('rows', 'rows', () => {})).toBe(a.queue);
  });

  it('releases a replaced slot: its bytes go back, what the budget evicted of it stays counted', () => {
    const budget = createMemoryBudget([ROWS]);
    const world = budget.forWorld();
    const first = world.queue<number>('rows', 'rows', () => {});
    first.add(1, 600);
    first.add(2, 600); // 1 goes
    world.release('rows');
    expect(budget.pool('rows').used()).toBe(0);
    const next = world.queue<number>('rows', 'rows', () => {});
    expect(next).not.toBe(first);
    next.add(7, 200);
    expect(world.stats()).toEqual({ rows: { bytes: 200, evicted: 1 } });
    expect(budget.pool('rows').stats()).toMatchObject({ usedBytes: 200, evicted: 1 });
  });

  it('compacts the holes of a store that keeps replacing the same items', () => {
    const budget = createMemoryBudget([ROWS]);
    const world = budget.forWorld();
    const queue = world.queue<number>('rows', 'rows', () => {});
    queue.add(0, 1);
    for (let i = 0; i < 10_000; i++) queue.add(1 + (i % 3), 1);
    expect([...queue.keys()]).toEqual([0, 2, 3, 1]);
    expect(queue.size).toBe(4);
    expect(queue.bytes).toBe(4);
  });

  it("counts a journal's budget evictions apart from its ring's drops, as its pool does, across clears", () => {
    const budget = createMemoryBudget([], { journal: 10_000 });
    const journal = createJournal({ capacity: 3, budget: budget.pool('journal') });
    const entry = (path: string) => ({
      requestId: 'r',
      namespace: 'default',
      time: '2026-01-01T00:00:00Z',
      method: 'GET',
      path,
      query: {},
      headers: {},
      status: 200,
      durationMs: 1,
      faults: [],
    });
    for (let i = 0; i < 5; i++) journal.record(entry('/small'));
    expect(journal.stats().dropped).toBe(2);
    expect(journal.budgetEvicted()).toBe(0);
    journal.record(entry(`/${'x'.repeat(9000)}`)); // past the 10,000 bytes with the others: they go
    const evicted = budget.pool('journal').evicted();
    expect(evicted).toBeGreaterThan(0);
    expect(journal.budgetEvicted()).toBe(evicted);
    journal.clear();
    expect(journal.stats().dropped).toBe(0);
    expect(journal.budgetEvicted()).toBe(evicted);
  });

  it('refuses a kind the simulator does not have', () => {
    expect(() => createMemoryBudget([ROWS], { nope: 1 })).toThrow(/no memory budget "nope"/);
    expect(() => createMemoryBudget([ROWS]).pool('nope')).toThrow(RangeError);
  });

  it('puts the journals of every namespace in the journal pool of the same budget as the stores', () => {
    const def = { ...toyDefinition, budgetKinds: [ROWS] };
    const namespaces = createNamespaces(def, { budgets: { rows: 300, journal: 2000 } });
    const a = namespaces.get('a');
    const b = namespaces.get('b');
    expect(namespaces.budget.pool('rows').maxBytes).toBe(300);
    expect(namespaces.budget.pool('journal').maxBytes).toBe(2000);
    a.budget.queue<number>('rows', 'rows', () => {}).add(1, 200);
    b.budget.queue<number>('rows', 'rows', () => {}).add(1, 200);
    expect(a.budget.stats()).toEqual({ rows: { bytes: 0, evicted: 1 } });
    namespaces.delete('b');
    expect(namespaces.budget.pool('rows').used()).toBe(0);
    // The journal's pool is the budget's.
    const journal = createJournal({ budget: namespaces.budget.pool('journal') });
    expect(journal.bytes()).toBe(0);
    namespaces.close();
  });
});

describe('budget options on the command line', () => {
  it('reads --<kind>-max-bytes and SIM_<KIND>_MAX_BYTES for the simulator kinds, and hands them to the kernel', () => {
    const { options } = parseCommonArgs(['--rows-max-bytes', '2MiB'], { SIM_FILES_MAX_BYTES: '512KiB' }, 1, [
      ROWS,
      FILES,
    ]);
    expect(options.budgets).toEqual({ rows: 2 * 1024 * 1024, files: 512 * 1024 });
    expect(cliKernelOptions(options).budgets).toEqual(options.budgets);
    expect(() => parseCommonArgs(['--rows-max-bytes', 'lots'], {}, 1, [ROWS])).toThrow(
      /invalid --rows-max-bytes "lots": expected a number of bytes/,
    );
    // A kind the simulator does not have is an unknown flag.
    expect(() => parseCommonArgs(['--rows-max-bytes', '1'], {}, 1, [FILES])).toThrow(/rows-max-bytes/);
  });

  it('lists each kind in --help beside --journal-max-bytes, with its default and variable', () => {
    const help = commonHelp('toy-sim', 1, [
      { name: 'events', defaultMaxBytes: 64 * 1024 * 1024, holds: 'event logs' },
    ]);
    expect(help).toContain('--journal-max-bytes');
    expect(help).toMatch(
      /--events-max-bytes <n>\n {24}bytes the event logs of all namespaces hold together; the oldest go first\n {24}\(default 64MiB\) \[SIM_EVENTS_MAX_BYTES\]/,
    );
    const lines = help.split('\n');
    const at = lines.findIndex((l) => l.includes('--events-max-bytes'));
    for (const line of lines.slice(at, at + 3)) expect(line.length).toBeLessThanOrEqual(100);
  });
});
