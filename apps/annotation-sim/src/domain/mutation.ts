/**
 * The change machinery every mutation of the domain shares: the context a mutation runs in, the
 * `ResourceChange` it records (scope, actor, before/after and the changed fields), and Django-like saves.
 */
import { forgetCounted } from '@sims/sim-core';
import type { Actor, ChangeAction, ResourceChange } from './changes';
import { formatDrfDate } from './dates';
import { labelRead } from './label-read';
import type {
  CommentRec,
  InvitationRec,
  IssueRec,
  JobRec,
  LabelRec,
  MembershipRec,
  OrganizationRec,
  ProjectRec,
  ResourceKind,
  TaskRec,
} from './model';
import { deliveriesOfWebhook } from './relations';
import {
  commentRead,
  invitationRead,
  issueRead,
  jobRead,
  membershipRead,
  organizationRead,
  projectRead,
  taskRead,
} from './serializers';
import type { AnnotationState } from './state';

/**
 * What every mutation needs: the state, the clock time, who acts, and the list its changes go to. The
 * domain only appends to the list; whoever made the context hands it on when the domain call returns
 * (`src/changes-dispatch.ts`: webhooks and server events).
 */
export interface MutationContext {
  state: AnnotationState;
  /** Clock time, epoch ms. */
  now: number;
  actor: Actor | null;
  /** Random hex for invitation keys; injected so ids stay seeded. */
  hex?: (n: number) => string;
  /**
   * The changes made, in order; null when nothing listens (a seed): then no change is rendered.
   * Rendering a task reads all jobs, so a seed of many tasks with data was quadratic for changes nobody
   * received.
   */
  changes: ResourceChange[] | null;
}

export type Rec = Record<string, unknown>;

/** Keys that are not model attributes of the Django model (or live on another model). */
const NOT_ATTRS = new Set([
  'id',
  'labels',
  'created_date',
  'size',
  'image_quality',
  'data_chunk_size',
  'start_frame',
  'stop_frame',
]);

/** CVAT 2.73 `before_update`/`changes`: changed model attribute names, old values and new values. */
function diffRecords(
  before: Rec,
  after: Rec,
): { beforeUpdate: Rec; changes: Record<string, { from: unknown; to: unknown }> } {
  const beforeUpdate: Rec = {};
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(after)) {
    if (NOT_ATTRS.has(key)) continue;
    const was = before[key];
    const is = after[key];
    // Changed when the JSON differs; a value that is the very same one needs no JSON to tell.
    if (was === is || JSON.stringify(was) === JSON.stringify(is)) continue;
    beforeUpdate[key] = was;
    changes[key] = { from: was, to: is };
  }
  return { beforeUpdate, changes };
}

function orgRef(state: AnnotationState, orgId: number | null): { id: number; slug: string } | null {
  if (orgId === null) return null;
  const o = state.organizations.get(orgId);
  return o ? { id: o.id, slug: o.slug } : null;
}

export interface Scope {
  orgId: number | null;
  projectId: number | null;
  taskId: number | null;
  jobId: number | null;
}

export function scopeOf(state: AnnotationState, kind: ResourceKind, rec: Rec): Scope {
  const none: Scope = { orgId: null, projectId: null, taskId: null, jobId: null };
  switch (kind) {
    case 'organization':
      return { ...none, orgId: rec.id as number };
    case 'membership':
      return { ...none, orgId: rec.organization_id as number };
    case 'invitation': {
      const m = state.memberships.get(rec.membership_id as number);
      return { ...none, orgId: m?.organization_id ?? (rec.__org as number | undefined) ?? null };
    }
    case 'project':
      return { ...none, orgId: rec.organization_id as number | null, projectId: rec.id as number };
    case 'task':
      return {
        orgId: rec.organization_id as number | null,
        projectId: rec.project_id as number | null,
        taskId: rec.id as number,
        jobId: null,
      };
    case 'job': {
      const t = state.tasks.get(rec.task_id as number);
      return {
        orgId: t?.organization_id ?? null,
        projectId: t?.project_id ?? null,
        taskId: rec.task_id as number,
        jobId: rec.id as number,
      };
    }
    case 'issue': {
      const j = state.jobs.get(rec.job_id as number);
      const s = j ? scopeOf(state, 'job', j as unknown as Rec) : none;
      return { ...s, jobId: rec.job_id as number };
    }
    case 'comment': {
      const i = state.issues.get(rec.issue_id as number);
      return i ? scopeOf(state, 'issue', i as unknown as Rec) : none;
    }
    case 'label': {
      const owner =
        rec.project_id !== null
          ? state.projects.get(rec.project_id as number)
          : state.tasks.get(rec.task_id as number);
      return {
        orgId: owner?.organization_id ?? null,
        projectId: rec.project_id as number | null,
        taskId: rec.task_id as number | null,
        jobId: null,
      };
    }
  }
}

/** The read representation of any resource kind. */
export function represent(ctx: MutationContext, kind: ResourceKind, rec: Rec): Rec {
  const s = ctx.state;
  switch (kind) {
    case 'organization':
      return organizationRead(s, rec as unknown as OrganizationRec);
    case 'membership':
      return membershipRead(s, rec as unknown as MembershipRec);
    case 'invitation':
      return invitationRead(s, rec as unknown as InvitationRec, ctx.now);
    case 'project':
      return projectRead(s, rec as unknown as ProjectRec);
    case 'task':
      return taskRead(s, rec as unknown as TaskRec);
    case 'job':
      return jobRead(s, rec as unknown as JobRec);
    case 'issue':
      return issueRead(s, rec as unknown as IssueRec);
    case 'comment':
      return commentRead(s, rec as unknown as CommentRec);
    case 'label':
      return labelRead(s, rec as unknown as LabelRec);
  }
}

/** Records one change of `rec` in the context's list (nothing when nothing listens). */
export function emit(
  ctx: MutationContext,
  action: ChangeAction,
  kind: ResourceKind,
  rec: Rec,
  extra: { resource?: Rec; before?: Rec; beforeRec?: Rec; scope?: Scope; previousOrgId?: number | null } = {},
): void {
  if (ctx.changes === null) return;
  const scope = extra.scope ?? scopeOf(ctx.state, kind, rec);
  const change: ResourceChange = {
    scope: `${action}:${kind}`,
    action,
    kind,
    id: (kind === 'invitation' ? rec.key : rec.id) as number | string,
    resource: extra.resource ?? represent(ctx, kind, rec),
    actor: ctx.actor,
    org: orgRef(ctx.state, scope.orgId),
    projectId: scope.projectId,
    taskId: scope.taskId,
    jobId: scope.jobId,
    time: new Date(ctx.now).toISOString(),
  };
  if (ctx.actor?.kind === 'user') {
    if (ctx.actor.requestId) change.requestId = ctx.actor.requestId;
    if (ctx.actor.accessTokenId != null) change.accessTokenId = ctx.actor.accessTokenId;
    if (ctx.actor.userAgent) change.userAgent = ctx.actor.userAgent;
  }
  if (extra.before) change.before = extra.before;
  if (action === 'update' && extra.beforeRec) {
    const d = diffRecords(extra.beforeRec, rec);
    change.beforeUpdate = d.beforeUpdate;
    change.changes = d.changes;
  }
  if (extra.previousOrgId !== undefined) change.previousOrg = orgRef(ctx.state, extra.previousOrgId);
  ctx.changes.push(change);
}

export const stamp = (ctx: MutationContext) => formatDrfDate(ctx.now);

/** Saves `patch` into `rec` like a Django `save()`: bumps `updated_date`, emits `update:<kind>`. */
export function update<T extends object>(
  ctx: MutationContext,
  kind: ResourceKind,
  rec: T,
  patch: Partial<T>,
  bump = true,
): T {
  const beforeRec = { ...rec } as Rec;
  const before = ctx.changes === null ? undefined : represent(ctx, kind, beforeRec);
  const previousOrgId = (beforeRec as { organization_id?: number | null }).organization_id;
  Object.assign(rec, patch);
  const r = rec as Rec;
  if ('assignee_id' in patch && patch.assignee_id !== beforeRec.assignee_id && 'assignee_updated_date' in r) {
    r.assignee_updated_date = stamp(ctx);
  }
  if (bump && 'updated_date' in r) r.updated_date = stamp(ctx);
  const moved = 'organization_id' in patch && previousOrgId !== r.organization_id;
  emit(ctx, 'update', kind, r, {
    before,
    beforeRec,
    ...(moved ? { previousOrgId: previousOrgId ?? null } : {}),
  });
  return rec;
}

/**
 * Deletes a webhook and its deliveries without any event (a database cascade); the rows leave the
 * memory budget with it.
 */
export function deleteWebhookCascade(s: AnnotationState, webhookId: number): void {
  s.webhooks.delete(webhookId);
  for (const d of deliveriesOfWebhook(s, webhookId)) forgetCounted(s.deliveries, d.id);
}
