import { describe, expect, it } from 'vitest';
import type { Result } from '../src/domain/errors';
import { type FilterTerms, jsonLogicFilter } from '../src/http/json-logic-filter';
import { nonModelJsonLogicFilter } from '../src/http/json-logic-non-model';
import { QUERY_LIMITS } from '../src/http/query-limits';
import { createHarness, TEAM } from './support/harness';

interface Row {
  id: number;
  name: string;
}

const ROWS: Row[] = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, name: `t${i + 1}` }));

/** Terms whose every read of a row is counted: the work a rule costs is the reads it makes. */
function countingTerms() {
  const reads = { count: 0 };
  const counted =
    <K extends keyof Row>(key: K) =>
    (row: Row): Row[K] => {
      reads.count++;
      return row[key];
    };
  const terms: FilterTerms<Row> = {
    id: { type: 'int', get: counted('id'), modelField: true },
    name: { type: 'str', get: counted('name'), modelField: true },
  };
  const fields = { id: counted('id'), name: counted('name') };
  return { reads, terms, fields };
}

/** `{"or":[{"==":[{"var":"id"},1]},…]}` with as many comparisons as `values` allow (7 each, 3 around). */
function widestOr(values: number): string {
  const n = Math.floor((values - 3) / 7);
  return `{"or":[${Array.from({ length: n }, (_, i) => `{"==":[{"var":"id"},${i + 1}]}`).join(',')}]}`;
}

/** A filter's refusal (a 400 list's messages, else the error), or undefined when it kept rows. */
const refusal = (result: Result<unknown>): unknown => {
  if (result.ok) return undefined;
  const e = result.error;
  return e.code === 'INVALID_LIST' ? e.messages : e;
};

/** The rows a filter kept (a refusal fails the test). */
function kept<T>(result: Result<T[]>): T[] {
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.error)}`);
  return result.value;
}

describe('what a JSON Logic filter costs a row', () => {
  const overLimit = [`filter: more than ${QUERY_LIMITS.filterValues} values are not supported`];

  it('reads a row at most once per comparison of a rule as wide as the bound allows, and refuses one more', () => {
    const { reads, terms } = countingTerms();
    const rule = widestOr(QUERY_LIMITS.filterValues);
    expect(rule.length).toBeLessThan(QUERY_LIMITS.valueChars);
    expect(kept(jsonLogicFilter(ROWS, rule, terms)).map((r) => r.id)).toEqual(
      ROWS.slice(0, 142).map((r) => r.id),
    );
    // `or` stops at the first match: a row past them all reads one term per comparison.
    expect(reads.count / ROWS.length).toBeLessThanOrEqual(142);
    reads.count = 0;
    // One comparison past the bound (the review's 8 KB filter had 319: 3.7 s over 10,000 tasks).
    const wider = widestOr(QUERY_LIMITS.filterValues + 7);
    expect(refusal(jsonLogicFilter(ROWS, wider, terms))).toEqual(overLimit);
    expect(reads.count).toBe(0);
  });

  it('reads each row once for `in` over a list as long as the bound allows, and refuses a longer one', () => {
    const { reads, terms, fields } = countingTerms();
    const n = QUERY_LIMITS.filterValues - 7;
    const rule = `{"in":[{"var":"id"},[${Array.from({ length: n }, (_, i) => i * 2).join(',')}]]}`;
    expect(kept(jsonLogicFilter(ROWS, rule, terms))).toHaveLength(100);
    expect(kept(nonModelJsonLogicFilter(ROWS, rule, fields))).toHaveLength(100);
    expect(reads.count).toBe(2 * ROWS.length);
    reads.count = 0;
    const longer = `{"in":[{"var":"id"},[${'1,'.repeat(n)}1]]}`;
    expect(refusal(jsonLogicFilter(ROWS, longer, terms))).toEqual(overLimit);
    expect(refusal(nonModelJsonLogicFilter(ROWS, longer, fields))).toEqual(overLimit);
    expect(reads.count).toBe(0);
  });

  it('refuses a rule past the bound on the requests list before it evaluates any row', () => {
    const { reads, fields } = countingTerms();
    const wide = widestOr(QUERY_LIMITS.filterValues + 7);
    expect(refusal(nonModelJsonLogicFilter(ROWS, wide, fields))).toEqual(overLimit);
    expect(reads.count).toBe(0);
  });

  it('answers 400 for the wide filter over HTTP on the model lists and /api/requests', async () => {
    const h = createHarness();
    try {
      h.seed({ ...TEAM, tasks: [{ name: 't', owner: 'alice' }] });
      const wide = encodeURIComponent(widestOr(QUERY_LIMITS.filterValues + 7));
      for (const path of ['/api/tasks', '/api/webhooks', '/api/requests']) {
        const res = await h.get(`${path}?filter=${wide}`, { as: 'admin' });
        expect([res.status, res.body], path).toEqual([400, overLimit]);
      }
    } finally {
      h.close();
    }
  });
});

describe('the bounds of a list query, checked before anything reads it', () => {
  it('answers the parameter count first, whatever else of the query is past a bound', async () => {
    const h = createHarness();
    try {
      h.seed({ ...TEAM, projects: [{ name: 'p', owner: 'alice' }] });
      const many = 'x=1&'.repeat(QUERY_LIMITS.params);
      const terms = Array.from({ length: QUERY_LIMITS.searchTerms + 1 }, (_, i) => `t${i}`).join(',');
      const deep = encodeURIComponent(`${'['.repeat(200)}${']'.repeat(200)}`);
      const expected = [`query: more than ${QUERY_LIMITS.params} parameters are not supported`];
      for (const url of [
        `/api/projects?${many}search=${terms}`,
        `/api/tasks?${many}filter=${deep}`,
        `/api/webhooks?${many}filter=${deep}`,
        `/api/webhooks?${many}search=${terms}`,
        `/api/requests?${many}filter=${deep}`,
      ]) {
        const res = await h.get(url, { as: 'admin' });
        expect([res.status, res.body], url.slice(0, 20)).toEqual([400, expected]);
      }
    } finally {
      h.close();
    }
  });
});
