/**
 * `/api/labels`: CVAT's LabelViewSet (list, retrieve, partial update, destroy; labels are created through
 * their project's or task's create and PATCH). A label's permissions are its project's or task's: seeing
 * it needs seeing them, changing or deleting it needs changing them. A list names one source at most
 * (`job_id`, `task_id` or `project_id`, whose labels are the ones its task uses) and shows first-level
 * labels only, their points inside them.
 */
import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type { PatchedLabelRequest } from '@sims/annotation-schema/requests';
import { canChange, canView, type Resource, resourceVisible } from '../../domain/access';
import { denied, fail, notFound, ok, type Result } from '../../domain/errors';
import { labelOwnerOfTask, labelRead, topLabelsOf } from '../../domain/label-read';
import { deleteLabel, updateLabel } from '../../domain/labels';
import type { JobRec, LabelRec } from '../../domain/model';
import type { AnnotationState } from '../../domain/state';
import type { ApiRequest } from '../api';
import type { FilterTerms } from '../json-logic-columns';
import { readLabelPatch } from '../label-input';
import { checkListQuery, pageAnswer } from '../pagination';
import { cvatJson, noContent, renderApiError } from '../respond';
import { byId, type RouteRow, refused, withBody } from '../route-table';
import { simpleFiltersOf } from './filter-terms';
import { queryList } from './list-query';

/** The project or task whose rules a label follows. */
function ownerOf(s: AnnotationState, l: LabelRec): Resource | undefined {
  if (l.project_id !== null) {
    const rec = s.projects.get(l.project_id);
    return rec ? { kind: 'project', rec } : undefined;
  }
  const rec = l.task_id === null ? undefined : s.tasks.get(l.task_id);
  return rec ? { kind: 'task', rec } : undefined;
}

/** LabelViewSet's `filter_fields`: `parent` is `parent__name`. */
const terms = (s: AnnotationState): FilterTerms<LabelRec> => ({
  name: { type: 'str', get: (l) => l.name, modelField: true },
  parent: {
    type: 'str',
    get: (l) => (l.parent_id === null ? null : (s.labels.get(l.parent_id)?.name ?? null)),
  },
  id: { type: 'int', get: (l) => l.id, modelField: true },
  type: { type: 'str', get: (l) => l.type, modelField: true },
  color: { type: 'str', get: (l) => l.color, modelField: true },
  parent_id: { type: 'fk', get: (l) => l.parent_id, modelField: true },
});

const SOURCES = ['job_id', 'task_id', 'project_id'] as const;

/**
 * The labels a list starts from: those of the one source the query names (after checking the caller
 * may see it), else every label the caller can see in the request's organization context.
 */
function listed(r: ApiRequest): Result<LabelRec[]> {
  const s = r.state;
  const user = r.user();
  const given = SOURCES.filter((k) => r.query(k) !== undefined);
  if (given.length > 1)
    return fail({
      code: 'INVALID_LIST',
      messages: ["'job_id', 'task_id' and 'project_id' parameters cannot be used together"],
    });
  const ctx = r.orgContext();
  if (!ctx.ok) return ctx;
  if (given.length === 0) {
    const all = [...s.labels.values()].filter((l) => {
      const owner = l.parent_id === null ? ownerOf(s, l) : undefined;
      return owner !== undefined && resourceVisible(s, user, ctx.value, owner);
    });
    return ok(all);
  }
  const key = given[0] as (typeof SOURCES)[number];
  const id = Number(r.query(key));
  const source = sourceOf(s, key, Number.isInteger(id) ? id : Number.NaN);
  if (!source.ok) return source;
  if (!canView(s, user, source.value)) return fail(denied());
  const src = source.value;
  if (src.kind === 'project') return ok(topLabelsOf(s, { project_id: src.rec.id, task_id: null }));
  const task = src.kind === 'task' ? src.rec : s.tasks.get((src.rec as JobRec).task_id);
  return ok(task ? topLabelsOf(s, labelOwnerOfTask(task)) : []);
}

/** The job, task or project a list names (404 as DRF's `get_object_or_404` when there is none). */
function sourceOf(s: AnnotationState, key: (typeof SOURCES)[number], id: number): Result<Resource> {
  if (key === 'job_id') {
    const rec = s.jobs.get(id);
    return rec && s.tasks.has(rec.task_id) ? ok({ kind: 'job', rec }) : fail(notFound('Job'));
  }
  if (key === 'task_id') {
    const rec = s.tasks.get(id);
    return rec ? ok({ kind: 'task', rec }) : fail(notFound('Task'));
  }
  const rec = s.projects.get(id);
  return rec ? ok({ kind: 'project', rec }) : fail(notFound('Project'));
}

function handleListLabels(r: ApiRequest): Response {
  r.user();
  const bounded = checkListQuery(r);
  if (!bounded.ok) return refused(r, bounded);
  const labels = listed(r);
  if (!labels.ok) return refused(r, labels);
  const firstLevel = labels.value.filter((l) => l.parent_id === null);
  const items = queryList(r, firstLevel, {
    terms: terms(r.state),
    simpleFilters: simpleFiltersOf('/api/labels'),
    // LabelViewSet's search_fields: name, parent (`parent__name`).
    search: [
      (l) => l.name,
      (l) => (l.parent_id === null ? null : (r.state.labels.get(l.parent_id)?.name ?? null)),
    ],
    defaultOrder: 'id',
  });
  return items.ok ? pageAnswer(r, items.value, (l) => labelRead(r.state, l)) : refused(r, items);
}

/** The label of the path if the caller may see it (`write`: change or delete it); 404 before 403. */
function loadLabel(r: ApiRequest, write: boolean): Result<LabelRec> {
  const label = r.record(r.state.labels, 'Label');
  if (!label.ok) return label;
  const owner = ownerOf(r.state, label.value);
  const user = r.user();
  const allowed = owner !== undefined && (write ? canChange : canView)(r.state, user, owner);
  return allowed ? label : fail(denied());
}

function handleRetrieveLabel(r: ApiRequest): Response {
  const label = loadLabel(r, false);
  return label.ok ? cvatJson(r.c, labelRead(r.state, label.value)) : refused(r, label);
}

const SUBLABEL = (verb: string) =>
  `Sublabels cannot be ${verb} this way. Please send a PATCH request with updated parent label data instead.`;

function handleUpdateLabel(r: ApiRequest<PatchedLabelRequest>): Response {
  const label = loadLabel(r, true);
  if (!label.ok) return refused(r, label);
  const body = r.parsedBody();
  if (!body.ok) return refused(r, body);
  const spec = readLabelPatch(body.value);
  if (!spec.ok) return refused(r, spec);
  if (label.value.parent_id !== null)
    return renderApiError(r.c, { code: 'INVALID_LIST', messages: [SUBLABEL('modified')] });
  const done = updateLabel(r.mutation(), label.value, spec.value);
  return done.ok ? cvatJson(r.c, labelRead(r.state, done.value)) : refused(r, done);
}

function handleDestroyLabel(r: ApiRequest): Response {
  const label = loadLabel(r, true);
  if (!label.ok) return refused(r, label);
  if (label.value.parent_id !== null)
    return renderApiError(r.c, { code: 'INVALID_LIST', messages: [SUBLABEL('deleted')] });
  deleteLabel(r.mutation(), label.value);
  return noContent(r.c);
}

const LABEL = byId('labels');

/** `/api/labels`: CVAT's LabelViewSet (list, retrieve, partial update, destroy). */
export const labelRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/labels', operation: 'labels.list', handle: handleListLabels },
  {
    method: 'get',
    path: '/api/labels/:id',
    operation: 'labels.retrieve',
    resource: LABEL,
    handle: handleRetrieveLabel,
  },
  withBody({
    method: 'patch',
    path: '/api/labels/:id',
    operation: 'labels.partial_update',
    resource: LABEL,
    body: requestSchemas.PatchedLabelRequest,
    handle: handleUpdateLabel,
  }),
  {
    method: 'delete',
    path: '/api/labels/:id',
    operation: 'labels.destroy',
    resource: LABEL,
    handle: handleDestroyLabel,
  },
];
