import type { Resource } from '../../domain/access';
import { resourceVisible } from '../../domain/access';
import type { Result } from '../../domain/errors';
import type { CommentRec, IssueRec, JobRec, ProjectRec, TaskRec } from '../../domain/model';
import type { MutationContext } from '../../domain/mutation';
import { mayAccess, mayList } from '../../domain/resource-rules';
import type { ApiRequest } from '../api';
import { checkListQuery, pageAnswer } from '../pagination';
import { cvatJson, noContent } from '../respond';
import { refused } from '../route-table';
import { filterTermsOf } from './filter-terms';
import { queryList } from './list-query';
import type { SimpleFilters } from './simple-filters';

type AnyRec = ProjectRec | TaskRec | JobRec | IssueRec | CommentRec;

/** One kind of record as its views load and answer it. */
export interface RecordSpec<T extends AnyRec> {
  kind: Resource['kind'];
  /** DRF's model name, for `No <Model> matches the given query.`. */
  model: string;
  map: (r: ApiRequest) => Map<number, T>;
  serialize: (r: ApiRequest, rec: T) => unknown;
}

/**
 * A record kind's list view: CVAT's simple filters (filter-terms.ts' SIMPLE_FILTERS) and `search`
 * fields. Its JSON Logic terms and sort keys (`filter_fields`, `ordering_fields`) are in filter-terms.ts.
 */
export interface ListSpec<T extends AnyRec> extends RecordSpec<T> {
  simpleFilters: SimpleFilters;
  search: ((r: ApiRequest, rec: T) => unknown)[];
}

/**
 * GET on a collection: the query within its bounds (the first read of it, after authentication, as
 * Django reads `request.GET` lazily), the organization context's membership check, then the records the
 * caller can see in that context, narrowed by the simple filters and `search`, sorted (default `-id`),
 * narrowed by the JSON Logic `filter` and paged: CVAT's filter backends in their order (SimpleFilter,
 * SearchFilter, OrderingFilter, JsonLogicFilter).
 */
export function listResources<T extends AnyRec>(r: ApiRequest, spec: ListSpec<T>): Response {
  const user = r.user();
  const bounded = checkListQuery(r);
  if (!bounded.ok) return refused(r, bounded);
  const ctx = r.orgContext();
  if (!ctx.ok) return refused(r, ctx);
  const allowed = mayList(r.state, user, ctx.value);
  if (!allowed.ok) return refused(r, allowed);
  const visible = [...spec.map(r).values()].filter((rec) =>
    resourceVisible(r.state, user, ctx.value, { kind: spec.kind, rec } as Resource),
  );
  // CVAT's ordering_fields are its filter_fields: dates in time order, booleans false first.
  const items = queryList(r, visible, {
    terms: filterTermsOf<T>(r.state, spec.kind),
    simpleFilters: spec.simpleFilters,
    search: spec.search.map((f) => (rec: T) => f(r, rec)),
    defaultOrder: '-id',
  });
  return items.ok ? pageAnswer(r, items.value, (rec) => spec.serialize(r, rec)) : refused(r, items);
}

/**
 * The record the path's `:id` names, if the caller may see it (`write`: change or delete it). An
 * unknown id is 404 before any permission check, as DRF's `get_object` does.
 */
export function loadRecord<T extends AnyRec>(
  r: ApiRequest,
  kind: Resource['kind'],
  map: Map<number, T>,
  model: string,
  write: boolean,
): Result<T> {
  const rec = r.record(map, model);
  return rec.ok ? mayAccess(r.state, r.user(), kind, rec.value, write) : rec;
}

/** A user's username by id (null for none or an unknown id), for filters and search. */
export const username = (r: ApiRequest, id: number | null): string | null =>
  id === null ? null : (r.state.users.get(id)?.username ?? null);

/** GET on one record: it, serialized, if the caller may see it. */
export function retrieveResource<T extends AnyRec>(r: ApiRequest, spec: RecordSpec<T>): Response {
  const rec = loadRecord(r, spec.kind, spec.map(r), spec.model, false);
  return rec.ok ? cvatJson(r.c, spec.serialize(r, rec.value)) : refused(r, rec);
}

/**
 * PATCH on one record: loaded for writing, then the body read with the row's schema and turned into a
 * patch by the domain's decision, applied (which may still refuse: a project's labels), and the record
 * answered as it now is.
 */
export function updateResource<T extends AnyRec, B, P>(
  r: ApiRequest<B>,
  spec: RecordSpec<T>,
  decide: (body: B) => Result<P>,
  apply: (ctx: MutationContext, rec: T, patch: P) => unknown,
): Response {
  const rec = loadRecord(r, spec.kind, spec.map(r), spec.model, true);
  if (!rec.ok) return refused(r, rec);
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const patch = decide(body.value);
  if (!patch.ok) return refused(r, patch);
  const applied = apply(r.mutation(), rec.value, patch.value) as Result<unknown> | undefined;
  if (
    applied !== undefined &&
    applied !== null &&
    typeof applied === 'object' &&
    'ok' in applied &&
    !applied.ok
  )
    return refused(r, applied);
  return cvatJson(r.c, spec.serialize(r, rec.value));
}

/** DELETE on one record: loaded for writing, removed, 204. */
export function destroyResource<T extends AnyRec>(
  r: ApiRequest,
  spec: RecordSpec<T>,
  remove: (ctx: MutationContext, rec: T) => void,
): Response {
  const rec = loadRecord(r, spec.kind, spec.map(r), spec.model, true);
  if (!rec.ok) return refused(r, rec);
  remove(r.mutation(), rec.value);
  return noContent(r.c);
}

/**
 * POST on a collection: the body read with the row's schema, turned into input by the domain's decision,
 * created, 201.
 */
export function createResource<T extends AnyRec, B, I>(
  r: ApiRequest<B>,
  spec: RecordSpec<T>,
  decide: (body: B) => Result<I>,
  create: (ctx: MutationContext, input: I) => T,
): Response {
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const input = decide(body.value);
  if (!input.ok) return refused(r, input);
  return cvatJson(r.c, spec.serialize(r, create(r.mutation(), input.value)), 201);
}
