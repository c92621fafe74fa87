import type { Resource } from '../../domain/access';
import type {
  CommentRec,
  InvitationRec,
  IssueRec,
  JobRec,
  MembershipRec,
  OrganizationRec,
  ProjectRec,
  TaskRec,
  UserRec,
} from '../../domain/model';
import type { AnnotationState } from '../../domain/state';
import type { FilterTerms } from '../json-logic-columns';
import { BOOL, CHAR, choice, model, NUMBER, type SimpleFilters } from './simple-filters';

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
/** `data__media_type`: NULL for a task without data; the simulator's data are images. */
const mediaType = (t: TaskRec | undefined) => (t === undefined || t.data_id === null ? null : 'image');

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
  media_type: { type: 'str', get: mediaType },
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
  mode: { type: 'str', get: (j) => taskOf(s, j.task_id)?.mode ?? null },
  media_type: { type: 'str', get: (j) => mediaType(taskOf(s, j.task_id)) },
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

/** OrganizationViewSet: `owner` → `owner__username`. */
export const organizationTerms: Terms<OrganizationRec> = (s) => ({
  name: { type: 'str', get: (o) => o.name, modelField: true },
  owner: { type: 'str', get: (o) => userName(s, o.owner_id), modelField: true },
  slug: { type: 'str', get: (o) => o.slug, modelField: true },
  id: { type: 'int', get: (o) => o.id, modelField: true },
});

/** MembershipViewSet: `user` → `user__username`. */
export const membershipTerms: Terms<MembershipRec> = (s) => ({
  user: { type: 'str', get: (m) => userName(s, m.user_id), modelField: true },
  role: { type: 'str', get: (m) => m.role, modelField: true },
  id: { type: 'int', get: (m) => m.id, modelField: true },
});

/**
 * InvitationViewSet's simple filters: `owner` → `owner__username`, `user_id` → `membership__user__id`,
 * `accepted` → `membership__is_active`.
 */
export const invitationTerms: Terms<InvitationRec> = (s) => ({
  owner: { type: 'str', get: (i) => userName(s, i.owner_id), modelField: true },
  user_id: { type: 'int', get: (i) => s.memberships.get(i.membership_id)?.user_id ?? null },
  accepted: { type: 'bool', get: (i) => s.memberships.get(i.membership_id)?.is_active ?? null },
});

/** UserViewSet (Django's User): every term a field of the model. */
export const userTerms: Terms<UserRec> = () => ({
  username: { type: 'str', get: (u) => u.username, modelField: true },
  first_name: { type: 'str', get: (u) => u.first_name, modelField: true },
  last_name: { type: 'str', get: (u) => u.last_name, modelField: true },
  id: { type: 'int', get: (u) => u.id, modelField: true },
  is_active: { type: 'bool', get: (u) => u.is_active, modelField: true },
});

const STATUS = choice('annotation', 'validation', 'completed');
const DIMENSION = choice('1d', '2d', '3d');
const MODE = choice('annotation', 'interpolation');
const MEDIA_TYPE = choice('image', 'point_cloud', 'audio');
const PROJECT_ROW = model((s) => s.projects);

/**
 * Each list view's `simple_filters` (CVAT 2.73's schema), by its path, with the django-filter class
 * the model field at the end of its lookup gets: a field with choices is a ChoiceFilter (its choices
 * are the schema's enum), a ForeignKey a ModelChoiceFilter over its table, an AutoField or
 * IntegerField a NumberFilter, a BooleanField a BooleanFilter, text a CharFilter. Each name is one of
 * the view's filter terms. CVAT builds JobViewSet's list from a set, so its order (that of a 400's
 * fields) varies between CVAT processes; the simulator's is fixed.
 */
const SIMPLE_FILTERS: Readonly<Record<string, SimpleFilters>> = {
  '/api/projects': [
    ['name', CHAR],
    ['owner', CHAR],
    ['assignee', CHAR],
    ['status', STATUS],
  ],
  '/api/tasks': [
    ['project_name', CHAR],
    ['name', CHAR],
    ['owner', CHAR],
    ['status', STATUS],
    ['assignee', CHAR],
    ['subset', CHAR],
    ['mode', MODE],
    ['dimension', DIMENSION],
    ['tracker_link', CHAR],
    ['validation_mode', choice('gt', 'gt_pool')],
    ['project_id', PROJECT_ROW],
    ['media_type', MEDIA_TYPE],
  ],
  '/api/jobs': [
    ['task_name', CHAR],
    ['project_name', CHAR],
    ['assignee', CHAR],
    ['state', choice('new', 'in progress', 'completed', 'rejected')],
    ['stage', choice('annotation', 'validation', 'acceptance')],
    ['task_id', model((s) => s.tasks)],
    ['project_id', PROJECT_ROW],
    ['dimension', DIMENSION],
    ['type', choice('annotation', 'ground_truth', 'consensus_replica')],
    ['parent_job_id', model((s) => s.jobs)],
    ['mode', MODE],
    ['media_type', MEDIA_TYPE],
  ],
  // LabelViewSet's are a set in CVAT (their order varies); the schema's order here.
  '/api/labels': [
    ['color', CHAR],
    ['name', CHAR],
    ['parent', CHAR],
    ['parent_id', model((s) => s.labels)],
    [
      'type',
      choice(
        'any',
        'cuboid',
        'ellipse',
        'mask',
        'points',
        'polygon',
        'polyline',
        'rectangle',
        'skeleton',
        'interval',
        'tag',
      ),
    ],
  ],
  '/api/issues': [
    ['owner', CHAR],
    ['assignee', CHAR],
    ['job_id', model((s) => s.jobs)],
    ['task_id', NUMBER],
    ['resolved', BOOL],
    ['frame_id', NUMBER],
  ],
  '/api/comments': [
    ['owner', CHAR],
    ['issue_id', NUMBER],
    ['frame_id', NUMBER],
    ['job_id', NUMBER],
  ],
  '/api/webhooks': [
    ['target_url', CHAR],
    ['owner', CHAR],
    ['type', choice('organization', 'project')],
    ['project_id', PROJECT_ROW],
  ],
  '/api/organizations': [
    ['name', CHAR],
    ['owner', CHAR],
    ['slug', CHAR],
  ],
  '/api/memberships': [
    ['user', CHAR],
    ['role', choice('worker', 'supervisor', 'maintainer', 'owner')],
  ],
  '/api/invitations': [
    ['owner', CHAR],
    ['user_id', NUMBER],
    ['accepted', BOOL],
  ],
  '/api/users': [
    ['username', CHAR],
    ['first_name', CHAR],
    ['last_name', CHAR],
    ['is_active', BOOL],
  ],
};

/** A list view's simple filters (none for a path not in the table). */
export const simpleFiltersOf = (path: string): SimpleFilters => SIMPLE_FILTERS[path] ?? [];
