/**
 * The embedded analytics store: CVAT's ClickHouse `events` table, in memory and columnar. Numbers live
 * in typed arrays (NaN is NULL) and low-cardinality strings (scope, source, user, org) are dictionary
 * codes. `obj_name`, `obj_val` and `payload` are not kept as strings: every row's CSV line (the export's
 * exact bytes) is written once, when the row is appended, into large byte segments, and those three
 * fields are read back from it. An export then copies stored lines (contiguous runs at once) instead of
 * formatting a million rows, and a row costs its line plus about 80 bytes of columns.
 *
 * A store costs what it holds: nothing is allocated before the first row, and the columns and the line
 * segments grow geometrically from small sizes (every namespace has a store, and most log a few rows).
 */

import {
  type CsvLineInput,
  type CsvLineWriter,
  createCsvLineInput,
  createCsvLineWriter,
  splitCsvLine,
} from './csv';
import { type EventQuery, type EventRecord, ID_FILTERS } from './record';
import {
  BIT,
  CODED,
  type CodedColumn,
  EMPTY_F64,
  EMPTY_U32,
  FIELD,
  FIRST_CAPACITY,
  FIRST_SEGMENT_BYTES,
  MAX_SEGMENT_BYTES,
  NUMERIC,
  type NumericColumn,
  ROW_COLUMN_BYTES,
} from './store-layout';
import { Dictionary, exactInUtf8, negativeZero, numberOrNaN, parseNumber, text } from './store-values';

/** Decodes whole lines (no streaming state, so one serves every store). */
const DECODER = new TextDecoder();

/** The three texts read back from the line; kept as given when the line cannot hold them exactly. */
interface Texts {
  obj_name: string | null;
  obj_val: string | null;
  payload: string | null;
}

/** The stored CSV lines of the rows an export matches, in order, copied out a chunk at a time. */
export interface LineCursor {
  /** Copies the lines of the next rows into `buf` from `pos` while whole lines fit; returns the new position. */
  fill(buf: Uint8Array, pos: number): number;
  /** Bytes of the next line; 0 when no row is left. */
  nextLineBytes(): number;
}

export class EventStore {
  private capacity = 0;
  private size = 0;
  private readonly numeric = {} as Record<NumericColumn, Float64Array>;
  private readonly coded = {} as Record<CodedColumn, Uint32Array>;
  private readonly dict = {} as Record<CodedColumn, Dictionary>;
  /** Row i's line is `segments[lineSegment[i]]` from `lineStart[i]` to `lineEnd[i]`. */
  private lineSegment = new Uint32Array(0);
  private lineStart = new Uint32Array(0);
  private lineEnd = new Uint32Array(0);
  private nulls = new Uint8Array(0);
  private readonly segments: Uint8Array[] = [];
  private segmentUsed = 0;
  private lineBytes = 0;
  /** Rows whose texts a line cannot give back exactly (lone surrogates), as given. */
  private readonly inexact = new Map<number, Texts>();
  /** The line writer and its scratch input, made on the first append. */
  private writer: CsvLineWriter | undefined;
  private input: CsvLineInput | undefined;
  /** True while rows were appended in non-decreasing timestamp order (exports then need no sort). */
  private ordered = true;

  constructor() {
    for (const c of NUMERIC) this.numeric[c] = EMPTY_F64;
    for (const c of CODED) {
      this.coded[c] = EMPTY_U32;
      this.dict[c] = new Dictionary();
    }
  }

  get length(): number {
    return this.size;
  }

  /** Reallocates every column for `min` rows or more, in one buffer (a view per column). */
  private grow(min: number): void {
    let next = Math.max(this.capacity * 2, FIRST_CAPACITY);
    while (next < min) next *= 2;
    const buffer = new ArrayBuffer(next * ROW_COLUMN_BYTES);
    let at = 0;
    const f64 = (old: Float64Array) => {
      const arr = new Float64Array(buffer, at, next);
      arr.set(old.subarray(0, this.size));
      at += next * 8;
      return arr;
    };
    const u32 = (old: Uint32Array) => {
      const arr = new Uint32Array(buffer, at, next);
      arr.set(old.subarray(0, this.size));
      at += next * 4;
      return arr;
    };
    for (const c of NUMERIC) this.numeric[c] = f64(this.numeric[c]);
    for (const c of CODED) this.coded[c] = u32(this.coded[c]);
    this.lineSegment = u32(this.lineSegment);
    this.lineStart = u32(this.lineStart);
    this.lineEnd = u32(this.lineEnd);
    const nulls = new Uint8Array(buffer, at, next);
    nulls.set(this.nulls.subarray(0, this.size));
    this.nulls = nulls;
    this.capacity = next;
  }

  /** Appends one row (and writes its CSV line); returns its index. */
  append(row: EventRecord): number {
    if (this.size === this.capacity) this.grow(this.size + 1);
    const i = this.size;
    if (i > 0 && row.timestamp < (this.numeric.timestamp[i - 1] as number)) this.ordered = false;
    // Column by column with literal keys (a loop over the names makes every access a keyed lookup). The
    // line takes each number back from its Float64Array: what is stored is what is written.
    const n = this.numeric;
    if (this.input === undefined) {
      this.input = createCsvLineInput();
      this.writer = createCsvLineWriter();
    }
    const r = this.input;
    n.timestamp[i] = numberOrNaN(row.timestamp);
    r.timestamp = n.timestamp[i] as number;
    n.project_id[i] = numberOrNaN(row.project_id);
    r.projectId = n.project_id[i] as number;
    n.task_id[i] = numberOrNaN(row.task_id);
    r.taskId = n.task_id[i] as number;
    n.job_id[i] = numberOrNaN(row.job_id);
    r.jobId = n.job_id[i] as number;
    n.user_id[i] = numberOrNaN(row.user_id);
    r.userId = n.user_id[i] as number;
    n.org_id[i] = numberOrNaN(row.org_id);
    r.orgId = n.org_id[i] as number;
    r.objId = numberOrNaN(row.obj_id);
    r.count = numberOrNaN(row.count);
    r.duration = numberOrNaN(row.duration);
    r.accessTokenId = numberOrNaN(row.access_token_id);
    const d = this.dict;
    const codes = this.coded;
    let c = d.scope.code(row.scope ?? null);
    codes.scope[i] = c;
    r.scope = d.scope.fields[c] as Uint8Array;
    c = d.source.code(row.source ?? null);
    codes.source[i] = c;
    r.source = d.source.fields[c] as Uint8Array;
    c = d.user_name.code(row.user_name ?? null);
    codes.user_name[i] = c;
    r.userName = d.user_name.fields[c] as Uint8Array;
    c = d.user_email.code(row.user_email ?? null);
    codes.user_email[i] = c;
    r.userEmail = d.user_email.fields[c] as Uint8Array;
    c = d.org_slug.code(row.org_slug ?? null);
    codes.org_slug[i] = c;
    r.orgSlug = d.org_slug.fields[c] as Uint8Array;
    const objName = text(row.obj_name);
    const objVal = text(row.obj_val);
    const payload = text(row.payload);
    this.nulls[i] =
      (objName === null ? BIT.nullObjName : 0) |
      (objVal === null ? BIT.nullObjVal : 0) |
      (payload === null ? BIT.nullPayload : 0) |
      negativeZero(r.objId, BIT.negativeZeroObjId) |
      negativeZero(r.count, BIT.negativeZeroCount) |
      negativeZero(r.duration, BIT.negativeZeroDuration) |
      negativeZero(r.accessTokenId, BIT.negativeZeroAccessTokenId);
    if (!(exactInUtf8(objName) && exactInUtf8(objVal) && exactInUtf8(payload))) {
      this.inexact.set(i, { obj_name: objName, obj_val: objVal, payload });
    }
    r.objName = objName;
    r.objVal = objVal;
    r.payload = payload;
    this.writeLine(i, r);
    this.size++;
    return i;
  }

  private writeLine(i: number, r: CsvLineInput) {
    const writer = this.writer as CsvLineWriter;
    let segment = this.segments[this.segments.length - 1];
    let end = segment ? writer.write(segment, this.segmentUsed, r) : -1;
    if (end < 0) {
      const size = segment ? Math.min(MAX_SEGMENT_BYTES, segment.length * 2) : FIRST_SEGMENT_BYTES;
      segment = new Uint8Array(Math.max(size, writer.maxBytes(r)));
      this.segments.push(segment);
      this.segmentUsed = 0;
      end = writer.write(segment, 0, r);
    }
    this.lineSegment[i] = this.segments.length - 1;
    this.lineStart[i] = this.segmentUsed;
    this.lineEnd[i] = end;
    this.lineBytes += end - this.segmentUsed;
    this.segmentUsed = end;
    // r keeps references to this row's texts until the next append: drop them.
    r.objName = r.objVal = r.payload = null;
  }

  /** Row `i`'s CSV line as stored (with CRLF): the bytes an export writes for it. */
  line(i: number): Uint8Array {
    const segment = this.segments[this.lineSegment[i] as number] as Uint8Array;
    return segment.subarray(this.lineStart[i] as number, this.lineEnd[i] as number);
  }

  /** Reads row `i` back as a record (`obj_name`, `obj_val`, `payload` and four numbers from its line). */
  row(i: number): EventRecord {
    const num = (c: NumericColumn): number | null => {
      const v = this.numeric[c][i] as number;
      return Number.isNaN(v) ? null : v;
    };
    const str = (c: CodedColumn) => this.dict[c].values[this.coded[c][i] as number] ?? null;
    const flags = this.nulls[i] as number;
    const fields = splitCsvLine(DECODER.decode(this.line(i)));
    const texts = this.inexact.get(i) ?? {
      obj_name: flags & BIT.nullObjName ? null : (fields[FIELD.obj_name] as string),
      obj_val: flags & BIT.nullObjVal ? null : (fields[FIELD.obj_val] as string),
      payload: flags & BIT.nullPayload ? null : (fields[FIELD.payload] as string),
    };
    return {
      scope: str('scope') as string,
      obj_name: texts.obj_name,
      obj_id: parseNumber(fields[FIELD.obj_id], (flags & BIT.negativeZeroObjId) !== 0),
      obj_val: texts.obj_val,
      source: str('source'),
      timestamp: this.numeric.timestamp[i] as number,
      count: parseNumber(fields[FIELD.count], (flags & BIT.negativeZeroCount) !== 0),
      // NULL is written `0`, and read as 0 (CVAT's default).
      duration: parseNumber(fields[FIELD.duration], (flags & BIT.negativeZeroDuration) !== 0) ?? 0,
      project_id: num('project_id'),
      task_id: num('task_id'),
      job_id: num('job_id'),
      user_id: num('user_id'),
      user_name: str('user_name'),
      user_email: str('user_email'),
      org_id: num('org_id'),
      org_slug: str('org_slug'),
      payload: texts.payload,
      access_token_id: parseNumber(
        fields[FIELD.access_token_id],
        (flags & BIT.negativeZeroAccessTokenId) !== 0,
      ),
    };
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
    return this.matcher(query)(i);
  }

  /**
   * `matches` for one query, over the rows stored now: dictionary codes looked up once, the columns
   * taken once (rows appended later may move them, but never change these rows).
   */
  private matcher(query: EventQuery): (i: number) => boolean {
    const ts = this.numeric.timestamp;
    const source = this.coded.source;
    const scope = this.coded.scope;
    const server = this.dict.source.has('server') ?? -1;
    const client = this.dict.source.has('client') ?? -1;
    const exception = this.dict.scope.has('send:exception') ?? -1;
    const columns: Float64Array[] = [];
    const wanted: number[] = [];
    for (const key of ID_FILTERS) {
      const want = query.ids[key];
      if (want === undefined) continue;
      columns.push(this.numeric[key]);
      wanted.push(want);
    }
    const { from, to } = query;
    const ids = columns.length;
    return (i) => {
      const t = ts[i] as number;
      if (t < from || t > to) return false;
      const s = source[i];
      if (s !== server && s !== client) return false;
      if (scope[i] === exception) return false;
      for (let k = 0; k < ids; k++) if ((columns[k] as Float64Array)[i] !== wanted[k]) return false;
      return true;
    };
  }

  /**
   * The indexes of the rows matching `query` among the first `limit` rows, in timestamp order (ties in
   * insertion order), one at a time: `next()` gives -1 when done. When rows were appended in order no
   * index is built at all; otherwise one `Uint32Array` of the matching indexes (4 bytes a row) is sorted.
   */
  private indexes(query: EventQuery, limit: number): { next(): number } {
    const end = Math.min(limit, this.size);
    const matches = this.matcher(query);
    const ts = this.numeric.timestamp;
    if (this.isOrdered(end)) {
      let lo = 0;
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((ts[mid] as number) < query.from) lo = mid + 1;
        else hi = mid;
      }
      let i = lo;
      const to = query.to;
      return {
        next() {
          while (i < end) {
            const k = i++;
            if ((ts[k] as number) > to) {
              i = end;
              return -1;
            }
            if (matches(k)) return k;
          }
          return -1;
        },
      };
    }
    let count = 0;
    for (let i = 0; i < end; i++) if (matches(i)) count++;
    const index = new Uint32Array(count);
    let k = 0;
    for (let i = 0; i < end && k < count; i++) if (matches(i)) index[k++] = i;
    index.sort((a, b) => (ts[a] as number) - (ts[b] as number) || a - b);
    let at = 0;
    return { next: () => (at < count ? (index[at++] as number) : -1) };
  }

  /** The matching rows' indexes (see `lines`), produced lazily. */
  *scan(query: EventQuery, limit = this.size): Generator<number> {
    const rows = this.indexes(query, limit);
    for (let i = rows.next(); i >= 0; i = rows.next()) yield i;
  }

  /**
   * The CSV lines of the rows matching `query` among the first `limit` rows, in `scan` order, for an
   * export: lines of consecutive rows lie next to each other, so runs of them are copied at once.
   */
  lines(query: EventQuery, limit = this.size): LineCursor {
    const rows = this.indexes(query, limit);
    const segments = this.segments;
    const segmentOf = this.lineSegment;
    const startOf = this.lineStart;
    const endOf = this.lineEnd;
    let next = rows.next();
    return {
      nextLineBytes: () => (next < 0 ? 0 : (endOf[next] as number) - (startOf[next] as number)),
      fill(buf, pos) {
        let p = pos;
        while (next >= 0) {
          // The run of lines contiguous in one segment starting at `next`, as long as it fits.
          const segment = segmentOf[next] as number;
          const start = startOf[next] as number;
          let end = endOf[next] as number;
          if (p + end - start > buf.length) break;
          for (;;) {
            next = rows.next();
            if (next < 0 || segmentOf[next] !== segment || startOf[next] !== end) break;
            const e = endOf[next] as number;
            if (p + e - start > buf.length) break;
            end = e;
          }
          buf.set((segments[segment] as Uint8Array).subarray(start, end), p);
          p += end - start;
        }
        return p;
      },
    };
  }

  private isOrdered(end: number): boolean {
    if (this.ordered || end <= 1) return true;
    for (let i = 1; i < end; i++) {
      if ((this.numeric.timestamp[i] as number) < (this.numeric.timestamp[i - 1] as number)) return false;
    }
    return true;
  }

  /** Rough bytes held by the columns and the lines (for `/_sim/events` stats). */
  approxBytes(): number {
    return this.capacity * ROW_COLUMN_BYTES + this.lineBytes;
  }

  /** Bytes allocated for the columns and the line segments, used or not. */
  allocatedBytes(): number {
    let segments = 0;
    for (const s of this.segments) segments += s.byteLength;
    return this.capacity * ROW_COLUMN_BYTES + segments;
  }

  /** Every row, in insertion order (state snapshots). */
  *rows(): Generator<EventRecord> {
    for (let i = 0; i < this.size; i++) yield this.row(i);
  }
}
