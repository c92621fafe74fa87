import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CSV_HEADER,
  createCsvStream,
  csvField,
  renderCsvRow,
  splitCsvLine,
} from '../../src/domain/events/csv';
import type { EventRecord } from '../../src/domain/events/record';
import { EventStore } from '../../src/domain/events/store';
import { batch, createHarness, type Harness } from './support/harness';

const csvRows = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

let h: Harness;
afterEach(() => h?.close());

const HEADER =
  'scope,obj_name,obj_id,obj_val,source,timestamp,count,duration,project_id,task_id,job_id,user_id,user_name,user_email,org_id,org_slug,payload,access_token_id';

async function exportCsv(query = ''): Promise<string> {
  const start = await h.request(`/api/events/export${query}`, { method: 'POST' });
  const { rq_id } = (await start.json()) as { rq_id: string };
  await h.advance('2s');
  const res = await h.request(`/api/events/download?rq_id=${encodeURIComponent(rq_id)}`);
  expect(res.status).toBe(200);
  return res.text();
}

const row = (over: Partial<EventRecord>): Record<string, unknown> => ({
  scope: 'load:job',
  source: 'client',
  ...over,
});

async function seedRows(rows: Record<string, unknown>[]) {
  const res = await h.app.request('/_sim/events/records', {
    method: 'POST',
    body: JSON.stringify({ events: rows }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

describe('the exported CSV', () => {
  it('is just the header line when nothing matches', async () => {
    h = createHarness();
    expect(await exportCsv()).toBe(`${HEADER}\r\n`);
    expect(CSV_HEADER).toBe(HEADER);
  });

  it('round-trips payloads with commas, quotes, newlines and unicode through a real CSV parser', async () => {
    h = createHarness();
    const nasty = '{"text": "a, \\"quoted\\"\\nline\\r\\nnext", "emoji": "😀 é 中文", "list": [1, 2]}';
    const res = await h.request('/api/events', {
      json: batch('2026-08-12T10:00:00Z', [
        {
          scope: 'debug:info',
          obj_val: 'x,"y"\nz',
          obj_name: 'naïve',
          timestamp: '2026-08-12T10:00:00Z',
          payload: nasty,
        },
      ]),
    });
    expect(res.status).toBe(201);
    const stored = ((await res.json()) as { events: { payload: string }[] }).events[0]?.payload as string;
    const text = await exportCsv();
    const records = csvRows(text);
    expect(records).toHaveLength(1);
    const rec = records[0] as Record<string, string>;
    expect(rec.payload).toBe(stored);
    expect(JSON.parse(rec.payload as string)).toEqual(JSON.parse(nasty));
    expect(rec.obj_val).toBe('x,"y"\nz');
    expect(rec.obj_name).toBe('naïve');
    expect(Object.keys(rec)).toEqual(HEADER.split(','));
  });

  it('writes NULL as an empty field and numbers as Python does', async () => {
    h = createHarness();
    await seedRows([
      row({ timestamp: Date.parse('2026-08-12T09:00:00.412Z'), obj_id: 5, count: 2, duration: 40 }),
    ]);
    const [, line] = (await exportCsv()).split('\r\n');
    expect(line).toBe('load:job,,5,,client,2026-08-12 09:00:00.412000+00:00,2,40,,,,,,,,,,');
  });

  it('sorts rows by timestamp ascending, whatever order they were logged in, ties in log order', async () => {
    h = createHarness();
    const t = (s: string) => Date.parse(`2026-08-12T09:00:0${s}Z`);
    await seedRows([
      row({ obj_name: 'c', timestamp: t('3') }),
      row({ obj_name: 'a', timestamp: t('1') }),
      row({ obj_name: 'b1', timestamp: t('2') }),
      row({ obj_name: 'b2', timestamp: t('2') }),
    ]);
    const records = csvRows(await exportCsv());
    expect(records.map((r) => r.obj_name)).toEqual(['a', 'b1', 'b2', 'c']);
    expect(records[0]?.timestamp).toBe('2026-08-12 09:00:01+00:00');
  });

  it('excludes send:exception rows and sources other than client and server', async () => {
    h = createHarness();
    await seedRows([
      row({ scope: 'send:exception', timestamp: Date.parse('2026-08-12T09:00:00Z') }),
      row({ source: 'google_sheets', timestamp: Date.parse('2026-08-12T09:00:00Z') }),
      row({ source: 'server', scope: 'create:task', timestamp: Date.parse('2026-08-12T09:00:00Z') }),
    ]);
    const records = csvRows(await exportCsv());
    expect(records.map((r) => r.scope)).toEqual(['create:task']);
  });

  it('quotes only the fields that need it, with CRLF line endings (Excel dialect)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField(null)).toBe('');
    expect(csvField(0)).toBe('0');
    const base: EventRecord = {
      scope: 's',
      obj_name: null,
      obj_id: null,
      obj_val: null,
      source: 'server',
      timestamp: Date.parse('2026-08-12T10:00:00Z'),
      count: null,
      duration: 0,
      project_id: 1,
      task_id: 2,
      job_id: 3,
      user_id: 4,
      user_name: 'u',
      user_email: null,
      org_id: null,
      org_slug: null,
      payload: '{"a":1}',
      access_token_id: 7,
    };
    const line = renderCsvRow(base);
    expect(line).toBe('s,,,,server,2026-08-12 10:00:00+00:00,,0,1,2,3,4,u,,,,"{""a"":1}",7\r\n');
    const at = (ms: number) =>
      renderCsvRow({ ...base, timestamp: Date.parse('2026-08-12T10:00:00Z') + ms }).split(',')[5];
    expect(at(5)).toBe('2026-08-12 10:00:00.005000+00:00');
    expect(at(1999)).toBe('2026-08-12 10:00:01.999000+00:00');
  });

  it('round-trips any text fields through csv-parse (property)', () => {
    const text = fc.option(fc.string({ unit: 'binary', maxLength: 40 }), { nil: null });
    const id = fc.option(fc.nat(), { nil: null });
    fc.assert(
      fc.property(text, text, text, id, (objName, objVal, payload, objId) => {
        const record: EventRecord = {
          scope: 'debug:info',
          obj_name: objName,
          obj_id: objId,
          obj_val: objVal,
          source: 'client',
          timestamp: Date.parse('2026-08-12T10:00:00Z'),
          count: null,
          duration: 0,
          project_id: null,
          task_id: null,
          job_id: null,
          user_id: 1,
          user_name: 'admin',
          user_email: null,
          org_id: null,
          org_slug: null,
          payload,
          access_token_id: null,
        };
        const [parsed] = csvRows(`${HEADER}\r\n${renderCsvRow(record)}`);
        expect(parsed?.obj_name).toBe(objName ?? '');
        expect(parsed?.obj_val).toBe(objVal ?? '');
        expect(parsed?.payload).toBe(payload ?? '');
        expect(parsed?.obj_id).toBe(objId === null ? '' : String(objId));
      }),
      { numRuns: 300 },
    );
  });

  it('stores each row line as exactly the bytes of renderCsvRow, and reads the row back (property)', () => {
    const text = fc.option(fc.string({ unit: 'binary', maxLength: 20 }), { nil: null });
    const word = fc.option(fc.constantFrom('admin', 'a,b', 'say "hi"', 'x\r\ny', '', 'é', '\ud800'), {
      nil: null,
    });
    const num = fc.option(fc.oneof(fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true })), {
      nil: null,
    });
    const record = fc.record({
      scope: fc.constantFrom('debug:info', 'click:element', 'a,b'),
      obj_name: text,
      obj_id: num,
      obj_val: text,
      source: word,
      timestamp: fc.oneof(
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.double({ min: -1e13, max: 1e13, noNaN: true }),
      ),
      count: num,
      duration: fc.oneof(fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true })),
      project_id: num,
      task_id: num,
      job_id: num,
      user_id: num,
      user_name: word,
      user_email: word,
      org_id: num,
      org_slug: word,
      payload: text,
      access_token_id: num,
    });
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 40 }), (records) => {
        const store = new EventStore();
        for (const r of records) store.append(r);
        for (let i = 0; i < records.length; i++) {
          const given = records[i] as EventRecord;
          expect(store.line(i)).toEqual(encoder.encode(renderCsvRow(given)));
          expect(store.row(i)).toEqual(given);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps texts UTF-8 cannot hold (lone surrogates) as given, while the line has U+FFFD', () => {
    const store = new EventStore();
    const r: EventRecord = {
      scope: 'debug:info',
      obj_name: 'a\ud800b',
      obj_id: null,
      obj_val: '',
      source: 'client',
      timestamp: Date.parse('2026-08-12T10:00:00Z'),
      count: null,
      duration: 0,
      project_id: null,
      task_id: null,
      job_id: null,
      user_id: null,
      user_name: null,
      user_email: null,
      org_id: null,
      org_slug: null,
      payload: '{"t": "\udc00"}',
      access_token_id: null,
    };
    store.append(r);
    store.append({ ...r, obj_name: 'é', obj_val: null, payload: null });
    expect(store.row(0)).toEqual(r);
    expect(store.row(1)).toEqual({ ...r, obj_name: 'é', obj_val: null, payload: null });
    expect(new TextDecoder().decode(store.line(0))).toBe(
      'debug:info,a\ufffdb,,,client,2026-08-12 10:00:00+00:00,,0,,,,,,,,,"{""t"": ""\ufffd""}",\r\n',
    );
  });

  it('splits a stored line back into its fields', () => {
    expect(splitCsvLine('a,,"b,c","say ""hi""",\r\n')).toEqual(['a', '', 'b,c', 'say "hi"', '']);
    expect(splitCsvLine('"x\r\ny",z')).toEqual(['x\r\ny', 'z']);
    expect(splitCsvLine('""')).toEqual(['']);
  });
});

describe('the CSV stream', () => {
  const encoder = new TextEncoder();
  const base: EventRecord = {
    scope: 'click:element',
    obj_name: 'button',
    obj_id: null,
    obj_val: null,
    source: 'client',
    timestamp: Date.parse('2026-08-12T10:00:00Z'),
    count: 1,
    duration: 12,
    project_id: 1,
    task_id: 1,
    job_id: 1,
    user_id: 1,
    user_name: 'admin',
    user_email: 'admin@localhost',
    org_id: null,
    org_slug: null,
    payload: '{"x": 1}',
    access_token_id: null,
  };
  const all = { from: 0, to: Number.MAX_SAFE_INTEGER, ids: {} };

  async function collect(stream: ReadableStream<Uint8Array>) {
    const chunks: Uint8Array[] = [];
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    return { chunks, text: new TextDecoder().decode(Buffer.concat(chunks)) };
  }

  const expected = (records: EventRecord[]) => `${HEADER}\r\n${records.map((r) => renderCsvRow(r)).join('')}`;

  it('splits into chunks of whole lines at any chunk size, lines longer than a chunk included', async () => {
    const records = Array.from({ length: 60 }, (_, i) => ({
      ...base,
      timestamp: base.timestamp + i * 7,
      obj_val: `v${i},"${i}"`,
      payload: i % 13 === 5 ? `{"long": "${'x'.repeat(500)}", "i": ${i}}` : `{"i": ${i}, "t": "é"}`,
      task_id: i % 3,
    }));
    const store = new EventStore();
    for (const r of records) store.append(r);
    for (const chunkBytes of [1, 64, 200, 257, 1000, 4096, 1 << 20]) {
      const { chunks, text } = await collect(createCsvStream(store, all, store.length, chunkBytes));
      expect(text).toBe(expected(records));
      for (const c of chunks.slice(1)) {
        // Every chunk after the first ends a line, and none but a single long line is over the size.
        expect(c[c.length - 1]).toBe(10);
        if (c.length > chunkBytes) expect(new TextDecoder().decode(c).split('\r\n')).toHaveLength(2);
      }
    }
    // A filter breaks the runs of contiguous lines: the chunks still hold exactly the matching rows.
    const { text } = await collect(
      createCsvStream(store, { ...all, ids: { task_id: 2 } }, store.length, 300),
    );
    expect(text).toBe(expected(records.filter((r) => r.task_id === 2)));
  });

  it('copies lines from more than one segment and in timestamp order when logged out of order', async () => {
    const store = new EventStore();
    const records: EventRecord[] = [];
    // ~4.5 MB of lines: more than one 4 MiB segment.
    for (let i = 0; i < 9000; i++) {
      const r = {
        ...base,
        timestamp: base.timestamp + ((i * 7919) % 9000),
        payload: `"${'p'.repeat(480)}${i}"`,
      };
      records.push(r);
      store.append(r);
    }
    const sorted = records
      .map((r, i) => ({ r, i }))
      .sort((a, b) => a.r.timestamp - b.r.timestamp || a.i - b.i)
      .map((x) => x.r);
    const { text } = await collect(createCsvStream(store, all, store.length, 64 * 1024));
    expect(text).toBe(expected(sorted));
    expect(store.line(0)).toEqual(encoder.encode(renderCsvRow(records[0] as EventRecord)));
  });

  it('leaves rows appended after the export out, and is only the header when nothing matches', async () => {
    const store = new EventStore();
    store.append(base);
    const stream = createCsvStream(store, all, 1, 64);
    for (let i = 0; i < 2000; i++) store.append({ ...base, timestamp: base.timestamp + i });
    expect((await collect(stream)).text).toBe(expected([base]));
    expect((await collect(createCsvStream(store, { ...all, to: 0 }, store.length))).text).toBe(
      `${HEADER}\r\n`,
    );
  });
});
