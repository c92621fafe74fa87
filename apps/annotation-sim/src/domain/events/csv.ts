import type { EventQuery, EventRecord, EventStore } from './store';
import { formatPyDateTime } from './time';

/** CVAT's CSV header (ClickHouse `events` columns minus `remote_addr`), exactly. */
export const CSV_HEADER =
  'scope,obj_name,obj_id,obj_val,source,timestamp,count,duration,project_id,task_id,job_id,user_id,user_name,user_email,org_id,org_slug,payload,access_token_id';

/** One field as Python's `csv.writer` (Excel dialect, QUOTE_MINIMAL) writes it; None is empty. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = typeof value === 'number' ? String(value) : value;
  if (/[",\r\n]/.test(text)) return `"${text.replace(/"/g, '""')}"`;
  return text;
}

/**
 * Python's `str()` of a UTC datetime from epoch ms, reusing the date-and-second prefix of the previous
 * call: rows come in timestamp order, so most rows share it (this is the hot path of a large export).
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

/** One CSV line with its `\r\n` terminator. `timestamp` is Python's `str()` of the UTC datetime. */
export function renderCsvRow(
  r: EventRecord,
  formatTimestamp: (ms: number) => string = createTimestampFormatter(),
): string {
  return (
    [
      csvField(r.scope),
      csvField(r.obj_name),
      csvField(r.obj_id),
      csvField(r.obj_val),
      csvField(r.source),
      formatTimestamp(r.timestamp),
      csvField(r.count),
      csvField(r.duration),
      csvField(r.project_id),
      csvField(r.task_id),
      csvField(r.job_id),
      csvField(r.user_id),
      csvField(r.user_name),
      csvField(r.user_email),
      csvField(r.org_id),
      csvField(r.org_slug),
      csvField(r.payload),
      csvField(r.access_token_id),
    ].join(',') + '\r\n'
  );
}

/**
 * Renders rows of `store` straight from its columns, exactly as `renderCsvRow(store.row(i))` would: no
 * record object per row, numbers without the quoting check (a number never needs quotes), and each
 * dictionary string escaped once per code. This is the export's hot path (bench/, issue 8).
 */
export function createCsvRowRenderer(
  store: EventStore,
  formatTimestamp: (ms: number) => string = createTimestampFormatter(),
): (i: number) => string {
  const cached: Record<string, string[]> = {};
  let cols = store.columns();
  const coded = (column: 'scope' | 'source' | 'user_name' | 'user_email' | 'org_slug', i: number) => {
    const code = cols.coded[column][i] as number;
    const cache = cached[column] ?? [];
    cached[column] = cache;
    let text = cache[code];
    if (text === undefined) {
      text = csvField(cols.values[column][code] ?? null);
      cache[code] = text;
    }
    return text;
  };
  const num = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '' : String(v));
  const plain = (v: string | null | undefined) => (v === null || v === undefined ? '' : csvField(v));
  return (i) => {
    if (i >= (cols.numeric.timestamp.length as number)) cols = store.columns();
    const n = cols.numeric;
    const p = cols.plain;
    const duration = n.duration[i] as number;
    return (
      `${coded('scope', i)},${plain(p.obj_name[i])},${num(n.obj_id[i])},${plain(p.obj_val[i])},` +
      `${coded('source', i)},${formatTimestamp(n.timestamp[i] as number)},${num(n.count[i])},` +
      `${Number.isNaN(duration) ? '0' : String(duration)},${num(n.project_id[i])},${num(n.task_id[i])},` +
      `${num(n.job_id[i])},${num(n.user_id[i])},${coded('user_name', i)},${coded('user_email', i)},` +
      `${num(n.org_id[i])},${coded('org_slug', i)},${plain(p.payload[i])},${num(n.access_token_id[i])}\r\n`
    );
  };
}

/** Bytes per enqueued chunk: large enough to be cheap, small enough to keep memory flat. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The CSV of an export as a byte stream generated on demand: rows are rendered only when the reader
 * pulls (one chunk of about 64 KiB at a time), so memory stays flat however many rows match.
 *
 * @example new Response(createCsvStream(store, query, rowLimit), { headers: { 'content-type': 'text/csv' } })
 */
export function createCsvStream(
  store: EventStore,
  query: EventQuery,
  rowLimit: number,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let rows: Generator<number> | undefined;
  const render = createCsvRowRenderer(store);
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        let text = '';
        if (!rows) {
          rows = store.scan(query, rowLimit);
          text = `${CSV_HEADER}\r\n`;
        }
        while (text.length < CHUNK_BYTES) {
          const next = rows.next();
          if (next.done) {
            if (text) controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          text += render(next.value);
        }
        controller.enqueue(encoder.encode(text));
      },
      cancel() {
        rows?.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}
