import { describe, expect, it } from 'vitest';
import { budgetedTable, forgetCounted } from '../src/budgeted-table';
import { type BudgetKind, createMemoryBudget } from '../src/memory-budget';

const ROWS: BudgetKind = { name: 'rows', defaultMaxBytes: 1000, holds: 'rows' };

interface Row {
  done: boolean;
  size: number;
}

const TABLE = budgetedTable<number, Row>({
  kind: 'rows',
  slot: 'rows',
  finished: (r) => r.done,
  bytes: (r) => r.size,
});

function setup(maxBytes = 1000) {
  const budget = createMemoryBudget([ROWS], { rows: maxBytes });
  const pool = budget.pool('rows');
  const world = budget.forWorld();
  const rows = new Map<number, Row>();
  const put = (id: number, size: number, done = true) => {
    rows.set(id, { done, size });
    TABLE.count(world, rows, id);
  };
  return { budget, pool, world, rows, put };
}

describe('a budgeted table', () => {
  it('counts finished records only, and a record once it finishes', () => {
    const { pool, world, rows, put } = setup();
    put(1, 100, false);
    expect(world.find('rows')).toBeUndefined();
    put(2, 200);
    expect(pool.used()).toBe(200);
    (rows.get(1) as Row).done = true;
    TABLE.count(world, rows, 1);
    expect(pool.used()).toBe(300);
    // Replaced by a record that runs again: no longer counted.
    put(2, 200, false);
    expect(pool.used()).toBe(100);
    expect(TABLE.bytesOf(rows)).toBe(100);
  });

  it('evicts the oldest record from the table it counts, not a record that took its key since', () => {
    const { pool, rows, put } = setup(500);
    put(1, 300);
    put(2, 100);
    put(3, 200); // 600 bytes: 1 goes
    expect([...rows.keys()]).toEqual([2, 3]);
    expect(pool.evicted()).toBe(1);
    expect(pool.used()).toBe(TABLE.bytesOf(rows));
  });

  it('forgets a deleted record through the table alone (a cascade that knows no budget)', () => {
    const { pool, rows, put } = setup();
    put(1, 100);
    put(2, 100);
    expect(forgetCounted(rows, 1)).toBe(true);
    expect(TABLE.forget(rows, 2)).toBe(true);
    expect(rows.size).toBe(0);
    expect(pool.used()).toBe(0);
    // A copy of a counted table is not counted: deleting from it leaves the count alone.
    put(3, 100);
    const copy = new Map(rows);
    forgetCounted(copy, 3);
    expect(pool.used()).toBe(100);
  });

  it('counts a replacing table on sync: the replaced records go, the new ones count as new', () => {
    const { pool, world, rows, put } = setup();
    put(1, 100);
    put(2, 100);
    const imported = new Map<number, Row>([
      [2, { done: true, size: 50 }],
      [9, { done: false, size: 70 }],
      [10, { done: true, size: 30 }],
    ]);
    TABLE.sync(world, imported);
    expect(pool.used()).toBe(80);
    expect(world.stats()).toEqual({ rows: { bytes: 80, evicted: 0 } });
    // The old table is counted no more: deleting from it changes nothing.
    forgetCounted(rows, 1);
    expect(pool.used()).toBe(80);
    forgetCounted(imported, 10);
    expect(pool.used()).toBe(50);
  });

  it('keeps the age of the records a sync finds unchanged (a seed that copied the table)', () => {
    const { budget, pool, world, rows, put } = setup(400);
    put(1, 100);
    const other = budget.forWorld();
    const theirs = new Map<number, Row>([[1, { done: true, size: 100 }]]);
    TABLE.count(other, theirs, 1);
    put(2, 100);
    // A seed: a new table with the same records and one more.
    const seeded = new Map(rows);
    seeded.set(3, { done: true, size: 100 });
    TABLE.sync(world, seeded);
    expect(pool.used()).toBe(400);
    // Full: the oldest of all is still this world's record 1 (counted anew, it would be the other's).
    theirs.set(2, { done: true, size: 100 });
    TABLE.count(other, theirs, 2);
    expect([...seeded.keys()]).toEqual([2, 3]);
    expect([...theirs.keys()]).toEqual([1, 2]);
  });

  it('counts a table it was not told of on the first count (a replaced table nobody synced)', () => {
    const { pool, world, put } = setup();
    put(1, 100);
    const replaced = new Map<number, Row>([[5, { done: true, size: 40 }]]);
    replaced.set(6, { done: true, size: 60 });
    TABLE.count(world, replaced, 6);
    expect(pool.used()).toBe(100);
    expect(TABLE.bytesOf(replaced)).toBe(100);
  });

  it('gives its bytes back on release and keeps counting what the budget evicted of it', () => {
    const { pool, world, rows, put } = setup(150);
    put(1, 100);
    put(2, 100); // 1 goes
    TABLE.release(world);
    expect(pool.used()).toBe(0);
    expect(world.stats()).toEqual({ rows: { bytes: 0, evicted: 1 } });
    TABLE.sync(world, rows);
    expect(world.stats()).toEqual({ rows: { bytes: 100, evicted: 1 } });
  });

  it('counts nothing for a disposed world, and nothing without a budget', () => {
    const { pool, world, rows, put } = setup();
    world.dispose();
    put(1, 100);
    TABLE.count(undefined, rows, 1);
    TABLE.sync(undefined, rows);
    expect(pool.used()).toBe(0);
  });
});
