/**
 * Projects: what a create or partial update may carry (checked as CVAT's serializer and IAM do) and the
 * mutations that store them and emit their changes.
 */
import type { PatchedProjectWriteRequest, ProjectWriteRequest } from '@sims/annotation-schema/requests';
import { canCreateInContext, isAdmin } from './access';
import { denied, fail, ok, type Result } from './errors';
import {
  createLabels,
  deleteLabelsOf,
  type LabelInput,
  labelNamesUnique,
  touchOwner,
  updateLabels,
} from './labels';
import type { ProjectRec, UserRec } from './model';
import {
  deleteWebhookCascade,
  emit,
  type MutationContext,
  type Rec,
  represent,
  stamp,
  update,
} from './mutation';
import type { OrgContext } from './org-context';
import { tasksOfProject } from './relations';
import { present, relatedPk, usersExist } from './resource-rules';
import { type AnnotationState, nextId } from './state';
import { deleteTask } from './tasks';

const USER_FIELDS = ['owner_id', 'assignee_id'] as const;

export interface ProjectInput {
  name: string;
  owner_id: number | null;
  assignee_id?: number | null;
  bug_tracker?: string;
  organization_id: number | null;
  labels?: LabelInput[];
}

/** A project's fields as the edge checked them, with its `labels` as the edge read them. */
export type ProjectFields = Omit<ProjectWriteRequest, 'labels'> & { labels?: LabelInput[] };

/** A project's partial update as the edge checked it, with its `labels` as the edge read them. */
export type ProjectPatchFields = Omit<PatchedProjectWriteRequest, 'labels'> & { labels?: LabelInput[] };

/** A project's partial update: its fields, and the labels to add, change or delete. */
export interface ProjectPatch {
  fields: Partial<ProjectRec>;
  labels?: LabelInput[];
}

/**
 * A new project from its checked fields: the users it names exist; the caller owns it unless `owner_id`
 * says otherwise, and it lives in the request's organization context.
 */
export function projectCreation(
  state: AnnotationState,
  user: UserRec,
  ctx: OrgContext,
  f: ProjectFields,
): Result<ProjectInput> {
  const users = usersExist(state, f, USER_FIELDS);
  if (!users.ok) return users;
  const names = labelNamesUnique(f.labels ?? [], 'project');
  if (!names.ok) return names;
  return ok({
    name: f.name,
    owner_id: f.owner_id ?? user.id,
    assignee_id: f.assignee_id ?? null,
    bug_tracker: f.bug_tracker ?? '',
    organization_id: ctx.org?.id ?? null,
    labels: f.labels,
  });
}

/**
 * A project's partial update from its checked fields: the users and organization it names exist, and
 * moving it into an organization needs the right to create there (admins excepted).
 */
export function projectPatch(
  state: AnnotationState,
  user: UserRec,
  f: ProjectPatchFields,
): Result<ProjectPatch> {
  const users = usersExist(state, f, USER_FIELDS);
  if (!users.ok) return users;
  const names = labelNamesUnique(f.labels ?? [], 'project');
  if (!names.ok) return names;
  if (f.organization_id !== undefined && f.organization_id !== null) {
    const org = relatedPk(state.organizations, 'organization_id', f.organization_id);
    if (!org.ok) return org;
    if (!isAdmin(user) && !canCreateInContext(state, user, { specified: true, org: org.value ?? null }))
      return fail(denied());
  }
  return ok({
    fields: present<ProjectRec>(f, ['name', 'owner_id', 'assignee_id', 'bug_tracker', 'organization_id']),
    labels: f.labels,
  });
}

export function createProject(ctx: MutationContext, input: ProjectInput): ProjectRec {
  const s = ctx.state;
  const p: ProjectRec = {
    id: nextId(s, 'projects'),
    name: input.name,
    owner_id: input.owner_id,
    assignee_id: input.assignee_id ?? null,
    bug_tracker: input.bug_tracker ?? '',
    organization_id: input.organization_id,
    status: 'annotation',
    created_date: stamp(ctx),
    updated_date: stamp(ctx),
    assignee_updated_date: input.assignee_id ? stamp(ctx) : null,
  };
  s.projects.set(p.id, p);
  emit(ctx, 'create', 'project', p as unknown as Rec);
  createLabels(ctx, { project_id: p.id, task_id: null }, input.labels ?? []);
  return p;
}

function updateProject(ctx: MutationContext, p: ProjectRec, patch: Partial<ProjectRec>): ProjectRec {
  const res = update(ctx, 'project', p, patch);
  if ('organization_id' in patch) {
    // The project's tasks follow it to the new organization (a queryset update: no signals).
    for (const t of tasksOfProject(ctx.state, p.id)) t.organization_id = p.organization_id;
  }
  return res;
}

/**
 * A project's PATCH: its labels first (one transaction; a refusal changes nothing), then its fields, and
 * its tasks and their jobs touched when labels changed.
 */
export function applyProjectPatch(
  ctx: MutationContext,
  p: ProjectRec,
  patch: ProjectPatch,
): Result<ProjectRec> {
  const owner = { project_id: p.id, task_id: null };
  const labelled = patch.labels !== undefined && patch.labels.length > 0;
  if (labelled) {
    const labels = updateLabels(ctx, owner, patch.labels ?? []);
    if (!labels.ok) return labels;
  }
  const res = updateProject(ctx, p, patch.fields);
  if (labelled) touchOwner(ctx, owner, false);
  return ok(res);
}

export function deleteProject(ctx: MutationContext, p: ProjectRec): void {
  const s = ctx.state;
  // Project webhooks are cascade-deleted with the project, so they never receive delete:project (#5631).
  for (const w of [...s.webhooks.values()]) if (w.project_id === p.id) deleteWebhookCascade(s, w.id);
  for (const t of tasksOfProject(s, p.id)) deleteTask(ctx, t);
  const snapshot = represent(ctx, 'project', p as unknown as Rec);
  deleteLabelsOf(ctx, { project_id: p.id, task_id: null });
  s.projects.delete(p.id);
  emit(ctx, 'delete', 'project', p as unknown as Rec, { resource: snapshot });
}
