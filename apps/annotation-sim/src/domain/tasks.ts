/**
 * Tasks: what a create, a partial update or an upload of data may carry (checked as CVAT's serializers
 * and IAM do), and the mutations that store them, cut their data into jobs and emit their changes.
 */
import type { PatchedTaskWriteRequest, TaskWriteRequest } from '@sims/annotation-schema/requests';
import { fail, ok, type Result } from './errors';
import { deleteIssue } from './issues';
import {
  createLabels,
  deleteLabelsOf,
  type LabelInput,
  labelNamesUnique,
  taskLabelsMapTo,
  touchOwner,
  updateLabels,
} from './labels';
import type { FrameRec, JobRec, TaskRec, UserRec } from './model';
import { emit, type MutationContext, type Rec, represent, scopeOf, stamp, update } from './mutation';
import type { OrgContext } from './org-context';
import { issuesOfJob, jobsOfTask, taskProjectChanged } from './relations';
import { mayUse, present, relatedPk, usersExist } from './resource-rules';
import { type AnnotationState, nextId } from './state';

const USER_FIELDS = ['owner_id', 'assignee_id'] as const;

export interface TaskInput {
  name: string;
  project_id: number | null;
  owner_id: number | null;
  assignee_id?: number | null;
  bug_tracker?: string;
  organization_id: number | null;
  overlap?: number | null;
  segment_size?: number;
  subset?: string;
  labels?: LabelInput[];
}

/** A task's fields as the edge checked them, with its `labels` as the edge read them. */
export type TaskFields = Omit<TaskWriteRequest, 'labels'> & { labels?: LabelInput[] };

/** A task's partial update as the edge checked it, with its `labels` as the edge read them. */
export type TaskPatchFields = Omit<PatchedTaskWriteRequest, 'labels'> & { labels?: LabelInput[] };

/** A task's partial update: its fields, and the labels to add, change or delete. */
export interface TaskPatch {
  fields: Partial<TaskRec>;
  labels?: LabelInput[];
}

/** A data request's fields as the edge checked them, with the number of files it names. */
export interface TaskDataFields {
  image_quality: number;
  chunk_size?: number | null;
  /** The client, server and remote files it names (and the upload directory holds). */
  files: number;
}

export interface TaskDataInput {
  size: number;
  image_quality?: number;
  chunk_size?: number;
}

/**
 * A new task from its checked fields: its project must exist and be visible to the caller, the users it
 * names exist; it lives in the project's organization, else in the request's organization context.
 */
export function taskCreation(
  state: AnnotationState,
  user: UserRec,
  ctx: OrgContext,
  f: TaskFields,
): Result<TaskInput> {
  const found = relatedPk(state.projects, 'project_id', f.project_id);
  if (!found.ok) return found;
  const project = found.value;
  if (project) {
    const visible = mayUse(state, user, { kind: 'project', rec: project });
    if (!visible.ok) return visible;
  }
  const users = usersExist(state, f, USER_FIELDS);
  if (!users.ok) return users;
  // TaskWriteSerializer.create: a task in a project uses the project's labels; one in none brings its own.
  if (!project && !f.labels?.length)
    return fail({ code: 'INVALID_LIST', messages: ['Label set or project_id must be present'] });
  if (project && f.labels && f.labels.length > 0)
    return fail({
      code: 'INVALID_LIST',
      messages: ['Project must have only one of Label set or project_id'],
    });
  const names = labelNamesUnique(f.labels ?? [], 'task');
  if (!names.ok) return names;
  return ok({
    name: f.name,
    project_id: project?.id ?? null,
    owner_id: f.owner_id ?? user.id,
    assignee_id: f.assignee_id ?? null,
    bug_tracker: f.bug_tracker ?? '',
    organization_id: project ? project.organization_id : (ctx.org?.id ?? null),
    overlap: f.overlap ?? null,
    segment_size: f.segment_size ?? 0,
    subset: f.subset ?? '',
    labels: f.labels,
  });
}

/**
 * A task's partial update from its checked fields: the users, project and organization it names exist;
 * moving it into a project moves it to the project's organization.
 */
export function taskPatch(state: AnnotationState, f: TaskPatchFields): Result<TaskPatch> {
  const users = usersExist(state, f, USER_FIELDS);
  if (!users.ok) return users;
  const names = labelNamesUnique(f.labels ?? [], 'task');
  if (!names.ok) return names;
  const patch: Partial<TaskRec> = {};
  if (f.project_id !== undefined) {
    const project = relatedPk(state.projects, 'project_id', f.project_id);
    if (!project.ok) return project;
    patch.project_id = project.value?.id ?? null;
    if (project.value) patch.organization_id = project.value.organization_id;
  }
  if (f.organization_id !== undefined) {
    const org = relatedPk(state.organizations, 'organization_id', f.organization_id);
    if (!org.ok) return org;
    patch.organization_id = f.organization_id;
  }
  return ok({
    fields: {
      ...patch,
      ...present<TaskRec>(f, ['name', 'owner_id', 'assignee_id', 'bug_tracker', 'subset']),
    },
    labels: f.labels,
  });
}

/**
 * A data POST's first step, as CVAT's `TaskViewSet.data` takes it before reading the upload (so at
 * `Upload-Start`, or a single request's start, even one its serializer then refuses): a task without
 * data gets its `Data` object, and the task is saved (`update:task`, `data` from null to the id).
 */
export function startTaskData(ctx: MutationContext, t: TaskRec): void {
  if (t.data_id !== null) return;
  update(ctx, 'task', t, { data_id: nextId(ctx.state, 'data') });
}

/**
 * The frames of the upload that is making a task's data (its request queued), kept with the task: the
 * data's `size` (set when the request has made the jobs) says how many `data/meta` lists.
 */
export function keepUploadFrames(t: TaskRec, frames: FrameRec[]): void {
  t.frames = frames;
}

/**
 * CVAT's `post_save` of a job (`cvat/apps/engine/signals.py`): the task is `annotation` while any of its
 * jobs is, else `validation` while any is, else `completed`; saved (`updated_date`, `update:task`) only
 * when that changes.
 */
export function taskStatusFollowsJobs(ctx: MutationContext, taskId: number): void {
  const t = ctx.state.tasks.get(taskId);
  if (t === undefined) return;
  const jobs = jobsOfTask(ctx.state, taskId);
  const status = jobs.some((j) => j.status === 'annotation')
    ? 'annotation'
    : jobs.some((j) => j.status === 'validation')
      ? 'validation'
      : 'completed';
  if (status !== t.status) update(ctx, 'task', t, { status });
}

/** Data for a task from its checked fields: once only, and at least one file (client, server or remote). */
export function taskDataInput(task: TaskRec, f: TaskDataFields): Result<TaskDataInput> {
  if (task.size !== 0) return fail({ code: 'INVALID_LIST', messages: ['Adding more data is not supported'] });
  if (f.files === 0) return fail({ code: 'INVALID_LIST', messages: ['No media data found'] });
  return ok({ size: f.files, image_quality: f.image_quality, chunk_size: f.chunk_size ?? undefined });
}

export function createTask(ctx: MutationContext, input: TaskInput): TaskRec {
  const s = ctx.state;
  const t: TaskRec = {
    id: nextId(s, 'tasks'),
    name: input.name,
    project_id: input.project_id,
    owner_id: input.owner_id,
    assignee_id: input.assignee_id ?? null,
    bug_tracker: input.bug_tracker ?? '',
    organization_id: input.organization_id,
    overlap: input.overlap ?? null,
    segment_size: input.segment_size ?? 0,
    size: 0,
    mode: '',
    dimension: '2d',
    subset: input.subset ?? '',
    status: 'annotation',
    image_quality: 70,
    data_id: null,
    data_chunk_size: null,
    created_date: stamp(ctx),
    updated_date: stamp(ctx),
    assignee_updated_date: input.assignee_id ? stamp(ctx) : null,
  };
  s.tasks.set(t.id, t);
  emit(ctx, 'create', 'task', t as unknown as Rec);
  if (t.project_id === null) createLabels(ctx, { project_id: null, task_id: t.id }, input.labels ?? []);
  return t;
}

export function updateTask(ctx: MutationContext, t: TaskRec, patch: Partial<TaskRec>): TaskRec {
  const moves = 'project_id' in patch && patch.project_id !== t.project_id;
  if (moves) taskProjectChanged(ctx.state);
  update(ctx, 'task', t, patch);
  if (moves) taskProjectChanged(ctx.state);
  return t;
}

/**
 * A task's PATCH: its own labels first when it is in no project (a task in a project has none: they are
 * ignored, as CVAT's update does), one transaction; moving into a project needs each of its labels in
 * the project by name, and drops them. Then its fields; its jobs are touched when labels changed.
 */
export function applyTaskPatch(ctx: MutationContext, t: TaskRec, patch: TaskPatch): Result<TaskRec> {
  const owner = { project_id: null, task_id: t.id };
  const labelled = t.project_id === null && patch.labels !== undefined && patch.labels.length > 0;
  const fields = patch.fields;
  const moves = 'project_id' in fields && fields.project_id !== t.project_id;
  if (moves && fields.project_id != null) {
    const mapped = taskLabelsMapTo(ctx, t, fields.project_id);
    if (!mapped.ok) return mapped;
  }
  if (labelled) {
    const labels = updateLabels(ctx, owner, patch.labels ?? []);
    if (!labels.ok) return labels;
  }
  if (moves && fields.project_id != null) deleteLabelsOf(ctx, owner);
  updateTask(ctx, t, fields);
  if (labelled) touchOwner(ctx, owner, false);
  return ok(t);
}

/**
 * Segments of a task, as CVAT computes them: `segment_size` 0 means the whole data; the step is
 * `segment_size - overlap`; the last segment stops at `size - 1`.
 */
function computeSegments(
  size: number,
  segmentSize: number,
  overlap: number | null,
): { start_frame: number; stop_frame: number }[] {
  if (size <= 0) return [];
  const segment = segmentSize > 0 ? Math.min(segmentSize, size) : size;
  const ov = Math.min(overlap ?? 0, Math.floor(segment / 2));
  const step = Math.max(1, segment - ov);
  const out: { start_frame: number; stop_frame: number }[] = [];
  for (let start = 0; start < size; start += step) {
    out.push({ start_frame: start, stop_frame: Math.min(start + segment - 1, size - 1) });
    if (start + segment >= size) break;
  }
  return out;
}

/**
 * Attaches data of `size` frames to a task: the jobs are created by the background task-creation
 * worker (so `sender` is the worker's `{id, username, email}`), then the task is saved.
 */
export function attachTaskData(ctx: MutationContext, t: TaskRec, input: TaskDataInput): JobRec[] {
  const s = ctx.state;
  const segmentSize = t.segment_size > 0 ? Math.min(t.segment_size, input.size) : input.size;
  const overlap = t.overlap ?? 0;
  const jobs: JobRec[] = [];
  for (const seg of computeSegments(input.size, segmentSize, overlap)) {
    const j: JobRec = {
      id: nextId(s, 'jobs'),
      task_id: t.id,
      start_frame: seg.start_frame,
      stop_frame: seg.stop_frame,
      assignee_id: null,
      stage: 'annotation',
      state: 'new',
      status: 'annotation',
      type: 'annotation',
      created_date: stamp(ctx),
      updated_date: stamp(ctx),
      assignee_updated_date: null,
    };
    s.jobs.set(j.id, j);
    jobs.push(j);
  }
  // Data-model fields (size, quality, chunk size) change silently; the Task save emits update:task.
  t.size = input.size;
  t.image_quality = input.image_quality ?? t.image_quality;
  t.data_chunk_size = input.chunk_size ?? 72;
  for (const j of jobs) emit(ctx, 'create', 'job', j as unknown as Rec);
  update(ctx, 'task', t, {
    ...(t.data_id === null ? { data_id: nextId(s, 'data') } : {}),
    mode: 'annotation',
    segment_size: segmentSize,
    overlap,
  });
  return jobs;
}

export function deleteTask(ctx: MutationContext, t: TaskRec): void {
  const s = ctx.state;
  const jobs = jobsOfTask(s, t.id);
  const snapshots = jobs.map((j) => ({
    j,
    snap: represent(ctx, 'job', j as unknown as Rec),
    scope: scopeOf(s, 'job', j as unknown as Rec),
  }));
  for (const j of jobs) {
    for (const i of issuesOfJob(s, j.id)) deleteIssue(ctx, i);
  }
  const snapshot = represent(ctx, 'task', t as unknown as Rec);
  for (const { j, snap, scope } of snapshots) {
    s.jobs.delete(j.id);
    emit(ctx, 'delete', 'job', j as unknown as Rec, { resource: snap, scope });
  }
  if (t.project_id === null) deleteLabelsOf(ctx, { project_id: null, task_id: t.id });
  s.tasks.delete(t.id);
  emit(ctx, 'delete', 'task', t as unknown as Rec, { resource: snapshot });
}
