import { ChildTable, countOf, rowsOf } from './child-table';
import type {
  CommentRec,
  DeliveryRec,
  InvitationRec,
  IssueRec,
  JobRec,
  MembershipRec,
  TaskRec,
} from './model';
import type { AnnotationData } from './state';
import { PARENT } from './state-tables';

/** Each answer is in the table's order, as the scan of the whole table it replaces gave it. */

export const membershipsOfOrg = (data: AnnotationData, orgId: number): MembershipRec[] =>
  rowsOf(data.memberships, PARENT.memberships, orgId);

export const invitationsOfMembership = (data: AnnotationData, membershipId: number): InvitationRec[] =>
  rowsOf(data.invitations, PARENT.invitations, membershipId);

export const tasksOfProject = (data: AnnotationData, projectId: number): TaskRec[] =>
  rowsOf(data.tasks, PARENT.tasks, projectId);

export const jobsOfTask = (data: AnnotationData, taskId: number): JobRec[] =>
  rowsOf(data.jobs, PARENT.jobs, taskId);

export const issuesOfJob = (data: AnnotationData, jobId: number): IssueRec[] =>
  rowsOf(data.issues, PARENT.issues, jobId);

export const issueCountOfJob = (data: AnnotationData, jobId: number): number =>
  countOf(data.issues, PARENT.issues, jobId);

export const commentsOfIssue = (data: AnnotationData, issueId: number): CommentRec[] =>
  rowsOf(data.comments, PARENT.comments, issueId);

export const commentCountOfIssue = (data: AnnotationData, issueId: number): number =>
  countOf(data.comments, PARENT.comments, issueId);

export const deliveriesOfWebhook = (data: AnnotationData, webhookId: number): DeliveryRec[] =>
  rowsOf(data.deliveries, PARENT.deliveries, webhookId);

/**
 * A task's project is about to change, or has changed, in place (`update()` assigns the patch to the
 * record): the tasks' index is made again by its next question, in the table's order. Called before the
 * change (what its own change event renders sees the task in its new project) and after it.
 */
export function taskProjectChanged(data: AnnotationData): void {
  if (data.tasks instanceof ChildTable) data.tasks.parentChanged();
}
