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
 *
 * Rows have absolute numbers (the n-th row appended is row n for good) and `evictOldest` removes the
 * oldest, so a row limit an export captured still names the same rows; evicted ones are gone. Readers
 * spanning appends (`store-scan.ts`) take the arrays again whenever `version` says they moved.
 */

import {
  type CsvLineInput,
  type CsvLineWriter,
  createCsvLineInput,
  createCsvLineWriter,
  splitCsvLine,
} from './csv';
import { type EventQuery, type EventRecord, ID_FILTERS } from './record';
import * as evict from './store-evict';
import {
  BIT,
  CODED,
  type CodedColumn,
  EMPTY_F64,
  EMPTY_U8,
  EMPTY_U32,
  FIELD,
  FIRST_CAPACITY,
  NUMERIC,
  type NumericColumn,
  ROW_COLUMN_BYTES,
} from './store-layout';
import { type LineCursor, lineCursor, rowNumbers, type StoreView } from './store-scan';
import { Dictionary, exactInUtf8, negativeZero, numberOrNaN, parseNumber, text } from './store-values';

/** Decodes whole lines (no streaming state, so one serves every store). */
const DECODER = new TextDecoder();

/** The three texts read back from the line; kept as given when the line cannot hold them exactly. */
type Texts = Record<'obj_name' | 'obj_val' | 'payload', string | null>;

export class EventStore {
  private capacity = 0;
  /** Rows held; row `first + p` is at position `p` of the columns. */
  private size = 0;
  /** The absolute number of the oldest row held: how many rows were evicted. */
  private first: number;
  /** Bumped whenever the columns or the line segments move (grown, shrunk, evicted from). */
  private epoch = 0;
  private readonly numeric = {} as Record<NumericColumn, Float64Array>;
  private readonly coded = {} as Record<CodedColumn, Uint32Array>;
  /** The dictionaries of the coded columns, made on the first append (as the writer). */
  private dict: Record<CodedColumn, Dictionary> | undefined;
  /** The line of the row at position p is `segments[lineSegment[p]]` from `lineStart[p]` to `lineEnd[p]`. */
  private lineSegment = EMPTY_U32;
  private lineStart = EMPTY_U32;
  private lineEnd = EMPTY_U32;
  private nulls = EMPTY_U8;
  private segments: Uint8Array[] = [];
  /** Segments no row uses any more, kept to write later lines into. */
  private spares: Uint8Array[] = [];
  private segmentUsed = 0;
  private lineBytes = 0;
  /** Rows (by absolute number) whose texts a line cannot give back exactly (lone surrogates), as given. */
  private inexact: Map<number, Texts> | undefined;
  /** The line writer and its scratch input, made on the first append. */
  private writer: CsvLineWriter | undefined;
  private input: CsvLineInput | undefined;
  /** True while rows were appended in non-decreasing timestamp order (exports then need no sort). */
  private ordered = true;

  /** @param first the absolute number of the first row (a snapshot's evicted rows). */
  constructor(first = 0) {
    this.first = first;
    for (const c of NUMERIC) this.numeric[c] = EMPTY_F64;
    for (const c of CODED) this.coded[c] = EMPTY_U32;
  }

  get length(): number {
    return this.size;
  }

  /** Rows ever appended, evicted ones included: the number the next row gets (an export's row limit). */
  get appended(): number {
    return this.first + this.size;
  }

  /** Rows evicted so far (the oldest first). */
  get evicted(): number {
    return this.first;
  }

  /** Reallocates every column for `next` rows (at least the rows held), in one buffer (a view per column). */
  private reallocate(next: number): void {
    this.epoch++;
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

  /** Appends one row (and writes its CSV line); returns its absolute number. */
  append(row: EventRecord): number {
    if (this.size === this.capacity) this.reallocate(Math.max(this.capacity * 2, FIRST_CAPACITY));
    const i = this.size;
    if (i > 0 && row.timestamp < (this.numeric.timestamp[i - 1] as number)) this.ordered = false;
    // Column by column with literal keys (a loop over the names makes every access a keyed lookup). The
    // line takes each number back from its Float64Array: what is stored is what is written.
    const n = this.numeric;
    if (this.input === undefined) {
      this.input = createCsvLineInput();
      this.writer = createCsvLineWriter();
      this.dict = Object.fromEntries(CODED.map((c) => [c, new Dictionary()])) as typeof this.dict;
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
    const d = this.dict as Record<CodedColumn, Dictionary>;
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
      this.inexact ??= new Map();
      this.inexact.set(this.first + i, { obj_name: objName, obj_val: objVal, payload });
    }
    r.objName = objName;
    r.objVal = objVal;
    r.payload = payload;
    this.writeLine(i, r);
    this.size++;
    return this.first + i;
  }

  /**
   * Removes the oldest `count` rows (all of them at most). The columns move down in place; segments
   * holding only evicted lines are released, or kept as spares while they are worth as many bytes as
   * the next rows will need; lines left in mostly unused segments are copied into smaller ones, and
   * columns left mostly empty are reallocated smaller. Costs the rows kept: callers evict in batches.
   */
  evictOldest(count: number): void {
    const n = Math.min(this.size, Math.max(0, Math.floor(count)));
    if (n === 0) return;
    this.epoch++;
    const keep = this.size - n;
    const evictedBytes = evict.bytesBetween(this.lineStart, this.lineEnd, n);
    const columns = [...Object.values(this.numeric), ...Object.values(this.coded)];
    evict.shiftDown([...columns, this.lineSegment, this.lineStart, this.lineEnd, this.nulls], n, this.size);
    const unused = keep === 0 ? this.segments.length : (this.lineSegment[0] as number);
    const freed = evict.dropSegments(this.segments, this.lineSegment, keep, unused);
    if (keep === 0) this.segmentUsed = 0;
    this.lineBytes -= evictedBytes;
    this.spares = evict.keptSpares(
      [...this.spares, ...freed],
      Math.min(evictedBytes, Math.ceil(this.lineBytes / 3)),
    );
    const first = this.first + n;
    if (this.inexact) for (const k of this.inexact.keys()) if (k < first) this.inexact.delete(k);
    this.first = first;
    this.size = keep;
    const line = { segment: this.lineSegment, start: this.lineStart, end: this.lineEnd };
    const packed = evict.repacked(this.segments, line, keep, this.lineBytes);
    if (packed) [this.segments, this.segmentUsed] = packed;
    if (this.capacity > FIRST_CAPACITY && keep * 4 < this.capacity) this.reallocate(evict.capacityFor(keep));
  }

  /**
   * Counts `count` rows as appended and at once evicted, never written: the oldest rows of a write
   * larger than the log keeps, which no reader could see (`recordEvents`). Only on an empty store.
   */
  skip(count: number): void {
    if (count <= 0) return;
    if (this.size !== 0) throw new RangeError('rows are skipped only in an empty store');
    this.epoch++;
    this.first += count;
  }

  private writeLine(i: number, r: CsvLineInput) {
    const writer = this.writer as CsvLineWriter;
    let segment = this.segments[this.segments.length - 1];
    let end = segment ? writer.write(segment, this.segmentUsed, r) : -1;
    if (end < 0) {
      const need = writer.maxBytes(r);
      const spare = this.spares.pop();
      segment =
        spare && spare.length >= need
          ? spare
          : new Uint8Array(Math.max(evict.nextSegmentBytes(segment?.length, this.lineBytes), need));
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
    const p = this.position(i);
    const segment = this.segments[this.lineSegment[p] as number] as Uint8Array;
    return segment.subarray(this.lineStart[p] as number, this.lineEnd[p] as number);
  }

  /** Where row `i` (an absolute number) is in the columns; throws when it is not held. */
  private position(i: number): number {
    const p = i - this.first;
    if (!(p >= 0 && p < this.size)) throw new RangeError(`row ${i} is not held (evicted or unwritten)`);
    return p;
  }

  /** Reads row `i` back as a record (`obj_name`, `obj_val`, `payload` and four numbers from its line). */
  row(i: number): EventRecord {
    const p = this.position(i);
    const num = (c: NumericColumn): number | null => {
      const v = this.numeric[c][p] as number;
      return Number.isNaN(v) ? null : v;
    };
    const str = (c: CodedColumn) => this.dict?.[c].values[this.coded[c][p] as number] ?? null;
    const flags = this.nulls[p] as number;
    const fields = splitCsvLine(DECODER.decode(this.line(i)));
    const texts = this.inexact?.get(i) ?? {
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
      timestamp: this.numeric.timestamp[p] as number,
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

  /**
   * CVAT's export query for row `i`: `source in ('server','client') AND scope != 'send:exception' AND
   * timestamp BETWEEN from AND to AND <id> = <value>…`.
   */
  matches(i: number, query: EventQuery): boolean {
    return this.matcher(query)(this.position(i));
  }

  /**
   * `matches` for one query, by position in the columns held now: dictionary codes looked up once, the
   * columns taken once (valid until `epoch` changes).
   */
  private matcher(query: EventQuery): (p: number) => boolean {
    const ts = this.numeric.timestamp;
    const source = this.coded.source;
    const scope = this.coded.scope;
    const server = this.dict?.source.has('server') ?? -1;
    const client = this.dict?.source.has('client') ?? -1;
    const exception = this.dict?.scope.has('send:exception') ?? -1;
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
    return (p) => {
      const t = ts[p] as number;
      if (t < from || t > to) return false;
      const s = source[p];
      if (s !== server && s !== client) return false;
      if (scope[p] === exception) return false;
      for (let k = 0; k < ids; k++) if ((columns[k] as Float64Array)[p] !== wanted[k]) return false;
      return true;
    };
  }

  /** What the readers of `store-scan.ts` need for `query`, valid while `epoch` stays the same. */
  view(query: EventQuery): StoreView {
    return {
      epoch: this.epoch,
      first: this.first,
      size: this.size,
      ordered: this.ordered,
      timestamp: this.numeric.timestamp,
      segments: this.segments,
      lineSegment: this.lineSegment,
      lineStart: this.lineStart,
      lineEnd: this.lineEnd,
      matches: this.matcher(query),
    };
  }

  get version(): number {
    return this.epoch;
  }

  /**
   * The absolute numbers of the rows matching `query` among those numbered below `limit` (an export's
   * `appended` when it ran: later rows are not part of it), in timestamp order, ties in insertion order.
   * Rows evicted meanwhile are skipped.
   */
  *scan(query: EventQuery, limit = this.appended): Generator<number> {
    const rows = rowNumbers(this, query, limit);
    for (let i = rows.next(); i >= 0; i = rows.next()) yield i;
  }

  /** The CSV lines of the rows `scan` gives, for an export (runs of adjacent lines copied at once). */
  lines(query: EventQuery, limit = this.appended): LineCursor {
    return lineCursor(this, query, limit);
  }

  /** Rough bytes held by the columns and the lines (for `/_sim/events` stats). */
  approxBytes(): number {
    return this.capacity * ROW_COLUMN_BYTES + this.lineBytes;
  }

  /**
   * What the rows held cost, for the memory budget: their lines and columns, as allocated about: the
   * columns double as they grow (up to half empty), the line segments too, and a segment being filled
   * or kept spare is partly empty (measured: 1.4 times the lines and columns for stores of a few
   * hundred rows, the many namespaces case).
   */
  heldBytes(): number {
    return Math.ceil(this.lineBytes * 1.5) + this.size * ROW_COLUMN_BYTES * 2;
  }

  /** Bytes allocated for the columns and the line segments (spares too), used or not. */
  allocatedBytes(): number {
    let segments = 0;
    for (const s of this.segments) segments += s.byteLength;
    for (const s of this.spares) segments += s.byteLength;
    return this.capacity * ROW_COLUMN_BYTES + segments;
  }

  /** Every row held, in insertion order (state snapshots). */
  *rows(): Generator<EventRecord> {
    const end = this.appended;
    for (let i = this.first; i < end; i++) yield this.row(i);
  }
}
