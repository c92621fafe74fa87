import type {
  CommentRec,
  IssueRec,
  JobRec,
  OrgRole,
  ProjectRec,
  TaskRec,
  UserRec,
  WebhookRec,
} from './model';
import type { OrgContext } from './org-context';
import { membershipsOfOrg } from './relations';
import type { AnnotationData } from './state';

/**
 * Permissions. The webhook rules follow CVAT's `webhooks.rego` (reference 2.8) exactly; the rules for
 * the other resources are a chosen simplification of CVAT's OPA policies (see FIDELITY.md).
 */

const ROLE_RANK: Record<OrgRole, number> = { worker: 1, supervisor: 2, maintainer: 3, owner: 4 };

export const isAdmin = (u: UserRec): boolean => u.is_superuser || u.privilege === 'admin';

/** `has_perm(USER)`: privilege admin or user (worker is the lowest group). */
const hasUserPrivilege = (u: UserRec): boolean => isAdmin(u) || u.privilege === 'user';

export function roleIn(data: AnnotationData, userId: number, orgId: number | null): OrgRole | null {
  if (orgId === null) return null;
  // The organization's memberships only: this runs for every record a list view considers.
  for (const m of membershipsOfOrg(data, orgId)) {
    if (m.user_id === userId && m.is_active) return m.role;
  }
  return null;
}

const atLeast = (role: OrgRole | null, min: OrgRole): boolean =>
  role !== null && ROLE_RANK[role] >= ROLE_RANK[min];

// ---- webhooks (reference 2.8) ----

function projectOwnerOf(data: AnnotationData, projectId: number | null): number | null {
  if (projectId === null) return null;
  return data.projects.get(projectId)?.owner_id ?? null;
}

/** `create@project` / `create@organization`. `project` is the webhook's project when given. */
export function canCreateWebhook(
  data: AnnotationData,
  user: UserRec,
  ctx: OrgContext,
  type: string | undefined,
  project: ProjectRec | undefined,
): boolean {
  if (isAdmin(user)) return true;
  const orgId = ctx.org?.id ?? null;
  const role = roleIn(data, user.id, orgId);
  if (type === 'project') {
    const resourceOrg = project?.organization_id ?? null;
    if (resourceOrg !== orgId) return false;
    const owner = project !== undefined && project.owner_id === user.id;
    if (orgId === null) return hasUserPrivilege(user) && owner;
    return atLeast(role, 'maintainer') || (atLeast(role, 'worker') && owner);
  }
  if (type === 'organization') {
    if (orgId === null) return false;
    return atLeast(role, 'maintainer');
  }
  return false;
}

/** `view`, `update`, `delete` (also ping, deliveries, redelivery) under the webhook's own organization. */
export function canAccessWebhook(
  data: AnnotationData,
  user: UserRec,
  w: WebhookRec,
  scope: 'view' | 'update' | 'delete',
): boolean {
  if (isAdmin(user)) return true;
  const involved = w.owner_id === user.id || projectOwnerOf(data, w.project_id) === user.id;
  if (w.organization_id === null) {
    // Every non-admin privilege group is at least `worker`, so update/delete add no further condition.
    return scope === 'view' ? involved : involved;
  }
  const role = roleIn(data, user.id, w.organization_id);
  return (atLeast(role, 'worker') && involved) || atLeast(role, 'maintainer');
}

/** `list`: any member in an organization context; non-members get 403. */
export function canListWebhooks(data: AnnotationData, user: UserRec, ctx: OrgContext): boolean {
  if (isAdmin(user) || ctx.org === null) return true;
  return roleIn(data, user.id, ctx.org.id) !== null;
}

/** The list filter of reference 2.8 ("List visibility"). */
export function webhookVisible(data: AnnotationData, user: UserRec, ctx: OrgContext, w: WebhookRec): boolean {
  if (ctx.specified && w.organization_id !== (ctx.org?.id ?? null)) return false;
  if (isAdmin(user)) return true;
  const involved = w.owner_id === user.id || projectOwnerOf(data, w.project_id) === user.id;
  if (ctx.org !== null) {
    const role = roleIn(data, user.id, ctx.org.id);
    return atLeast(role, 'maintainer') || involved;
  }
  return involved;
}

// ---- other resources (chosen simplification) ----

export type Resource =
  | { kind: 'project'; rec: ProjectRec }
  | { kind: 'task'; rec: TaskRec }
  | { kind: 'job'; rec: JobRec }
  | { kind: 'issue'; rec: IssueRec }
  | { kind: 'comment'; rec: CommentRec };

/** The organization a resource lives in. */
function orgOf(data: AnnotationData, r: Resource): number | null {
  switch (r.kind) {
    case 'project':
      return r.rec.organization_id;
    case 'task':
      return r.rec.organization_id;
    case 'job':
      return data.tasks.get(r.rec.task_id)?.organization_id ?? null;
    case 'issue': {
      const job = data.jobs.get(r.rec.job_id);
      return job ? orgOf(data, { kind: 'job', rec: job }) : null;
    }
    case 'comment': {
      const issue = data.issues.get(r.rec.issue_id);
      return issue ? orgOf(data, { kind: 'issue', rec: issue }) : null;
    }
  }
}

/** True when the user owns or is assigned to the resource or one of its parents. */
function involved(data: AnnotationData, userId: number, r: Resource): boolean {
  switch (r.kind) {
    case 'project':
      return r.rec.owner_id === userId || r.rec.assignee_id === userId;
    case 'task': {
      if (r.rec.owner_id === userId || r.rec.assignee_id === userId) return true;
      const p = r.rec.project_id === null ? undefined : data.projects.get(r.rec.project_id);
      return p !== undefined && involved(data, userId, { kind: 'project', rec: p });
    }
    case 'job': {
      if (r.rec.assignee_id === userId) return true;
      const t = data.tasks.get(r.rec.task_id);
      return t !== undefined && involved(data, userId, { kind: 'task', rec: t });
    }
    case 'issue': {
      if (r.rec.owner_id === userId || r.rec.assignee_id === userId) return true;
      const j = data.jobs.get(r.rec.job_id);
      return j !== undefined && involved(data, userId, { kind: 'job', rec: j });
    }
    case 'comment': {
      if (r.rec.owner_id === userId) return true;
      const i = data.issues.get(r.rec.issue_id);
      return i !== undefined && involved(data, userId, { kind: 'issue', rec: i });
    }
  }
}

export function canView(data: AnnotationData, user: UserRec, r: Resource): boolean {
  if (isAdmin(user)) return true;
  const role = roleIn(data, user.id, orgOf(data, r));
  return atLeast(role, 'supervisor') || involved(data, user.id, r);
}

export function canChange(data: AnnotationData, user: UserRec, r: Resource): boolean {
  if (isAdmin(user)) return true;
  const role = roleIn(data, user.id, orgOf(data, r));
  return atLeast(role, 'maintainer') || involved(data, user.id, r);
}

/** Creating a project or task: privilege ≥ user; in an organization also role ≥ supervisor. */
export function canCreateInContext(data: AnnotationData, user: UserRec, ctx: OrgContext): boolean {
  if (isAdmin(user)) return true;
  if (!hasUserPrivilege(user)) return false;
  if (ctx.org === null) return true;
  return atLeast(roleIn(data, user.id, ctx.org.id), 'supervisor');
}

/** Membership check for an organization context on list endpoints. */
export function canListInContext(data: AnnotationData, user: UserRec, ctx: OrgContext): boolean {
  if (isAdmin(user) || ctx.org === null) return true;
  return roleIn(data, user.id, ctx.org.id) !== null;
}

/** List filter for projects, tasks, jobs, issues, comments. */
export function resourceVisible(data: AnnotationData, user: UserRec, ctx: OrgContext, r: Resource): boolean {
  const orgId = orgOf(data, r);
  if (ctx.specified && orgId !== (ctx.org?.id ?? null)) return false;
  return canView(data, user, r);
}

export function canManageOrg(
  data: AnnotationData,
  user: UserRec,
  orgId: number,
  min: OrgRole = 'maintainer',
): boolean {
  return isAdmin(user) || atLeast(roleIn(data, user.id, orgId), min);
}
