import type { Actor, ChangeAction, ResourceChange } from './changes';
import { formatDrfDate } from './dates';
import type {
  CommentRec,
  InvitationRec,
  IssueRec,
  JobRec,
  MembershipRec,
  OrganizationRec,
  OrgRole,
  ProjectRec,
  ResourceKind,
  TaskRec,
} from './model';
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
import { type AnnotationState, nextId } from './state';

/** What every mutation needs: the state, the clock time, and who acts. */
export interface MutationContext {
  state: AnnotationState;
  /** Clock time, epoch ms. */
  now: number;
  actor: Actor | null;
  /** Random hex for invitation keys; injected so ids stay seeded. */
  hex?: (n: number) => string;
}

type Rec = Record<string, unknown>;

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
export function diffRecords(
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

interface Scope {
  orgId: number | null;
  projectId: number | null;
  taskId: number | null;
  jobId: number | null;
}

function scopeOf(state: AnnotationState, kind: ResourceKind, rec: Rec): Scope {
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
  }
}

function emit(
  ctx: MutationContext,
  action: ChangeAction,
  kind: ResourceKind,
  rec: Rec,
  extra: { resource?: Rec; before?: Rec; beforeRec?: Rec; scope?: Scope; previousOrgId?: number | null } = {},
): void {
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
  ctx.state.emit(change);
}

const stamp = (ctx: MutationContext) => formatDrfDate(ctx.now);

/** Saves `patch` into `rec` like a Django `save()`: bumps `updated_date`, emits `update:<kind>`. */
function update<T extends object>(
  ctx: MutationContext,
  kind: ResourceKind,
  rec: T,
  patch: Partial<T>,
  bump = true,
): T {
  const beforeRec = { ...rec } as Rec;
  const before = represent(ctx, kind, beforeRec);
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

// ---- organizations, memberships, invitations ----

export function createOrganization(
  ctx: MutationContext,
  ownerId: number,
  input: { slug: string; name?: string; description?: string; contact?: Record<string, unknown> },
): OrganizationRec {
  const s = ctx.state;
  const org: OrganizationRec = {
    id: nextId(s, 'organizations'),
    slug: input.slug,
    name: input.name ?? '',
    description: input.description ?? '',
    contact: input.contact ?? {},
    owner_id: ownerId,
    created_date: stamp(ctx),
    updated_date: stamp(ctx),
  };
  s.organizations.set(org.id, org);
  emit(ctx, 'create', 'organization', org as unknown as Rec);
  const m: MembershipRec = {
    id: nextId(s, 'memberships'),
    user_id: ownerId,
    organization_id: org.id,
    is_active: true,
    joined_date: stamp(ctx),
    role: 'owner',
  };
  s.memberships.set(m.id, m);
  emit(ctx, 'create', 'membership', m as unknown as Rec);
  return org;
}

export function updateOrganization(
  ctx: MutationContext,
  org: OrganizationRec,
  patch: Partial<OrganizationRec>,
): OrganizationRec {
  return update(ctx, 'organization', org, patch);
}

export function deleteOrganization(ctx: MutationContext, org: OrganizationRec): void {
  const s = ctx.state;
  // Webhooks of the organization go first and silently (cascade): they receive nothing of this.
  for (const w of [...s.webhooks.values()]) if (w.organization_id === org.id) deleteWebhookCascade(s, w.id);
  for (const p of [...s.projects.values()]) if (p.organization_id === org.id) deleteProject(ctx, p);
  for (const t of [...s.tasks.values()]) if (t.organization_id === org.id) deleteTask(ctx, t);
  for (const m of [...s.memberships.values()]) if (m.organization_id === org.id) deleteMembership(ctx, m);
  const snapshot = represent(ctx, 'organization', org as unknown as Rec);
  s.organizations.delete(org.id);
  emit(ctx, 'delete', 'organization', org as unknown as Rec, {
    resource: snapshot,
    scope: { orgId: org.id, projectId: null, taskId: null, jobId: null },
  });
}

export function updateMembership(
  ctx: MutationContext,
  m: MembershipRec,
  patch: Partial<MembershipRec>,
): MembershipRec {
  return update(ctx, 'membership', m, patch, false);
}

export function deleteMembership(ctx: MutationContext, m: MembershipRec): void {
  const s = ctx.state;
  for (const i of [...s.invitations.values()]) {
    if (i.membership_id === m.id) {
      const snap = represent(ctx, 'invitation', i as unknown as Rec);
      s.invitations.delete(i.key);
      emit(
        ctx,
        'delete',
        'invitation',
        { ...(i as unknown as Rec), __org: m.organization_id },
        { resource: snap, scope: { orgId: m.organization_id, projectId: null, taskId: null, jobId: null } },
      );
    }
  }
  const snapshot = represent(ctx, 'membership', m as unknown as Rec);
  s.memberships.delete(m.id);
  emit(ctx, 'delete', 'membership', m as unknown as Rec, { resource: snapshot });
}

export function createInvitation(
  ctx: MutationContext,
  orgId: number,
  userId: number,
  role: OrgRole,
  ownerId: number,
): InvitationRec {
  const s = ctx.state;
  const m: MembershipRec = {
    id: nextId(s, 'memberships'),
    user_id: userId,
    organization_id: orgId,
    is_active: false,
    joined_date: null,
    role,
  };
  s.memberships.set(m.id, m);
  emit(ctx, 'create', 'membership', m as unknown as Rec);
  const hex = ctx.hex ?? ((n: number) => String(nextId(s, 'invitation-keys')).padStart(n, '0'));
  const inv: InvitationRec = {
    key: hex(64),
    created_date: stamp(ctx),
    sent_date: stamp(ctx),
    owner_id: ownerId,
    membership_id: m.id,
  };
  s.invitations.set(inv.key, inv);
  emit(ctx, 'create', 'invitation', inv as unknown as Rec);
  return inv;
}

export function acceptInvitation(ctx: MutationContext, inv: InvitationRec): void {
  const m = ctx.state.memberships.get(inv.membership_id);
  if (m && !m.is_active) updateMembership(ctx, m, { is_active: true, joined_date: stamp(ctx) });
}

/** Deleting (revoking) or declining an invitation removes it and its inactive membership. */
export function deleteInvitation(ctx: MutationContext, inv: InvitationRec): void {
  const s = ctx.state;
  const m = s.memberships.get(inv.membership_id);
  if (m && !m.is_active) {
    deleteMembership(ctx, m);
    return;
  }
  const snap = represent(ctx, 'invitation', inv as unknown as Rec);
  s.invitations.delete(inv.key);
  emit(
    ctx,
    'delete',
    'invitation',
    { ...(inv as unknown as Rec), __org: m?.organization_id ?? null },
    { resource: snap },
  );
}

// ---- projects, tasks, jobs ----

/** Labels as CVAT stores them on creation: fresh ids, black and `any` unless given. */
function createLabels(
  s: Parameters<typeof nextId>[0],
  labels: { name: string; color?: string; type?: string }[] | undefined,
) {
  return (labels ?? []).map((l) => ({
    id: nextId(s, 'labels'),
    name: l.name,
    color: l.color ?? '#000000',
    type: l.type ?? 'any',
  }));
}

export function createProject(
  ctx: MutationContext,
  input: {
    name: string;
    owner_id: number | null;
    assignee_id?: number | null;
    bug_tracker?: string;
    organization_id: number | null;
    labels?: { name: string; color?: string; type?: string }[];
  },
): ProjectRec {
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
    labels: createLabels(s, input.labels),
  };
  s.projects.set(p.id, p);
  emit(ctx, 'create', 'project', p as unknown as Rec);
  return p;
}

export function updateProject(ctx: MutationContext, p: ProjectRec, patch: Partial<ProjectRec>): ProjectRec {
  const res = update(ctx, 'project', p, patch);
  if ('organization_id' in patch) {
    // The project's tasks follow it to the new organization (a queryset update: no signals).
    for (const t of ctx.state.tasks.values())
      if (t.project_id === p.id) t.organization_id = p.organization_id;
  }
  return res;
}

/** Deletes a webhook and its deliveries without any event (a database cascade). */
export function deleteWebhookCascade(s: AnnotationState, webhookId: number): void {
  s.webhooks.delete(webhookId);
  for (const d of [...s.deliveries.values()]) if (d.webhook_id === webhookId) s.deliveries.delete(d.id);
}

export function deleteProject(ctx: MutationContext, p: ProjectRec): void {
  const s = ctx.state;
  // Project webhooks are cascade-deleted with the project, so they never receive delete:project (#5631).
  for (const w of [...s.webhooks.values()]) if (w.project_id === p.id) deleteWebhookCascade(s, w.id);
  for (const t of [...s.tasks.values()]) if (t.project_id === p.id) deleteTask(ctx, t);
  const snapshot = represent(ctx, 'project', p as unknown as Rec);
  s.projects.delete(p.id);
  emit(ctx, 'delete', 'project', p as unknown as Rec, { resource: snapshot });
}

export function createTask(
  ctx: MutationContext,
  input: {
    name: string;
    project_id: number | null;
    owner_id: number | null;
    assignee_id?: number | null;
    bug_tracker?: string;
    organization_id: number | null;
    overlap?: number | null;
    segment_size?: number;
    subset?: string;
    labels?: { name: string; color?: string; type?: string }[];
  },
): TaskRec {
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
    labels: createLabels(s, input.labels),
  };
  s.tasks.set(t.id, t);
  emit(ctx, 'create', 'task', t as unknown as Rec);
  return t;
}

export function updateTask(ctx: MutationContext, t: TaskRec, patch: Partial<TaskRec>): TaskRec {
  return update(ctx, 'task', t, patch);
}

/**
 * Segments of a task, as CVAT computes them: `segment_size` 0 means the whole data; the step is
 * `segment_size - overlap`; the last segment stops at `size - 1`.
 */
export function computeSegments(
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
export function attachTaskData(
  ctx: MutationContext,
  t: TaskRec,
  input: { size: number; image_quality?: number; chunk_size?: number },
): JobRec[] {
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
    data_id: nextId(s, 'data'),
    mode: 'annotation',
    segment_size: segmentSize,
    overlap,
  });
  return jobs;
}

export function deleteTask(ctx: MutationContext, t: TaskRec): void {
  const s = ctx.state;
  const jobs = [...s.jobs.values()].filter((j) => j.task_id === t.id);
  const snapshots = jobs.map((j) => ({
    j,
    snap: represent(ctx, 'job', j as unknown as Rec),
    scope: scopeOf(s, 'job', j as unknown as Rec),
  }));
  for (const j of jobs) {
    for (const i of [...s.issues.values()]) if (i.job_id === j.id) deleteIssue(ctx, i);
  }
  const snapshot = represent(ctx, 'task', t as unknown as Rec);
  for (const { j, snap, scope } of snapshots) {
    s.jobs.delete(j.id);
    emit(ctx, 'delete', 'job', j as unknown as Rec, { resource: snap, scope });
  }
  s.tasks.delete(t.id);
  emit(ctx, 'delete', 'task', t as unknown as Rec, { resource: snapshot });
}

/** Job.save derives `status` from `stage` (acceptance → completed). */
export function updateJob(ctx: MutationContext, j: JobRec, patch: Partial<JobRec>): JobRec {
  const stage = patch.stage ?? j.stage;
  const status = stage === 'acceptance' ? 'completed' : stage;
  return update(ctx, 'job', j, { ...patch, ...(status !== j.status ? { status } : {}) });
}

// ---- issues, comments ----

export function createIssue(
  ctx: MutationContext,
  input: {
    frame: number;
    position: number[];
    job_id: number;
    owner_id: number | null;
    assignee_id?: number | null;
    resolved?: boolean;
    message: string;
  },
): IssueRec {
  const s = ctx.state;
  const i: IssueRec = {
    id: nextId(s, 'issues'),
    frame: input.frame,
    position: input.position,
    job_id: input.job_id,
    owner_id: input.owner_id,
    assignee_id: input.assignee_id ?? null,
    resolved: input.resolved ?? false,
    created_date: stamp(ctx),
    updated_date: stamp(ctx),
  };
  s.issues.set(i.id, i);
  emit(ctx, 'create', 'issue', i as unknown as Rec);
  // The issue's first comment carries its message.
  createComment(ctx, { issue_id: i.id, owner_id: input.owner_id, message: input.message });
  return i;
}

export function updateIssue(ctx: MutationContext, i: IssueRec, patch: Partial<IssueRec>): IssueRec {
  return update(ctx, 'issue', i, patch);
}

export function deleteIssue(ctx: MutationContext, i: IssueRec): void {
  const s = ctx.state;
  const scope = scopeOf(s, 'issue', i as unknown as Rec);
  for (const c of [...s.comments.values()]) if (c.issue_id === i.id) deleteComment(ctx, c);
  const snapshot = represent(ctx, 'issue', i as unknown as Rec);
  s.issues.delete(i.id);
  emit(ctx, 'delete', 'issue', i as unknown as Rec, { resource: snapshot, scope });
}

export function createComment(
  ctx: MutationContext,
  input: { issue_id: number; owner_id: number | null; message: string },
): CommentRec {
  const s = ctx.state;
  const c: CommentRec = {
    id: nextId(s, 'comments'),
    issue_id: input.issue_id,
    owner_id: input.owner_id,
    message: input.message,
    created_date: stamp(ctx),
    updated_date: stamp(ctx),
  };
  s.comments.set(c.id, c);
  emit(ctx, 'create', 'comment', c as unknown as Rec);
  return c;
}

export function updateComment(ctx: MutationContext, c: CommentRec, patch: Partial<CommentRec>): CommentRec {
  return update(ctx, 'comment', c, patch);
}

export function deleteComment(ctx: MutationContext, c: CommentRec): void {
  const s = ctx.state;
  const scope = scopeOf(s, 'comment', c as unknown as Rec);
  const snapshot = represent(ctx, 'comment', c as unknown as Rec);
  s.comments.delete(c.id);
  emit(ctx, 'delete', 'comment', c as unknown as Rec, { resource: snapshot, scope });
}
