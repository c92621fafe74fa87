import { EVENT_COLUMNS, type EventQuery, type EventRecord } from './record';
import type { LineCursor } from './store-scan';
import { formatPyDateTime } from './time';

/** CVAT's CSV header: the column names, exactly. */
export const CSV_HEADER = EVENT_COLUMNS.join(',');

/** One field as Python's `csv.writer` (Excel dialect, QUOTE_MINIMAL) writes it; None is empty. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = typeof value === 'number' ? String(value) : value;
  if (/[",\r\n]/.test(text)) return `"${text.replace(/"/g, '""')}"`;
  return text;
}

/**
 * Python's `str()` of a UTC datetime from epoch ms, reusing the date-and-second prefix of the previous
 * call: rows mostly come in timestamp order, so most rows share it.
 */
function createTimestampFormatter(): (ms: number) => string {
  let second = Number.NaN;
  let prefix = '';
  return (ms) => {
    const s = Math.floor(ms / 1000);
    if (s !== second) {
      second = s;
      prefix = formatPyDateTime(s * 1_000_000).slice(0, 19);
    }
    const frac = ms - s * 1000;
    return frac === 0 ? `${prefix}+00:00` : `${prefix}.${String(frac).padStart(3, '0')}000+00:00`;
  };
}

/**
 * One CSV line with its `\r\n` terminator. `timestamp` is Python's `str()` of the UTC datetime. The
 * reference rendering: the store writes the same line as bytes when a row is appended
 * (`createCsvLineWriter`), and tests pin the two to each other.
 */
export function renderCsvRow(
  r: EventRecord,
  formatTimestamp: (ms: number) => string = createTimestampFormatter(),
): string {
  return `${EVENT_COLUMNS.map((name) => (name === 'timestamp' ? formatTimestamp(r.timestamp) : csvField(r[name]))).join(',')}\r\n`;
}

// ---- bytes: the line of a row, written once when the row is stored ----

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;
const DOT = 0x2e;
const ZERO = 0x30;
/** `+00:00`, the end of every timestamp. */
const UTC_SUFFIX = [0x2b, 0x30, 0x30, 0x3a, 0x30, 0x30] as const;
/** Bytes a number's text can take (`String(-1.2345678901234567e+308)` is 24), with room to spare. */
const NUMBER_BYTES = 32;
/** Bytes of the fixed part of a line: ten numbers, a timestamp, 17 commas and CRLF, generously. */
const FIXED_LINE_BYTES = 10 * NUMBER_BYTES + 128 + 17 + 2;

const encoder = new TextEncoder();

/** A field as `csvField` writes it, UTF-8 encoded (for dictionary values: encoded once per value). */
export function encodeCsvField(value: string | null): Uint8Array {
  return encoder.encode(csvField(value));
}

/** Writes ASCII-only `text` (number and date texts) at `pos`; returns the position after it. */
function writeAscii(buf: Uint8Array, pos: number, text: string): number {
  const n = text.length;
  for (let k = 0; k < n; k++) buf[pos + k] = text.charCodeAt(k);
  return pos + n;
}

function copyBytes(buf: Uint8Array, pos: number, src: Uint8Array): number {
  const n = src.length;
  for (let k = 0; k < n; k++) buf[pos + k] = src[k] as number;
  return pos + n;
}

/**
 * A number as `String(v)` writes it; NaN (NULL) writes nothing. Integers in [0, 1e15) are written
 * digit by digit, anything else through `String`.
 */
function writeNumber(buf: Uint8Array, pos: number, v: number): number {
  if (v >= 0 && v < 1e15 && Math.floor(v) === v) {
    let len = 1;
    for (let t = v; t >= 10; t = Math.floor(t / 10)) len++;
    let t = v;
    for (let k = pos + len - 1; k >= pos; k--) {
      const q = Math.floor(t / 10);
      buf[k] = ZERO + (t - q * 10);
      t = q;
    }
    return pos + len;
  }
  if (Number.isNaN(v)) return pos;
  return writeAscii(buf, pos, String(v));
}

/**
 * A text field as `csvField` writes it, in UTF-8. ASCII text is written directly (quoted when it holds
 * a quote, comma, CR or LF, its quotes doubled); text with any non-ASCII character goes through
 * `csvField` and the encoder (a lone surrogate becomes U+FFFD, as `TextEncoder.encode` makes it).
 */
function writeTextField(buf: Uint8Array, pos: number, text: string): number {
  const n = text.length;
  let k = 0;
  for (; k < n; k++) {
    const c = text.charCodeAt(k);
    if (c >= 0x80 || c === QUOTE || c === COMMA || c === CR || c === LF) break;
    buf[pos + k] = c;
  }
  if (k === n) return pos + n;
  // Needs quotes, or is not ASCII: start over.
  let p = pos;
  buf[p++] = QUOTE;
  for (let j = 0; j < n; j++) {
    const c = text.charCodeAt(j);
    if (c >= 0x80) return pos + encoder.encodeInto(csvField(text), buf.subarray(pos)).written;
    if (c === QUOTE) buf[p++] = QUOTE;
    buf[p++] = c;
  }
  buf[p++] = QUOTE;
  return p;
}

/** Most bytes `writeTextField` can write for `text` (3 UTF-8 bytes a UTF-16 unit, 2 quotes). */
const textFieldBound = (text: string | null) => (text === null ? 0 : text.length * 3 + 2);

/**
 * One row's values as the line writer takes them: numbers as stored (NaN is NULL), dictionary values
 * already encoded (`encodeCsvField`), the other texts as they are. One object, refilled per row.
 */
export interface CsvLineInput {
  scope: Uint8Array;
  objName: string | null;
  objId: number;
  objVal: string | null;
  source: Uint8Array;
  timestamp: number;
  count: number;
  duration: number;
  projectId: number;
  taskId: number;
  jobId: number;
  userId: number;
  userName: Uint8Array;
  userEmail: Uint8Array;
  orgId: number;
  orgSlug: Uint8Array;
  payload: string | null;
  accessTokenId: number;
}

/** An empty `CsvLineInput` to refill. */
export function createCsvLineInput(): CsvLineInput {
  const none = new Uint8Array(0);
  return {
    scope: none,
    objName: null,
    objId: Number.NaN,
    objVal: null,
    source: none,
    timestamp: 0,
    count: Number.NaN,
    duration: 0,
    projectId: Number.NaN,
    taskId: Number.NaN,
    jobId: Number.NaN,
    userId: Number.NaN,
    userName: none,
    userEmail: none,
    orgId: Number.NaN,
    orgSlug: none,
    payload: null,
    accessTokenId: Number.NaN,
  };
}

/**
 * Writes one CSV line as bytes; `maxBytes` bounds what `write` can take. The writer is `renderCsvRow`
 * unrolled over `EVENT_COLUMNS` (a row is written when it is stored, a million rows at a time); tests
 * pin the two to each other.
 */
export interface CsvLineWriter {
  /**
   * Writes the line of `row` (with its CRLF) at `pos` of `buf`: exactly the bytes of
   * `TextEncoder.encode(renderCsvRow(record))`. Returns the position after it, or -1 (nothing
   * written) when it might not fit in the bytes left; `maxBytes(row)` always fits.
   */
  write(buf: Uint8Array, pos: number, row: CsvLineInput): number;
  maxBytes(row: CsvLineInput): number;
}

/** @example const writer = createCsvLineWriter(); const end = writer.write(segment, offset, input); */
export function createCsvLineWriter(): CsvLineWriter {
  // The timestamp: `createTimestampFormatter`'s text, its date-and-second prefix kept as bytes.
  const slowTimestamp = createTimestampFormatter();
  let second = Number.NaN;
  let prefix = new Uint8Array(0);
  const writeTimestamp = (buf: Uint8Array, pos: number, ms: number): number => {
    const s = Math.floor(ms / 1000);
    const frac = ms - s * 1000;
    if (!(frac >= 0 && frac < 1000 && Math.floor(frac) === frac)) {
      return writeAscii(buf, pos, slowTimestamp(ms));
    }
    if (s !== second) {
      second = s;
      prefix = encoder.encode(formatPyDateTime(s * 1_000_000).slice(0, 19));
    }
    let p = copyBytes(buf, pos, prefix);
    if (frac !== 0) {
      const hundreds = Math.floor(frac / 100);
      const tens = Math.floor((frac - hundreds * 100) / 10);
      buf[p] = DOT;
      buf[p + 1] = ZERO + hundreds;
      buf[p + 2] = ZERO + tens;
      buf[p + 3] = ZERO + (frac - hundreds * 100 - tens * 10);
      buf[p + 4] = ZERO;
      buf[p + 5] = ZERO;
      buf[p + 6] = ZERO;
      p += 7;
    }
    for (let k = 0; k < 6; k++) buf[p + k] = UTC_SUFFIX[k] as number;
    return p + 6;
  };
  const maxBytes = (r: CsvLineInput): number =>
    FIXED_LINE_BYTES +
    r.scope.length +
    r.source.length +
    r.userName.length +
    r.userEmail.length +
    r.orgSlug.length +
    textFieldBound(r.objName) +
    textFieldBound(r.objVal) +
    textFieldBound(r.payload);
  const write = (buf: Uint8Array, pos: number, r: CsvLineInput): number => {
    if (pos + maxBytes(r) > buf.length) return -1;
    let p = copyBytes(buf, pos, r.scope);
    buf[p++] = COMMA;
    if (r.objName !== null) p = writeTextField(buf, p, r.objName);
    buf[p++] = COMMA;
    p = writeNumber(buf, p, r.objId);
    buf[p++] = COMMA;
    if (r.objVal !== null) p = writeTextField(buf, p, r.objVal);
    buf[p++] = COMMA;
    p = copyBytes(buf, p, r.source);
    buf[p++] = COMMA;
    p = writeTimestamp(buf, p, r.timestamp);
    buf[p++] = COMMA;
    p = writeNumber(buf, p, r.count);
    buf[p++] = COMMA;
    if (Number.isNaN(r.duration)) buf[p++] = ZERO;
    else p = writeNumber(buf, p, r.duration);
    buf[p++] = COMMA;
    p = writeNumber(buf, p, r.projectId);
    buf[p++] = COMMA;
    p = writeNumber(buf, p, r.taskId);
    buf[p++] = COMMA;
    p = writeNumber(buf, p, r.jobId);
    buf[p++] = COMMA;
    p = writeNumber(buf, p, r.userId);
    buf[p++] = COMMA;
    p = copyBytes(buf, p, r.userName);
    buf[p++] = COMMA;
    p = copyBytes(buf, p, r.userEmail);
    buf[p++] = COMMA;
    p = writeNumber(buf, p, r.orgId);
    buf[p++] = COMMA;
    p = copyBytes(buf, p, r.orgSlug);
    buf[p++] = COMMA;
    if (r.payload !== null) p = writeTextField(buf, p, r.payload);
    buf[p++] = COMMA;
    p = writeNumber(buf, p, r.accessTokenId);
    buf[p] = CR;
    buf[p + 1] = LF;
    return p + 2;
  };
  return { write, maxBytes };
}

/**
 * Splits one line written by `createCsvLineWriter` (CRLF included or not) back into its field texts,
 * quotes removed and doubled quotes undone.
 */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let k = 0;
  const n = line.endsWith('\r\n') ? line.length - 2 : line.length;
  for (;;) {
    if (line.charCodeAt(k) === QUOTE) {
      let text = '';
      let from = k + 1;
      for (;;) {
        const q = line.indexOf('"', from);
        if (q < 0 || q >= n) throw new Error('unterminated quoted field');
        text += line.slice(from, q);
        if (line.charCodeAt(q + 1) === QUOTE) {
          text += '"';
          from = q + 2;
          continue;
        }
        k = q + 1;
        break;
      }
      fields.push(text);
    } else {
      const c = line.indexOf(',', k);
      const end = c < 0 || c > n ? n : c;
      fields.push(line.slice(k, end));
      k = end;
    }
    if (k >= n) return fields;
    k++; // the comma
  }
}

/** Bytes per enqueued chunk: large enough to be cheap, small enough to keep memory flat. */
const CSV_CHUNK_BYTES = 256 * 1024;

/**
 * What an export's stream reads: the event store's cursor over the stored lines of the rows a query
 * matches (`EventStore.lines`). Named here, not imported: the store writes its lines with this module.
 */
interface CsvLineSource {
  lines(query: EventQuery, rowLimit: number): LineCursor;
}

/**
 * The CSV of an export as a byte stream produced on demand: each pull copies the stored lines of the
 * next matching rows (contiguous runs at once) into one chunk of about `chunkBytes` (a line longer than
 * that gets a chunk of its own), so memory stays flat however many rows match.
 *
 * @example new Response(createCsvStream(store, query, rowLimit), { headers: { 'content-type': 'text/csv' } })
 */
export function createCsvStream(
  store: CsvLineSource,
  query: EventQuery,
  rowLimit: number,
  chunkBytes = CSV_CHUNK_BYTES,
): ReadableStream<Uint8Array> {
  let lines: LineCursor | undefined;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        let pos = 0;
        let buf: Uint8Array;
        if (!lines) {
          lines = store.lines(query, rowLimit);
          const header = encoder.encode(`${CSV_HEADER}\r\n`);
          buf = new Uint8Array(Math.max(chunkBytes, header.length + lines.nextLineBytes()));
          buf.set(header);
          pos = header.length;
        } else {
          buf = new Uint8Array(Math.max(chunkBytes, lines.nextLineBytes()));
        }
        pos = lines.fill(buf, pos);
        if (pos > 0) controller.enqueue(buf.subarray(0, pos));
        if (lines.nextLineBytes() === 0) controller.close();
      },
    },
    { highWaterMark: 1 },
  );
}
