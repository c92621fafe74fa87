/**
 * CVAT writes the event log with Python's `csv.writer` (Excel dialect): comma separated, `"` quoting
 * only where needed with `""` for a quote inside, `\r\n` line ends, NULL as an empty field
 * (reference cvat-webhooks-events.md §3.6).
 */

/** The columns of CVAT's event log export (2.48 and later add `access_token_id`). */
export const EVENT_COLUMNS = [
  'scope',
  'obj_name',
  'obj_id',
  'obj_val',
  'source',
  'timestamp',
  'count',
  'duration',
  'project_id',
  'task_id',
  'job_id',
  'user_id',
  'user_name',
  'user_email',
  'org_id',
  'org_slug',
  'payload',
  'access_token_id',
] as const;

export type EventColumn = (typeof EVENT_COLUMNS)[number];

/** One event of the log; an empty CSV field (NULL in CVAT's store) reads as null. */
export type EventRow = Readonly<Partial<Record<EventColumn, string | null>>>;

/**
 * Splits CSV text into records of fields (RFC 4180: quoted fields may hold commas, quotes and line breaks).
 *
 * @example
 * parseCsv('a,"b ""c"""\r\n1,2\r\n'); // [['a', 'b "c"'], ['1', '2']]
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else {
      field += c;
    }
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/**
 * Reads CVAT's event log CSV into rows keyed by column. Throws when the header is not CVAT's: the
 * exporter relies on the column names, so another header is a contract break.
 */
export function parseEventLog(text: string): { columns: string[]; rows: EventRow[] } {
  const [columns, ...records] = parseCsv(text);
  if (
    columns === undefined ||
    columns.join(',') !== EVENT_COLUMNS.slice(0, columns.length).join(',') ||
    columns.length < 17
  ) {
    throw new Error(`not a CVAT event log header: ${JSON.stringify(columns)}`);
  }
  const rows = records.map((fields) => {
    const row: Partial<Record<EventColumn, string | null>> = {};
    columns.forEach((column, i) => {
      const value = fields[i] ?? '';
      row[column as EventColumn] = value === '' ? null : value;
    });
    return row;
  });
  return { columns, rows };
}
