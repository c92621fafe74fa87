import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCvatHttp } from '../../consumers/cvat-http/src';
import { createEventsExporter, EVENT_COLUMNS } from '../../consumers/events-exporter/src';
import { annotationStates } from '../../src/states';
import { CVAT_REQUEST, CVAT_RESPONSE, PROJECT, USER } from './support/cvat';
import { createPact, recorded, textBody } from './support/pact';

const { regex, string, url, uuid } = MatchersV3;

const USER_STATE = annotationStates.user.with({ username: USER.name, userId: USER.id, token: USER.token });
const FILTERS = { projectId: PROJECT.id };
const FILTER_QUERY = { project_id: String(PROJECT.id) };

// A fresh uuid4 per export; the caller's id closes it (reference §3.4).
const RQ_ID = `action=export&target=events&id=5f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f&user_id=${USER.id}`;
const RQ_ID_PATTERN = /^action=export&target=events&id=[0-9a-f-]{36}&user_id=\d+$/;
const REQUEST_PATH = `/api/requests/${encodeURIComponent(RQ_ID)}`;
const QUERY_ID = '0d6c9f4e-2a7b-4e3c-9b1d-8f5e6a7c2b10';
// RFC 9745 form of 2025-03-17T00:00:00Z, CVAT's deprecation date for GET /api/events (reference §3.5).
const DEPRECATION = '@1742169600';

// Two events as the export writes them: `\r\n` line ends, NULL as an empty field, the payload as
// CSV-quoted JSON text. Rows vary with the event log; only the header is fixed (regex below).
const HEADER = EVENT_COLUMNS.join(',');
const CSV = [
  HEADER,
  'create:task,Street signs,3,,server,2026-08-12 09:59:58.104000+00:00,,0,1,3,,2,alice,alice@example.com,,,"{""request"": {""id"": ""4ad5c6a0-3b8e-4f7e-9a51-0c2b7d3e1f64""}}",',
  'click:element,button,,,client,2026-08-12 10:00:00.412000+00:00,,0,1,3,7,2,alice,alice@example.com,,,"{""x"": 1}",',
  '',
].join('\r\n');
const CSV_PATTERN = new RegExp(`^${HEADER}\\r\\n(.*\\r\\n)*$`);
const CSV_RESPONSE = {
  'Content-Type': regex(/^text\/csv\b/, 'text/csv'),
  'Content-Disposition': regex(
    /^attachment; filename="[^"]+"$/,
    'attachment; filename="logs_2026_08_12_10_00_05.csv"',
  ),
};

function exporterFor(serverUrl: string) {
  return createEventsExporter({
    http: createCvatHttp({ baseUrl: serverUrl, token: USER.token }),
    sleep: () => Promise.resolve(),
  });
}

function startsExport(pact: PactV4) {
  return pact
    .addInteraction()
    .given(...USER_STATE)
    .uponReceiving('a request to export the events of project 1')
    .withRequest('POST', '/api/events/export', (b) => b.headers(CVAT_REQUEST).query(FILTER_QUERY))
    .willRespondWith(202, (b) => b.headers(CVAT_RESPONSE).jsonBody({ rq_id: regex(RQ_ID_PATTERN, RQ_ID) }));
}

function startsLegacyExport(pact: PactV4) {
  return pact
    .addInteraction()
    .given(...USER_STATE)
    .uponReceiving('a deprecated request for the events of project 1 without a query id')
    .withRequest('GET', '/api/events', (b) => b.headers(CVAT_REQUEST).query(FILTER_QUERY))
    .willRespondWith(202, (b) =>
      b.headers({ ...CVAT_RESPONSE, Deprecation: DEPRECATION }).jsonBody({ query_id: uuid(QUERY_ID) }),
    );
}

describe('events-exporter → annotation-sim', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('events-exporter', 'annotation-sim');
  });

  describe('current flow', () => {
    it('starts an export, finds it finished and downloads the CSV from result_url', async () => {
      startsExport(pact);
      pact
        .addInteraction()
        .given(...USER_STATE)
        .given(...annotationStates.exportFinished.with({ rqId: RQ_ID }))
        .uponReceiving('a request for the status of a finished events export')
        .withRequest('GET', REQUEST_PATH, (b) => b.headers(CVAT_REQUEST))
        .willRespondWith(200, (b) =>
          b.headers(CVAT_RESPONSE).jsonBody({
            id: RQ_ID,
            status: 'finished',
            operation: { type: 'export:events', target: 'events' },
            // Absolute, built from the request's host; the consumer follows it as given.
            result_url: url([
              'api',
              'events',
              regex(/download\?rq_id=.+/, `download?rq_id=${encodeURIComponent(RQ_ID)}`),
            ]),
          }),
        );
      await pact
        .addInteraction()
        .given(...USER_STATE)
        .given(...annotationStates.exportFinished.with({ rqId: RQ_ID }))
        .uponReceiving('a request to download a finished events export')
        .withRequest('GET', '/api/events/download', (b) =>
          b.headers({ Authorization: CVAT_REQUEST.Authorization }).query({ rq_id: RQ_ID }),
        )
        .willRespondWith(200, (b) => {
          b.headers(CSV_RESPONSE);
          textBody(b, 'text/csv', CSV);
          b.matchingRules({ body: { path: '$', rules: [regex(CSV_PATTERN, CSV)] } });
        })
        .executeTest(
          recorded(pact, async (server) => {
            const report = await exporterFor(server.url).exportEvents(FILTERS);
            expect(report).toMatchObject({
              outcome: 'exported',
              flow: 'current',
              id: RQ_ID,
              polls: 1,
              log: { filename: 'logs_2026_08_12_10_00_05.csv', columns: [...EVENT_COLUMNS] },
            });
            const rows = report.outcome === 'exported' ? report.log.rows : [];
            expect(rows.map((row) => [row.scope, row.job_id, row.payload])).toEqual([
              ['create:task', null, '{"request": {"id": "4ad5c6a0-3b8e-4f7e-9a51-0c2b7d3e1f64"}}'],
              ['click:element', '7', '{"x": 1}'],
            ]);
          }),
        );
    });

    it('sees a delayed export as still running', async () => {
      await pact
        .addInteraction()
        .given(...USER_STATE)
        .given(...annotationStates.exportRunning.with({ rqId: RQ_ID }))
        .uponReceiving('a request for the status of a running events export')
        .withRequest('GET', REQUEST_PATH, (b) => b.headers(CVAT_REQUEST))
        .willRespondWith(200, (b) =>
          b.headers(CVAT_RESPONSE).jsonBody({
            id: RQ_ID,
            // Deferred and scheduled jobs are reported as queued too (reference §3.4).
            status: regex(/^(queued|started)$/, 'started'),
            operation: { type: 'export:events', target: 'events' },
          }),
        )
        .executeTest(
          recorded(pact, async (server) => {
            expect(await exporterFor(server.url).getExportStatus(RQ_ID)).toEqual({
              ok: true,
              value: { status: 'started' },
            });
          }),
        );
    });

    it('reports an export that failed with the message of the failed request', async () => {
      // The export job's exception when the event store is unreachable (reference §3.3).
      const message =
        "clickhouse_connect.driver.exceptions.OperationalError: Error HTTPConnectionPool(host='clickhouse', port=8123): Max retries exceeded with url: /";
      startsExport(pact);
      await pact
        .addInteraction()
        .given(...USER_STATE)
        .given(...annotationStates.exportFailed.with({ rqId: RQ_ID, message }))
        .uponReceiving('a request for the status of a failed events export')
        .withRequest('GET', REQUEST_PATH, (b) => b.headers(CVAT_REQUEST))
        .willRespondWith(200, (b) =>
          b.headers(CVAT_RESPONSE).jsonBody({
            id: RQ_ID,
            status: 'failed',
            operation: { type: 'export:events', target: 'events' },
            message: string(message),
          }),
        )
        .executeTest(
          recorded(pact, async (server) => {
            const report = await exporterFor(server.url).exportEvents(FILTERS);
            expect(report).toEqual({ outcome: 'failed', id: RQ_ID, message });
          }),
        );
    });
  });

  describe('deprecated flow (GET /api/events)', () => {
    it('goes 202 → 201 → 200 and downloads the CSV, noting the Deprecation header', async () => {
      startsLegacyExport(pact);
      pact
        .addInteraction()
        .given(...USER_STATE)
        .given(...annotationStates.legacyExportFinished.with({ queryId: QUERY_ID }))
        .uponReceiving('a deprecated poll for a finished events export')
        .withRequest('GET', '/api/events', (b) =>
          b.headers(CVAT_REQUEST).query({ ...FILTER_QUERY, query_id: QUERY_ID }),
        )
        .willRespondWith(201, (b) => b.headers({ Deprecation: DEPRECATION }));
      await pact
        .addInteraction()
        .given(...USER_STATE)
        .given(...annotationStates.legacyExportFinished.with({ queryId: QUERY_ID }))
        .uponReceiving('a deprecated download of a finished events export')
        .withRequest('GET', '/api/events', (b) =>
          b.headers(CVAT_REQUEST).query({ ...FILTER_QUERY, query_id: QUERY_ID, action: 'download' }),
        )
        .willRespondWith(200, (b) => {
          b.headers(CSV_RESPONSE);
          textBody(b, 'text/csv', CSV);
          b.matchingRules({ body: { path: '$', rules: [regex(CSV_PATTERN, CSV)] } });
        })
        .executeTest(
          recorded(pact, async (server) => {
            const report = await exporterFor(server.url).exportEventsLegacy(FILTERS);
            expect(report).toMatchObject({
              outcome: 'exported',
              flow: 'deprecated',
              id: QUERY_ID,
              polls: 1,
              deprecation: DEPRECATION,
              log: { filename: 'logs_2026_08_12_10_00_05.csv' },
            });
            expect(report.outcome === 'exported' && report.log.rows).toHaveLength(2);
          }),
        );
    });

    it('gets 202 with the same query id while the export is still running', async () => {
      await pact
        .addInteraction()
        .given(...USER_STATE)
        .given(...annotationStates.legacyExportRunning.with({ queryId: QUERY_ID }))
        .uponReceiving('a deprecated poll for a running events export')
        .withRequest('GET', '/api/events', (b) =>
          b.headers(CVAT_REQUEST).query({ ...FILTER_QUERY, query_id: QUERY_ID }),
        )
        .willRespondWith(202, (b) =>
          b.headers({ ...CVAT_RESPONSE, Deprecation: DEPRECATION }).jsonBody({ query_id: QUERY_ID }),
        )
        .executeTest(
          recorded(pact, async (server) => {
            const poll = await exporterFor(server.url).pollLegacyExport(FILTERS, QUERY_ID);
            expect(poll).toEqual({
              ok: true,
              value: { state: 'running', queryId: QUERY_ID, deprecation: DEPRECATION },
            });
          }),
        );
    });

    it('reports a failed export from the 500 whose body is the error text', async () => {
      const message =
        "OperationalError: Error HTTPConnectionPool(host='clickhouse', port=8123): Max retries exceeded";
      startsLegacyExport(pact);
      await pact
        .addInteraction()
        .given(...USER_STATE)
        .given(...annotationStates.legacyExportFailed.with({ queryId: QUERY_ID, message }))
        .uponReceiving('a deprecated poll for a failed events export')
        .withRequest('GET', '/api/events', (b) =>
          b.headers(CVAT_REQUEST).query({ ...FILTER_QUERY, query_id: QUERY_ID }),
        )
        .willRespondWith(500, (b) =>
          // A JSON string, not an object (reference §3.5).
          b.headers({ ...CVAT_RESPONSE, Deprecation: DEPRECATION }).jsonBody(string(message)),
        )
        .executeTest(
          recorded(pact, async (server) => {
            const report = await exporterFor(server.url).exportEventsLegacy(FILTERS);
            expect(report).toEqual({ outcome: 'failed', id: QUERY_ID, message });
          }),
        );
    });
  });
});
