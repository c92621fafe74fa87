/**
 * Who may start a dataset, annotations or backup export, as CVAT 2.73's OPA policies decide it
 * (`engine/rules/projects.rego`, `tasks.rego`, `jobs.rego`: the scopes `export:dataset`,
 * `export:annotations` and `export:backup`, which share their rules). Stricter than seeing the resource:
 * an organization worker who is only an assignee, or a supervisor who is not staff, may view a project
 * but not export it. The organization is the resource's own (CVAT's `get_organization` of the object).
 */
import { isAdmin, roleIn } from '../access';
import { denied, fail, ok, type Result } from '../errors';
import type { JobRec, OrgRole, ProjectRec, TaskRec, UserRec } from '../model';
import type { AnnotationState } from '../state';

/** What an export is made of. */
export type ExportedResource =
  | { target: 'project'; rec: ProjectRec }
  | { target: 'task'; rec: TaskRec }
  | { target: 'job'; rec: JobRec };

const RANK: Record<OrgRole, number> = { worker: 1, supervisor: 2, maintainer: 3, owner: 4 };

/** `organizations.has_perm(min)`: an active member with at least that role. */
const hasRole = (role: OrgRole | null, min: OrgRole) => role !== null && RANK[role] >= RANK[min];

/** `utils.has_perm(utils.USER)`: privilege user or admin (worker is below). */
const hasUserPrivilege = (u: UserRec) => isAdmin(u) || u.privilege === 'user';

/** The owner and assignee ids of a project or task (staff), or none. */
const staff = (rec: { owner_id: number | null; assignee_id: number | null } | undefined) =>
  rec === undefined ? [] : [rec.owner_id, rec.assignee_id];

/**
 * The rules of the three policies, by resource: `staff` its staff (project: owner, assignee; task:
 * those and the project's; job: those and the job's assignee), `owners` whom the third org rule lets
 * in (project: its owner; task and job: the task's or the project's owner) and the least role it asks.
 */
function subjects(state: AnnotationState, e: ExportedResource, userId: number) {
  const projectOf = (id: number | null) => (id === null ? undefined : state.projects.get(id));
  if (e.target === 'project') {
    return {
      orgId: e.rec.organization_id,
      isStaff: staff(e.rec).includes(userId),
      isOwner: e.rec.owner_id === userId,
    };
  }
  const task = e.target === 'task' ? e.rec : state.tasks.get(e.rec.task_id);
  const project = projectOf(task?.project_id ?? null);
  const taskStaff = [...staff(task), ...staff(project)].includes(userId);
  return {
    orgId: task?.organization_id ?? null,
    isStaff: taskStaff || (e.target === 'job' && e.rec.assignee_id === userId),
    isOwner: task?.owner_id === userId || project?.owner_id === userId,
  };
}

/**
 * `export:dataset|annotations|backup` of a project, task or job: an admin; in the sandbox its staff; in
 * its organization a maintainer or owner with privilege user, a supervisor or above who is staff, or any
 * member who owns it (a project) or owns its task or project (a task, a job). Else DRF's 403.
 */
export function mayExport(state: AnnotationState, user: UserRec, e: ExportedResource): Result<void> {
  if (isAdmin(user)) return ok(undefined);
  const s = subjects(state, e, user.id);
  if (s.orgId === null) return s.isStaff ? ok(undefined) : fail(denied());
  const role = roleIn(state, user.id, s.orgId);
  const allowed =
    (hasUserPrivilege(user) && hasRole(role, 'maintainer')) ||
    (hasRole(role, 'supervisor') && s.isStaff) ||
    (hasRole(role, 'worker') && s.isOwner);
  return allowed ? ok(undefined) : fail(denied());
}
