import type { Resource } from '../../domain/access';
import type { CommentRec, IssueRec, JobRec, ProjectRec, TaskRec } from '../../domain/model';
import type { AnnotationState } from '../../domain/state';
import type { FilterTerms } from '../json-logic-columns';

/**
 * The JSON Logic terms of CVAT's model list views: each ViewSet's `filter_fields`, read through its
 * `lookup_fields` (`cvat/apps/engine/views.py`). CVAT's `ordering_fields` are the same list, so these
 * are the sort keys too. Each term is read from the simulator's records as the lookup reads CVAT's
 * tables. A relation that is absent (a task without a project) is NULL. `validation_mode` and
 * `parent_job_id` are NULL for every record, as the serializers write them: the simulator makes no
 * validation layouts and no consensus jobs.
 */

/** A view's terms over the records of one world (`s`). */
type Terms<T> = (s: AnnotationState) => FilterTerms<T>;

const userName = (s: AnnotationState, id: number | null) =>
  id === null ? null : (s.users.get(id)?.username ?? null);
const projectName = (s: AnnotationState, id: number | null) =>
  id === null ? null : (s.projects.get(id)?.name ?? null);
const taskOf = (s: AnnotationState, id: number) => s.tasks.get(id);

/** ProjectViewSet: `owner` → `owner__username`, `assignee` → `assignee__username`. */
const PROJECT: Terms<ProjectRec> = (s) => ({
  name: { type: 'str', get: (p) => p.name, modelField: true },
  owner: { type: 'str', get: (p) => userName(s, p.owner_id), modelField: true },
  assignee: { type: 'str', get: (p) => userName(s, p.assignee_id), modelField: true },
  status: { type: 'str', get: (p) => p.status, modelField: true },
  id: { type: 'int', get: (p) => p.id, modelField: true },
  updated_date: { type: 'datetime', get: (p) => p.updated_date, modelField: true },
});

/**
 * TaskViewSet: `project_name` → `project__name`, `tracker_link` → `bug_tracker`, `validation_mode` →
 * `data__validation_layout__mode`.
 */
const TASK: Terms<TaskRec> = (s) => ({
  project_name: { type: 'str', get: (t) => projectName(s, t.project_id) },
  name: { type: 'str', get: (t) => t.name, modelField: true },
  owner: { type: 'str', get: (t) => userName(s, t.owner_id), modelField: true },
  status: { type: 'str', get: (t) => t.status, modelField: true },
  assignee: { type: 'str', get: (t) => userName(s, t.assignee_id), modelField: true },
  subset: { type: 'str', get: (t) => t.subset, modelField: true },
  mode: { type: 'str', get: (t) => t.mode, modelField: true },
  dimension: { type: 'str', get: (t) => t.dimension, modelField: true },
  tracker_link: { type: 'str', get: (t) => t.bug_tracker },
  validation_mode: { type: 'str', get: () => null },
  id: { type: 'int', get: (t) => t.id, modelField: true },
  project_id: { type: 'fk', get: (t) => t.project_id, modelField: true },
  updated_date: { type: 'datetime', get: (t) => t.updated_date, modelField: true },
});

/** JobViewSet: the task's fields through `segment__task__…`. */
const JOB: Terms<JobRec> = (s) => ({
  task_name: { type: 'str', get: (j) => taskOf(s, j.task_id)?.name ?? null },
  project_name: {
    type: 'str',
    get: (j) => projectName(s, taskOf(s, j.task_id)?.project_id ?? null),
  },
  assignee: { type: 'str', get: (j) => userName(s, j.assignee_id), modelField: true },
  state: { type: 'str', get: (j) => j.state, modelField: true },
  stage: { type: 'str', get: (j) => j.stage, modelField: true },
  id: { type: 'int', get: (j) => j.id, modelField: true },
  task_id: { type: 'fk', get: (j) => j.task_id },
  project_id: { type: 'fk', get: (j) => taskOf(s, j.task_id)?.project_id ?? null },
  updated_date: { type: 'datetime', get: (j) => j.updated_date, modelField: true },
  dimension: { type: 'str', get: (j) => taskOf(s, j.task_id)?.dimension ?? null },
  type: { type: 'str', get: (j) => j.type, modelField: true },
  parent_job_id: { type: 'fk', get: () => null, modelField: true },
});

/** IssueViewSet: `job_id` → `job`, `task_id` → `job__segment__task__id`, `frame_id` → `frame`. */
const ISSUE: Terms<IssueRec> = (s) => ({
  owner: { type: 'str', get: (i) => userName(s, i.owner_id), modelField: true },
  assignee: { type: 'str', get: (i) => userName(s, i.assignee_id), modelField: true },
  id: { type: 'int', get: (i) => i.id, modelField: true },
  job_id: { type: 'fk', get: (i) => i.job_id, modelField: true },
  task_id: { type: 'int', get: (i) => s.jobs.get(i.job_id)?.task_id ?? null },
  resolved: { type: 'bool', get: (i) => i.resolved, modelField: true },
  frame_id: { type: 'int', get: (i) => i.frame },
});

/** CommentViewSet: `issue_id` → `issue__id`, `job_id` → `issue__job__id`, `frame_id` → `issue__frame`. */
const COMMENT: Terms<CommentRec> = (s) => ({
  owner: { type: 'str', get: (c) => userName(s, c.owner_id), modelField: true },
  id: { type: 'int', get: (c) => c.id, modelField: true },
  issue_id: { type: 'int', get: (c) => c.issue_id, modelField: true },
  frame_id: { type: 'int', get: (c) => s.issues.get(c.issue_id)?.frame ?? null },
  job_id: { type: 'int', get: (c) => s.issues.get(c.issue_id)?.job_id ?? null },
});

const TERMS: { readonly [K in Resource['kind']]: Terms<Extract<Resource, { kind: K }>['rec']> } = {
  project: PROJECT,
  task: TASK,
  job: JOB,
  issue: ISSUE,
  comment: COMMENT,
};

/** The filter terms of a kind's list view, reading the records of `state`. */
export function filterTermsOf<T>(state: AnnotationState, kind: Resource['kind']): FilterTerms<T> {
  return (TERMS[kind] as Terms<T>)(state);
}
