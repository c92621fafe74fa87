import {
  asObject,
  type CvatError,
  type CvatHttp,
  type CvatResponse,
  type CvatResult,
  expectStatus,
  type Query,
  str,
  strOrNull,
} from '../../cvat-http/src';
import { type EventRow, parseEventLog } from './csv';

/** Which events to export; every filter is optional (CVAT's defaults: from the beginning, to now). */
export interface EventFilters {
  readonly projectId?: number;
  readonly taskId?: number;
  readonly jobId?: number;
  readonly userId?: number;
  readonly orgId?: number;
  /** ISO 8601, inclusive. */
  readonly from?: string;
  readonly to?: string;
}

export interface EventLog {
  /** From `Content-Disposition`, e.g. `logs_2026_08_12_10_00_05.csv`. */
  readonly filename: string | null;
  readonly columns: readonly string[];
  readonly rows: readonly EventRow[];
}

/** An export request as `GET /api/requests/{rq_id}` reports it. */
export type ExportStatus =
  | { readonly status: 'queued' | 'started' }
  | { readonly status: 'finished'; readonly resultUrl: string }
  | { readonly status: 'failed'; readonly message: string };

/** A poll of the deprecated `GET /api/events`: its 202, 201 and 500 answers, and the Deprecation header. */
export type LegacyPoll =
  | { readonly state: 'running'; readonly queryId: string; readonly deprecation: string | null }
  | { readonly state: 'ready'; readonly deprecation: string | null }
  | { readonly state: 'failed'; readonly message: string; readonly deprecation: string | null };

export type ExportReport =
  | {
      readonly outcome: 'exported';
      readonly flow: 'current' | 'deprecated';
      /** The `rq_id` (current flow) or `query_id` (deprecated flow). */
      readonly id: string;
      readonly log: EventLog;
      readonly polls: number;
      /** The server's `Deprecation` header value when the deprecated flow was used. */
      readonly deprecation?: string;
    }
  | { readonly outcome: 'failed'; readonly id: string; readonly message: string }
  | { readonly outcome: 'timed-out'; readonly id: string; readonly polls: number }
  | { readonly outcome: 'rejected'; readonly error: CvatError };

export interface EventsExporterOptions {
  readonly http: CvatHttp;
  readonly sleep: (ms: number) => Promise<void>;
  /** Default 2 s. */
  readonly pollIntervalMs?: number;
  /** Default 300 (10 min at 2 s). An export nobody works on stays queued forever (cvat#1052). */
  readonly maxPolls?: number;
}

function filterQuery(filters: EventFilters): Query {
  return {
    project_id: filters.projectId,
    task_id: filters.taskId,
    job_id: filters.jobId,
    user_id: filters.userId,
    org_id: filters.orgId,
    from: filters.from,
    to: filters.to,
  };
}

function readLog(response: CvatResponse): EventLog {
  const disposition = response.headers.get('content-disposition') ?? '';
  const filename = /filename="([^"]*)"/.exec(disposition)?.[1] ?? null;
  const { columns, rows } = parseEventLog(typeof response.body === 'string' ? response.body : '');
  return { filename, columns, rows };
}

/**
 * Exports CVAT's event log as CSV, by the current flow (`POST /api/events/export` → poll
 * `GET /api/requests/{rq_id}` → download `result_url`) or by the deprecated one (poll `GET /api/events`
 * with a `query_id` until 201, then `&action=download`).
 *
 * @example
 * const exporter = createEventsExporter({ http: createCvatHttp({ baseUrl, token }), sleep });
 * const report = await exporter.exportEvents({ projectId: 1 });
 */
export function createEventsExporter(options: EventsExporterOptions) {
  const { http, sleep } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 2_000;
  const maxPolls = options.maxPolls ?? 300;

  async function startExport(filters: EventFilters): Promise<CvatResult<string>> {
    const response = await http.request('POST', '/api/events/export', { query: filterQuery(filters) });
    return expectStatus(response, 202, (r) => str(asObject(r.body, 'export'), 'rq_id'));
  }

  async function getExportStatus(rqId: string): Promise<CvatResult<ExportStatus>> {
    // The rq_id holds `&` and `=` (`action=export&target=events&id=…&user_id=…`): encode it whole.
    const response = await http.request('GET', `/api/requests/${encodeURIComponent(rqId)}`);
    return expectStatus(response, 200, (r): ExportStatus => {
      const request = asObject(r.body, 'request');
      const status = str(request, 'status');
      switch (status) {
        case 'queued':
        case 'started':
          return { status };
        case 'finished':
          return { status, resultUrl: str(request, 'result_url') };
        case 'failed':
          return { status, message: strOrNull(request, 'message') ?? '' };
        default:
          throw new Error(`unknown request status ${JSON.stringify(status)}`);
      }
    });
  }

  async function download(resultUrl: string): Promise<CvatResult<EventLog>> {
    return expectStatus(await http.follow(resultUrl, '*/*'), 200, readLog);
  }

  async function exportEvents(filters: EventFilters): Promise<ExportReport> {
    const started = await startExport(filters);
    if (!started.ok) return { outcome: 'rejected', error: started.error };
    const rqId = started.value;
    for (let polls = 1; polls <= maxPolls; polls++) {
      const status = await getExportStatus(rqId);
      if (!status.ok) return { outcome: 'rejected', error: status.error };
      const current = status.value;
      if (current.status === 'failed') return { outcome: 'failed', id: rqId, message: current.message };
      if (current.status === 'finished') {
        const log = await download(current.resultUrl);
        if (!log.ok) return { outcome: 'rejected', error: log.error };
        return { outcome: 'exported', flow: 'current', id: rqId, log: log.value, polls };
      }
      if (polls < maxPolls) await sleep(pollIntervalMs);
    }
    return { outcome: 'timed-out', id: rqId, polls: maxPolls };
  }

  async function pollLegacyExport(filters: EventFilters, queryId?: string): Promise<CvatResult<LegacyPoll>> {
    const response = await http.request('GET', '/api/events', {
      query: { ...filterQuery(filters), query_id: queryId },
    });
    const deprecation = response.headers.get('deprecation');
    // A failed job answers 500 with the exception text as a JSON string (reference §3.5).
    if (response.status === 500 && typeof response.body === 'string') {
      return { ok: true, value: { state: 'failed', message: response.body, deprecation } };
    }
    return expectStatus(response, [201, 202], (r): LegacyPoll => {
      if (r.status === 201) return { state: 'ready', deprecation };
      return { state: 'running', queryId: str(asObject(r.body, 'export'), 'query_id'), deprecation };
    });
  }

  async function downloadLegacyExport(filters: EventFilters, queryId: string): Promise<CvatResult<EventLog>> {
    const query = { ...filterQuery(filters), query_id: queryId, action: 'download' };
    return expectStatus(await http.request('GET', '/api/events', { query }), 200, readLog);
  }

  async function exportEventsLegacy(filters: EventFilters): Promise<ExportReport> {
    const first = await pollLegacyExport(filters);
    if (!first.ok) return { outcome: 'rejected', error: first.error };
    if (first.value.state !== 'running') {
      throw new Error(
        `a first GET /api/events without query_id must start an export, got ${first.value.state}`,
      );
    }
    const { queryId } = first.value;
    for (let polls = 1; polls <= maxPolls; polls++) {
      await sleep(pollIntervalMs);
      const poll = await pollLegacyExport(filters, queryId);
      if (!poll.ok) return { outcome: 'rejected', error: poll.error };
      if (poll.value.state === 'failed')
        return { outcome: 'failed', id: queryId, message: poll.value.message };
      if (poll.value.state === 'ready') {
        const log = await downloadLegacyExport(filters, queryId);
        if (!log.ok) return { outcome: 'rejected', error: log.error };
        const report = {
          outcome: 'exported',
          flow: 'deprecated',
          id: queryId,
          log: log.value,
          polls,
        } as const;
        return poll.value.deprecation === null ? report : { ...report, deprecation: poll.value.deprecation };
      }
    }
    return { outcome: 'timed-out', id: queryId, polls: maxPolls };
  }

  return {
    startExport,
    getExportStatus,
    download,
    exportEvents,
    pollLegacyExport,
    downloadLegacyExport,
    exportEventsLegacy,
  };
}

export type EventsExporter = ReturnType<typeof createEventsExporter>;
