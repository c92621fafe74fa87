/**
 * The embedded analytics store: CVAT's ClickHouse `events` table, in memory and columnar. Numbers live
 * in typed arrays (NaN is NULL), low-cardinality strings (scope, source, user, org) are dictionary codes,
 * and only `obj_name`, `obj_val` and `payload` keep one string reference per row, so an event costs
 * about 100 bytes plus its payload and a million of them fit comfortably.
 */

/** One row of the event log as CVAT stores it (timestamp in epoch milliseconds, `DateTime64(3)`). */
export interface EventRecord {
  scope: string;
  obj_name: string | null;
  obj_id: number | null;
  obj_val: string | null;
  source: string | null;
  timestamp: number;
  count: number | null;
  duration: number;
  project_id: number | null;
  task_id: number | null;
  job_id: number | null;
  user_id: number | null;
  user_name: string | null;
  user_email: string | null;
  org_id: number | null;
  org_slug: string | null;
  payload: string | null;
  access_token_id: number | null;
}

/** The id columns an export can filter on (equality; a falsy value means "no filter"). */
export const ID_FILTERS = ['org_id', 'project_id', 'task_id', 'job_id', 'user_id'] as const;
export type IdFilter = (typeof ID_FILTERS)[number];

/** An export query: `timestamp` in [from, to] (ms, inclusive) plus id equalities. */
export interface EventQuery {
  from: number;
  to: number;
  ids: Partial<Record<IdFilter, number>>;
}

const NUMERIC = [
  'timestamp',
  'obj_id',
  'count',
  'duration',
  'project_id',
  'task_id',
  'job_id',
  'user_id',
  'org_id',
  'access_token_id',
] as const;
type NumericColumn = (typeof NUMERIC)[number];
const CODED = ['scope', 'source', 'user_name', 'user_email', 'org_slug'] as const;
type CodedColumn = (typeof CODED)[number];
const PLAIN = ['obj_name', 'obj_val', 'payload'] as const;
type PlainColumn = (typeof PLAIN)[number];

/**
 * Flattens a concatenated string (a V8 rope) in place: a string→number conversion does. Without it the
 * first export flattens every stored payload and the store silently grows by the size of the log.
 */
function flatten(s: string | null): string | null {
  if (s !== null && s.length > 0) Number(s);
  return s;
}

/** A dictionary of strings; code 0 is NULL. */
class Dictionary {
  private readonly codes = new Map<string, number>();
  readonly values: (string | null)[] = [null];
  code(value: string | null): number {
    if (value === null) return 0;
    let c = this.codes.get(value);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(value);
      this.codes.set(value, c);
    }
    return c;
  }
  has(value: string): number | undefined {
    return this.codes.get(value);
  }
}

export class EventStore {
  private capacity = 0;
  private size = 0;
  private readonly numeric = {} as Record<NumericColumn, Float64Array>;
  private readonly coded = {} as Record<CodedColumn, Uint32Array>;
  private readonly plain = {} as Record<PlainColumn, (string | null)[]>;
  private readonly dict = {} as Record<CodedColumn, Dictionary>;
  /** True while rows were appended in non-decreasing timestamp order (exports then need no sort). */
  private ordered = true;

  constructor() {
    for (const c of CODED) this.dict[c] = new Dictionary();
    for (const c of PLAIN) this.plain[c] = [];
    this.grow(1024);
  }

  get length(): number {
    return this.size;
  }

  private grow(min: number): void {
    let next = Math.max(this.capacity * 2, 1024);
    while (next < min) next *= 2;
    for (const c of NUMERIC) {
      const arr = new Float64Array(next);
      if (this.capacity > 0) arr.set(this.numeric[c].subarray(0, this.size));
      this.numeric[c] = arr;
    }
    for (const c of CODED) {
      const arr = new Uint32Array(next);
      if (this.capacity > 0) arr.set(this.coded[c].subarray(0, this.size));
      this.coded[c] = arr;
    }
    this.capacity = next;
  }

  /** Appends one row; returns its index. */
  append(row: EventRecord): number {
    if (this.size === this.capacity) this.grow(this.size + 1);
    const i = this.size;
    if (i > 0 && row.timestamp < (this.numeric.timestamp[i - 1] as number)) this.ordered = false;
    for (const c of NUMERIC) {
      const v = row[c];
      this.numeric[c][i] = v === null || v === undefined ? Number.NaN : v;
    }
    for (const c of CODED) this.coded[c][i] = this.dict[c].code(row[c] ?? null);
    for (const c of PLAIN) this.plain[c][i] = flatten(row[c] ?? null);
    this.size++;
    return i;
  }

  /** Reads row `i` back as a record. */
  row(i: number): EventRecord {
    const num = (c: NumericColumn): number | null => {
      const v = this.numeric[c][i] as number;
      return Number.isNaN(v) ? null : v;
    };
    const str = (c: CodedColumn) => this.dict[c].values[this.coded[c][i] as number] ?? null;
    return {
      scope: str('scope') as string,
      obj_name: this.plain.obj_name[i] ?? null,
      obj_id: num('obj_id'),
      obj_val: this.plain.obj_val[i] ?? null,
      source: str('source'),
      timestamp: this.numeric.timestamp[i] as number,
      count: num('count'),
      duration: num('duration') ?? 0,
      project_id: num('project_id'),
      task_id: num('task_id'),
      job_id: num('job_id'),
      user_id: num('user_id'),
      user_name: str('user_name'),
      user_email: str('user_email'),
      org_id: num('org_id'),
      org_slug: str('org_slug'),
      payload: this.plain.payload[i] ?? null,
      access_token_id: num('access_token_id'),
    };
  }

  /**
   * The columns as they are now, for readers on a hot path (the CSV export). Growing the store replaces
   * the arrays: take them again after rows were appended. Dictionary values are indexed by code.
   */
  columns(): {
    numeric: Readonly<Record<NumericColumn, Float64Array>>;
    coded: Readonly<Record<CodedColumn, Uint32Array>>;
    plain: Readonly<Record<PlainColumn, readonly (string | null)[]>>;
    values: Readonly<Record<CodedColumn, readonly (string | null)[]>>;
  } {
    const values = {} as Record<CodedColumn, readonly (string | null)[]>;
    for (const c of CODED) values[c] = this.dict[c].values;
    return { numeric: this.numeric, coded: this.coded, plain: this.plain, values };
  }

  timestampOf(i: number): number {
    return this.numeric.timestamp[i] as number;
  }

  /**
   * CVAT's export query: `source in ('server','client') AND scope != 'send:exception' AND timestamp
   * BETWEEN from AND to AND <id> = <value>…`, over the first `limit` rows (rows logged after the export
   * ran are not part of it).
   */
  matches(i: number, query: EventQuery): boolean {
    const ts = this.numeric.timestamp[i] as number;
    if (ts < query.from || ts > query.to) return false;
    const source = this.dict.source.values[this.coded.source[i] as number];
    if (source !== 'server' && source !== 'client') return false;
    if (this.coded.scope[i] === this.dict.scope.has('send:exception')) return false;
    for (const key of ID_FILTERS) {
      const want = query.ids[key];
      if (want !== undefined && this.numeric[key][i] !== want) return false;
    }
    return true;
  }

  /**
   * The indexes of the rows matching `query` among the first `limit` rows, in timestamp order (ties in
   * insertion order), produced lazily. When rows were appended in order no index is built at all;
   * otherwise one `Uint32Array` of the matching indexes (4 bytes a row) is sorted.
   */
  *scan(query: EventQuery, limit = this.size): Generator<number> {
    const end = Math.min(limit, this.size);
    if (this.isOrdered(end)) {
      let lo = 0;
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((this.numeric.timestamp[mid] as number) < query.from) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < end; i++) {
        if ((this.numeric.timestamp[i] as number) > query.to) return;
        if (this.matches(i, query)) yield i;
      }
      return;
    }
    let count = 0;
    for (let i = 0; i < end; i++) if (this.matches(i, query)) count++;
    const index = new Uint32Array(count);
    let k = 0;
    for (let i = 0; i < end && k < count; i++) if (this.matches(i, query)) index[k++] = i;
    const ts = this.numeric.timestamp;
    index.sort((a, b) => (ts[a] as number) - (ts[b] as number) || a - b);
    yield* index;
  }

  private isOrdered(end: number): boolean {
    if (this.ordered || end <= 1) return true;
    for (let i = 1; i < end; i++) {
      if ((this.numeric.timestamp[i] as number) < (this.numeric.timestamp[i - 1] as number)) return false;
    }
    return true;
  }

  /** Rough bytes held by the columns (for `/_sim/events` stats). */
  approxBytes(): number {
    let bytes = this.capacity * (NUMERIC.length * 8 + CODED.length * 4 + PLAIN.length * 8);
    for (let i = 0; i < this.size; i++) {
      bytes += (this.plain.payload[i]?.length ?? 0) * 2 + (this.plain.obj_val[i]?.length ?? 0) * 2;
    }
    return bytes;
  }

  /** Every row, in insertion order (state snapshots). */
  *rows(): Generator<EventRecord> {
    for (let i = 0; i < this.size; i++) yield this.row(i);
  }
}
