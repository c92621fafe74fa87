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
  const formatTimestamp = createTimestampFormatter();
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
          text += renderCsvRow(store.row(next.value), formatTimestamp);
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
