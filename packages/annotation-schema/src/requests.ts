import * as z from 'zod';
import { EventsEnum, JobStage, JobState, OrganizationRole, WebhookContentType, WebhookType } from './choices';

/**
 * The write requests of the annotation API, named as CVAT's OpenAPI document names them. Each is the
 * field list of a DRF serializer, in its declaration order (DRF reports errors in that order), and the
 * simulator validates bodies by walking these schemas with DRF's own messages. How DRF's field options
 * read in zod:
 *
 * - `required=False`: `.optional()`; `allow_null=True`: `.nullable()`.
 * - `CharField`: `z.string()`. `allow_blank=False` (DRF's default) is `.min(1)`; a string without a
 *   minimum length of at least 1 may be blank. Whitespace is trimmed first (DRF's `trim_whitespace`).
 * - `URLField`: `z.url()`, checked with Django's `URLValidator` (http, https, ftp, ftps).
 * - `IntegerField`: `z.number().int()` with `.min()`/`.max()`; `FloatField`: `z.number()`.
 * - `ChoiceField`: `z.enum()`; `MultipleChoiceField`: `z.array(z.enum())`; `ListField`: `z.array()`.
 * - A field taken as any JSON value (`JSONField`, or one the simulator reads loosely): `z.unknown()`.
 *
 * String patterns (`.regex()`) document the wire shape; the simulator reports them itself.
 */

/** A related object's primary key (`PrimaryKeyRelatedField(allow_null=True, required=False)`). */
const relatedId = z.number().int().nullable().optional();
/** A resource's `name`: required, non-blank, at most 256 characters. */
const name = z.string().min(1).max(256);
/** `bug_tracker`: a free-form link, may be blank. */
const bugTracker = z.string().max(2000).optional();
/** `labels`: read loosely (the entries with a string `name` are kept). */
const labels = z.unknown().optional();

/** `ProjectWriteRequest` (the storage fields are not read). */
export const ProjectWriteRequest = z.object({
  name,
  labels,
  owner_id: relatedId,
  assignee_id: relatedId,
  bug_tracker: bugTracker,
});
export type ProjectWriteRequest = z.infer<typeof ProjectWriteRequest>;

/** `PatchedProjectWriteRequest`: nothing required, and a project may move to another organization. */
export const PatchedProjectWriteRequest = ProjectWriteRequest.extend({
  organization_id: relatedId,
}).partial();
export type PatchedProjectWriteRequest = z.infer<typeof PatchedProjectWriteRequest>;

/** `TaskWriteRequest` (the storage fields and `consensus_replicas` are not read). */
export const TaskWriteRequest = z.object({
  name,
  project_id: relatedId,
  owner_id: relatedId,
  assignee_id: relatedId,
  bug_tracker: bugTracker,
  overlap: z.number().int().min(0).nullable().optional(),
  segment_size: z.number().int().min(0).optional(),
  labels,
  subset: z.string().max(64).optional(),
});
export type TaskWriteRequest = z.infer<typeof TaskWriteRequest>;

/**
 * `PatchedTaskWriteRequest`: how the data is cut (`overlap`, `segment_size`) is fixed at creation; a task
 * may move to another organization.
 */
export const PatchedTaskWriteRequest = TaskWriteRequest.omit({ overlap: true, segment_size: true })
  .extend({ organization_id: relatedId })
  .partial();
export type PatchedTaskWriteRequest = z.infer<typeof PatchedTaskWriteRequest>;

/** `DataRequest` (`POST /api/tasks/{id}/data/`): the fields the simulator reads; the files are only counted. */
export const DataRequest = z.object({
  image_quality: z.number().int().min(1).max(100),
  chunk_size: z.number().int().min(0).nullable().optional(),
  client_files: z.unknown().optional(),
  server_files: z.unknown().optional(),
  remote_files: z.unknown().optional(),
});
export type DataRequest = z.infer<typeof DataRequest>;

/** `PatchedJobWriteRequest` (`assignee` is the user's id). */
export const PatchedJobWriteRequest = z.object({
  assignee: relatedId,
  stage: JobStage.optional(),
  state: JobState.optional(),
});
export type PatchedJobWriteRequest = z.infer<typeof PatchedJobWriteRequest>;

/** `IssueWriteRequest`: `message` becomes the issue's first comment. */
export const IssueWriteRequest = z.object({
  frame: z.number().int().min(0),
  position: z.array(z.number()),
  job: z.number().int(),
  assignee: relatedId,
  message: z.string().min(1),
  resolved: z.boolean().optional(),
});
export type IssueWriteRequest = z.infer<typeof IssueWriteRequest>;

/** `PatchedIssueWriteRequest`. */
export const PatchedIssueWriteRequest = z.object({
  position: z.array(z.number()).optional(),
  assignee: relatedId,
  resolved: z.boolean().optional(),
});
export type PatchedIssueWriteRequest = z.infer<typeof PatchedIssueWriteRequest>;

/** `CommentWriteRequest`. */
export const CommentWriteRequest = z.object({
  issue: z.number().int(),
  message: z.string().min(1).optional(),
});
export type CommentWriteRequest = z.infer<typeof CommentWriteRequest>;

/** `PatchedCommentWriteRequest`: only the message changes. */
export const PatchedCommentWriteRequest = z.object({ message: z.string().min(1).optional() });
export type PatchedCommentWriteRequest = z.infer<typeof PatchedCommentWriteRequest>;

/**
 * `OrganizationWriteRequest` (`slug` required; the patched variant has nothing required). `contact` is a
 * `JSONField`: any JSON value.
 */
export const OrganizationWriteRequest = z.object({
  slug: z
    .string()
    .min(1)
    .max(16)
    .regex(/^[-a-zA-Z0-9_]+$/),
  name: z.string().max(64).optional(),
  description: z.string().optional(),
  contact: z.unknown().optional(),
});
export type OrganizationWriteRequest = z.infer<typeof OrganizationWriteRequest>;

/** `PatchedOrganizationWriteRequest`: `OrganizationWriteRequest` with nothing required. */
export const PatchedOrganizationWriteRequest = OrganizationWriteRequest.partial();
export type PatchedOrganizationWriteRequest = z.infer<typeof PatchedOrganizationWriteRequest>;

/** `InvitationWriteRequest`. */
export const InvitationWriteRequest = z.object({ role: OrganizationRole, email: z.string().min(1) });
export type InvitationWriteRequest = z.infer<typeof InvitationWriteRequest>;

/** `PatchedMembershipWriteRequest`: a new role. */
export const PatchedMembershipWriteRequest = z.object({ role: OrganizationRole.optional() });
export type PatchedMembershipWriteRequest = z.infer<typeof PatchedMembershipWriteRequest>;

/**
 * `AccessTokenWriteRequest`. `expiry_date` (a `DateTimeField`) is taken as text here; the caller parses
 * it and answers DRF's datetime format error, blank included.
 */
export const AccessTokenWriteRequest = z.object({
  name: z.string().min(1).max(50),
  expiry_date: z.string().nullable().optional(),
  read_only: z.boolean().optional(),
});
export type AccessTokenWriteRequest = z.infer<typeof AccessTokenWriteRequest>;

/** `PatchedAccessTokenWriteRequest`. */
export const PatchedAccessTokenWriteRequest = AccessTokenWriteRequest.partial();
export type PatchedAccessTokenWriteRequest = z.infer<typeof PatchedAccessTokenWriteRequest>;

/** `WebhookWriteRequest`: `target_url` is a `URLField` (Django's `URLValidator`). */
export const WebhookWriteRequest = z.object({
  target_url: z.url().min(1).max(8192),
  description: z.string().max(128).optional(),
  type: WebhookType,
  content_type: WebhookContentType.optional(),
  secret: z.string().max(64).optional(),
  is_active: z.boolean().optional(),
  enable_ssl: z.boolean().optional(),
  project_id: z.number().int().nullable().optional(),
  events: z.array(EventsEnum),
});
export type WebhookWriteRequest = z.infer<typeof WebhookWriteRequest>;

/** `PatchedWebhookWriteRequest`: no `type`/`project_id` (write-once), nothing required. */
export const PatchedWebhookWriteRequest = WebhookWriteRequest.omit({
  type: true,
  project_id: true,
}).partial();
export type PatchedWebhookWriteRequest = z.infer<typeof PatchedWebhookWriteRequest>;

/** `LoginSerializerExRequest`: a username or an email, and the password. */
export const LoginRequest = z.object({
  username: z.string().optional(),
  email: z.string().optional(),
  password: z.string().min(1),
});
export type LoginRequest = z.infer<typeof LoginRequest>;
