import type * as z from 'zod';
import { requestSchemas as s } from './request-schemas';

/**
 * The write requests of the annotation API, built (see `request-schemas.ts`, where each is described and
 * built on first use).
 */
export const ProjectWriteRequest = s.ProjectWriteRequest();
export type ProjectWriteRequest = z.infer<typeof ProjectWriteRequest>;
export const PatchedProjectWriteRequest = s.PatchedProjectWriteRequest();
export type PatchedProjectWriteRequest = z.infer<typeof PatchedProjectWriteRequest>;
export const TaskWriteRequest = s.TaskWriteRequest();
export type TaskWriteRequest = z.infer<typeof TaskWriteRequest>;
export const PatchedTaskWriteRequest = s.PatchedTaskWriteRequest();
export type PatchedTaskWriteRequest = z.infer<typeof PatchedTaskWriteRequest>;
export const DataRequest = s.DataRequest();
export type DataRequest = z.infer<typeof DataRequest>;
export const PatchedJobWriteRequest = s.PatchedJobWriteRequest();
export type PatchedJobWriteRequest = z.infer<typeof PatchedJobWriteRequest>;
export const IssueWriteRequest = s.IssueWriteRequest();
export type IssueWriteRequest = z.infer<typeof IssueWriteRequest>;
export const PatchedIssueWriteRequest = s.PatchedIssueWriteRequest();
export type PatchedIssueWriteRequest = z.infer<typeof PatchedIssueWriteRequest>;
export const CommentWriteRequest = s.CommentWriteRequest();
export type CommentWriteRequest = z.infer<typeof CommentWriteRequest>;
export const PatchedCommentWriteRequest = s.PatchedCommentWriteRequest();
export type PatchedCommentWriteRequest = z.infer<typeof PatchedCommentWriteRequest>;
export const OrganizationWriteRequest = s.OrganizationWriteRequest();
export type OrganizationWriteRequest = z.infer<typeof OrganizationWriteRequest>;
export const PatchedOrganizationWriteRequest = s.PatchedOrganizationWriteRequest();
export type PatchedOrganizationWriteRequest = z.infer<typeof PatchedOrganizationWriteRequest>;
export const InvitationWriteRequest = s.InvitationWriteRequest();
export type InvitationWriteRequest = z.infer<typeof InvitationWriteRequest>;
export const PatchedMembershipWriteRequest = s.PatchedMembershipWriteRequest();
export type PatchedMembershipWriteRequest = z.infer<typeof PatchedMembershipWriteRequest>;
export const AccessTokenWriteRequest = s.AccessTokenWriteRequest();
export type AccessTokenWriteRequest = z.infer<typeof AccessTokenWriteRequest>;
export const PatchedAccessTokenWriteRequest = s.PatchedAccessTokenWriteRequest();
export type PatchedAccessTokenWriteRequest = z.infer<typeof PatchedAccessTokenWriteRequest>;
export const WebhookWriteRequest = s.WebhookWriteRequest();
export type WebhookWriteRequest = z.infer<typeof WebhookWriteRequest>;
export const PatchedWebhookWriteRequest = s.PatchedWebhookWriteRequest();
export type PatchedWebhookWriteRequest = z.infer<typeof PatchedWebhookWriteRequest>;
export const LoginRequest = s.LoginRequest();
export type LoginRequest = z.infer<typeof LoginRequest>;
export const PatchedLabelRequest = s.PatchedLabelRequest();
export type PatchedLabelRequest = z.infer<typeof PatchedLabelRequest>;
