import { countMapReads } from '@sims/test-support/map-reads';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';

/** A seed of `count` users, a project per 10 and `count` tasks with data (2 jobs each), one per user. */
function world(count: number) {
  return {
    users: Array.from({ length: count }, (_, i) => ({ username: `u${i}` })),
    projects: Array.from({ length: count / 10 }, (_, i) => ({
      name: `p${i}`,
      owner: `u${i}`,
      labels: [{ name: 'car' }],
    })),
    tasks: Array.from({ length: count }, (_, i) => ({
      name: `t${i}`,
      owner: `u${i}`,
      project: `p${i % (count / 10)}`,
      size: 10,
      segment_size: 5,
    })),
  };
}

describe('seeding at scale', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('reads a bounded number of stored entries per seeded item, however many it seeds', () => {
    const readsPerItem = (count: number) => {
      h?.close();
      h = createHarness();
      const { result, reads } = countMapReads(() => h.seed(world(count)));
      expect(Object.keys(result.tasks)).toHaveLength(count);
      expect(result.tasks[`t${count - 1}`]?.jobs).toHaveLength(2);
      return reads / (2.1 * count);
    };
    const small = readsPerItem(100);
    const large = readsPerItem(800);
    // A user looked up by a scan of the users, a task's jobs by a scan of all jobs (as before), read
    // hundreds more entries per item at 800.
    expect(large).toBeLessThanOrEqual(small * 1.1);
    expect(large).toBeLessThan(20);
  });

  it('takes a name to mean its first record, made before the seed or by it', () => {
    h = createHarness();
    const first = h.seed({ users: [{ username: 'ann' }], projects: [{ name: 'p', owner: 'ann' }] });
    const again = h.seed({
      projects: [{ name: 'p', owner: 'admin' }],
      tasks: [{ name: 't', owner: 'ann', project: 'p' }],
    });
    expect(again.projects.p).not.toBe(first.projects.p);
    const task = h.state().tasks.get(again.tasks.t?.id as number);
    expect(task?.project_id).toBe(first.projects.p);
    expect(task?.owner_id).toBe(first.users.ann);
    expect(() => h.seed({ users: [{ username: 'ann' }] })).toThrow(/user "ann" exists/);
  });
});
