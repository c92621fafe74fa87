import { describe, expect, it } from 'vitest';
import { createJournal, type JournalEntry } from '../src/journal';

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
