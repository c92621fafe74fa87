import type { Context } from 'hono';
import { ok, type Result } from '../../domain/errors';
import { countPoll, findJob } from '../../domain/events/export';
import { eventsOf } from '../../domain/events/state';
import { countRequestPoll, findRequest } from '../../domain/requests/lifecycle';
import {
  findEntry,
  mayCancelRequest,
  mayReadRequest,
  ownEntries,
  type RequestEntry,
  type RequestSources,
} from '../../domain/requests/listing';
import { requestsOf } from '../../domain/requests/state';
import type { ApiRequest } from '../api';
import { nonModelJsonLogicFilter } from '../json-logic-non-model';
import { checkListQuery, pageAnswer } from '../pagination';
import { sortKeys } from '../query-limits';
import { cvatJson, DJANGO_404_PAGE, djangoErrorResponse, djangoHtml, emptyBody } from '../respond';
import { type RouteRow, refused } from '../route-table';

/** Every source of requests of the caller's world, read at the request's time. */
function sources(r: ApiRequest): RequestSources {
  return {
    state: r.state,
    requests: requestsOf(r.state),
    events: r.state.extensions.has('events') ? eventsOf(r.state) : undefined,
    now: r.world.clock.now(),
    baseUrl: r.state.baseUrl,
    timers: r.world.timers,
  };
}

/** `HttpResponseNotFound`'s text for a request that is not there (or cannot be parsed). */
const NO_REQUEST = 'There is no request with specified id';

/** The request of the path (`{id}` as the client percent-encoded it), or Django's 404 text. */
function entryOf(r: ApiRequest, src: RequestSources): RequestEntry | Response {
  const id = r.c.req.param('id') ?? '';
  // Percent-encoded in the path, a `.` or `/` passes the route's pattern; Django resolves the decoded path.
  if (/[/.]/.test(id)) return djangoErrorResponse(r.c, 404, DJANGO_404_PAGE);
  const e = findEntry(src, id);
  return e ?? djangoHtml(r.c, 404, NO_REQUEST);
}

/**
 * `GET /api/requests/{id}`: one request as `RequestSerializer` renders it (a status poll). The id may be
 * spelled as CVAT 2.73 still reads it (a legacy id, another order of its fields): the request answered is
 * the one RQ keeps under the id it renders back. A stopped request is deleted and answered as missing.
 */
function handleRetrieveRequest(r: ApiRequest): Response {
  const src = sources(r);
  const e = entryOf(r, src);
  if (e instanceof Response) return e;
  const allowed = mayReadRequest(r.state, r.user(), e);
  if (!allowed.ok) return refused(r, allowed);
  if (e.status === 'stopped') {
    e.drop();
    return djangoHtml(r.c, 404, NO_REQUEST);
  }
  // Reading is a poll: a request in the "N polls" fault mode moves on it.
  const request = findRequest(src.requests, e.id, src.now);
  if (request) countRequestPoll(src.requests, request, src.now);
  const job = src.events && findJob(src.events, e.id, src.now);
  if (src.events && job) countPoll(src.events, job, src.now);
  return cvatJson(r.c, findEntry(src, e.id)?.render() ?? e.render());
}

/**
 * `POST /api/requests/{id}/cancel` (CVAT 2.73, #10600): the owner (or an admin) removes a queued request,
 * or stops a started dataset, annotations or backup export; a request that ended, or another kind of
 * started request, is CVAT's 400; a stopped one is not there.
 */
function handleCancelRequest(r: ApiRequest): Response {
  const src = sources(r);
  const e = entryOf(r, src);
  if (e instanceof Response) return e;
  const allowed = mayCancelRequest(r.user(), e);
  if (!allowed.ok) return refused(r, allowed);
  if (e.status === 'stopped') return djangoHtml(r.c, 404, NO_REQUEST);
  const refusal = e.cancel();
  return refusal === null ? emptyBody(r.c, 200) : djangoHtml(r.c, 400, refusal);
}

/**
 * RequestViewSet's `filter_fields`: its JSON Logic terms. `org` is only a simple filter, so in `filter`
 * it is a KeyError, as any other name.
 */
const FILTER_FIELDS = [
  'status',
  'project_id',
  'task_id',
  'job_id',
  'action',
  'target',
  'subresource',
  'format',
] as const;

/** CVAT's simple filters: equality on the field, a value of digits compared as a number. */
const SIMPLE_FILTERS = [...FILTER_FIELDS, 'org', 'org_id'] as const;

/** `sort=`: CVAT's requests ordering (one direction for the whole list: any `-` makes it descending). */
function sortEntries(entries: RequestEntry[], sort: string | undefined): Result<RequestEntry[]> {
  const raw = sort ?? '-created_date';
  // Read before the keys are deduplicated: `created_date,-created_date` is descending too.
  const descending = raw.split(',').some((k) => k.trim().startsWith('-'));
  const keys = sortKeys(raw);
  if (!keys.ok) return keys;
  const fields = keys.value
    .map((k) => k.replace(/^-/, ''))
    .filter((k) => ['created_date', 'status', 'action'].includes(k));
  const value = (e: RequestEntry, f: string): string | number =>
    f === 'created_date' ? e.createdAt : f === 'status' ? e.status : e.fields.action;
  const sorted = [...entries].sort((a, b) => {
    for (const f of fields) {
      const x = value(a, f);
      const y = value(b, f);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
  return ok(descending ? sorted.reverse() : sorted);
}

/** `GET /api/requests`: the caller's own requests, filtered, sorted (newest first) and paginated. */
function handleListRequests(r: ApiRequest): Response {
  const user = r.user();
  const bounded = checkListQuery(r);
  if (!bounded.ok) return refused(r, bounded);
  const src = sources(r);
  let entries = ownEntries(src, user.id);
  for (const name of SIMPLE_FILTERS) {
    const raw = r.query(name);
    if (raw === undefined) continue;
    const wanted: string | number | null =
      name === 'org' && raw === '' ? null : /^\d+$/.test(raw) ? Number(raw) : raw;
    entries = entries.filter((e) => e.fields[name] === wanted);
  }
  const fields = Object.fromEntries(
    FILTER_FIELDS.map((name) => [name, (e: RequestEntry) => e.fields[name]]),
  ) as Record<string, (e: RequestEntry) => unknown>;
  const filtered = nonModelJsonLogicFilter(entries, r.query('filter'), fields);
  if (!filtered.ok) return refused(r, filtered);
  const sorted = sortEntries(filtered.value, r.query('sort'));
  return sorted.ok ? pageAnswer(r, sorted.value, (e) => e.render()) : refused(r, sorted);
}

/**
 * DRF's router lookup (`[^/.]+`, hence CVAT's `~` for a dot): a path whose id has a `.` or `/` is routed
 * nowhere, Django's 404 page (and a `GET …/cancel` the cancel route's 405).
 */
const LOOKUP = '{[^/.]+}';

// Fault rules can target one request by `resource`, its id (`action=create&target=task&target_id=*`).
const rqId = (c: Context) => c.req.param('id') ?? '';

/** `/api/requests`: CVAT's RequestViewSet (list, retrieve, cancel) over every kind of request. */
export const requestRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/requests', operation: 'requests.list', handle: handleListRequests },
  {
    method: 'post',
    path: '/api/requests/:id/cancel',
    operation: 'requests.create_cancel',
    resource: rqId,
    handle: handleCancelRequest,
  },
  {
    method: 'get',
    path: `/api/requests/:id${LOOKUP}`,
    operation: 'requests.retrieve',
    resource: rqId,
    handle: handleRetrieveRequest,
  },
];
