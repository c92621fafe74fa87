import { describe, expect, it } from 'vitest';
import { createCvatHttp } from '../consumers/cvat-http/src';
import {
  createEventsExporter,
  EVENT_COLUMNS,
  parseCsv,
  parseEventLog,
} from '../consumers/events-exporter/src';

describe('parseCsv', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, and CRLF records', () => {
    expect(parseCsv('a,"b, ""c""",\r\n"x\r\ny",2,3\r\n')).toEqual([
      ['a', 'b, "c"', ''],
      ['x\r\ny', '2', '3'],
    ]);
  });

  it('reads a last record without a line end', () => {
    expect(parseCsv('a,b\r\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });
});

describe('parseEventLog', () => {
  it('reads an export with no events as the header alone', () => {
    expect(parseEventLog(`${EVENT_COLUMNS.join(',')}\r\n`)).toEqual({
      columns: [...EVENT_COLUMNS],
      rows: [],
    });
  });

  it('reads an export from before access tokens (2.48), which lacks the last column', () => {
    const header = EVENT_COLUMNS.slice(0, 17).join(',');
    const { rows } = parseEventLog(
      `${header}\r\nload:job,,,,client,2026-08-12 10:00:00+00:00,,0,,,5,2,alice,,,,{}\r\n`,
    );
    expect(rows).toEqual([
      expect.objectContaining({ scope: 'load:job', job_id: '5', obj_name: null, payload: '{}' }),
    ]);
  });

  it('refuses a header that is not CVAT’s', () => {
    expect(() => parseEventLog('timestamp,scope\r\n')).toThrow(/not a CVAT event log header/);
  });
});

/** A fetch that answers from a list of canned responses and records the URLs it was asked for. */
function cannedFetch(responses: Array<{ status: number; json?: unknown }>) {
  const urls: string[] = [];
  const fake: typeof fetch = async (input) => {
    urls.push(String(input));
    const next = responses.shift();
    if (!next) throw new Error(`unexpected request ${String(input)}`);
    return new Response(next.json === undefined ? null : JSON.stringify(next.json), {
      status: next.status,
      headers: { 'Content-Type': 'application/vnd.cvat+json' },
    });
  };
  return { urls, fake };
}

describe('createEventsExporter', () => {
  const RQ_ID = 'action=export&target=events&id=5f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f&user_id=2';

  it('polls a queued export at most maxPolls times and reports a time-out', async () => {
    const running = { status: 200, json: { id: RQ_ID, status: 'queued' } };
    const { urls, fake } = cannedFetch([{ status: 202, json: { rq_id: RQ_ID } }, running, running, running]);
    const sleeps: number[] = [];
    const exporter = createEventsExporter({
      http: createCvatHttp({ baseUrl: 'http://cvat.test', token: 't', fetch: fake }),
      sleep: async (ms) => void sleeps.push(ms),
      pollIntervalMs: 250,
      maxPolls: 3,
    });
    expect(await exporter.exportEvents({ projectId: 1 })).toEqual({
      outcome: 'timed-out',
      id: RQ_ID,
      polls: 3,
    });
    expect(sleeps).toEqual([250, 250]);
    expect(urls.slice(1)).toEqual(
      Array(3).fill(`http://cvat.test/api/requests/${encodeURIComponent(RQ_ID)}`),
    );
  });

  it('reports a refused export start as rejected, with the DRF error', async () => {
    const { fake } = cannedFetch([
      { status: 403, json: { detail: "You don't have permission to view events with user_id=5" } },
    ]);
    const exporter = createEventsExporter({
      http: createCvatHttp({ baseUrl: 'http://cvat.test', token: 't', fetch: fake }),
      sleep: async () => {},
    });
    expect(await exporter.exportEvents({ userId: 5 })).toEqual({
      outcome: 'rejected',
      error: {
        kind: 'forbidden',
        status: 403,
        detail: "You don't have permission to view events with user_id=5",
      },
    });
  });
});
