/**
 * Issues and their comments: what a create or partial update may carry (checked as CVAT's serializers
 * and IAM do), and the mutations that store them and emit their changes.
 */
import type {
  CommentWriteRequest,
  IssueWriteRequest,
  PatchedCommentWriteRequest,
  PatchedIssueWriteRequest,
} from '@sims/annotation-schema/requests';
import { ok, type Result } from './errors';
import type { CommentRec, IssueRec, JobRec, UserRec } from './model';
import { emit, type MutationContext, type Rec, represent, scopeOf, stamp, update } from './mutation';
import { commentsOfIssue } from './relations';
import { mayUse, relatedPk, usersExist } from './resource-rules';
import { type AnnotationState, nextId } from './state';

export interface IssueInput {
  frame: number;
  position: number[];
  job_id: number;
  owner_id: number | null;
  assignee_id?: number | null;
  resolved?: boolean;
  message: string;
}

export interface CommentInput {
  issue_id: number;
  owner_id: number | null;
  message: string;
}

/** A new issue from its checked fields, owned by the caller, on a job that exists and the caller can see. */
export function issueCreation(
  state: AnnotationState,
  user: UserRec,
  f: IssueWriteRequest,
): Result<IssueInput> {
  const found = relatedPk(state.jobs, 'job', f.job);
  if (!found.ok) return found;
  const job = found.value as JobRec;
  const users = usersExist(state, f, ['assignee']);
  if (!users.ok) return users;
  const visible = mayUse(state, user, { kind: 'job', rec: job });
  if (!visible.ok) return visible;
  return ok({
    frame: f.frame,
    position: f.position,
    job_id: job.id,
    owner_id: user.id,
    assignee_id: f.assignee ?? null,
    resolved: f.resolved ?? false,
    message: f.message,
  });
}

/** An issue's partial update from its checked fields (`assignee` is the user's id, who must exist). */
export function issuePatch(state: AnnotationState, f: PatchedIssueWriteRequest): Result<Partial<IssueRec>> {
  const users = usersExist(state, f, ['assignee']);
  if (!users.ok) return users;
  const patch: Partial<IssueRec> = {};
  if (f.position !== undefined) patch.position = f.position;
  if (f.assignee !== undefined) patch.assignee_id = f.assignee;
  if (f.resolved !== undefined) patch.resolved = f.resolved;
  return ok(patch);
}

/** A new comment from its checked fields, owned by the caller, on an issue that exists and the caller can see. */
export function commentCreation(
  state: AnnotationState,
  user: UserRec,
  f: CommentWriteRequest,
): Result<CommentInput> {
  const found = relatedPk(state.issues, 'issue', f.issue);
  if (!found.ok) return found;
  const issue = found.value as IssueRec;
  const visible = mayUse(state, user, { kind: 'issue', rec: issue });
  if (!visible.ok) return visible;
  return ok({ issue_id: issue.id, owner_id: user.id, message: f.message ?? '' });
}

/** A comment's partial update from its checked fields: only its message changes. */
export function commentPatch(f: PatchedCommentWriteRequest): Result<Partial<CommentRec>> {
  return ok(f.message === undefined ? {} : { message: f.message });
}

export function createIssue(ctx: MutationContext, input: IssueInput): IssueRec {
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
  for (const c of commentsOfIssue(s, i.id)) deleteComment(ctx, c);
  const snapshot = represent(ctx, 'issue', i as unknown as Rec);
  s.issues.delete(i.id);
  emit(ctx, 'delete', 'issue', i as unknown as Rec, { resource: snapshot, scope });
}

export function createComment(ctx: MutationContext, input: CommentInput): CommentRec {
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
