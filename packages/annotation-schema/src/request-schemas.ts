import * as z from 'zod';
import {
  eventsEnum,
  jobStage,
  jobState,
  organizationRole,
  webhookContentType,
  webhookType,
} from './choice-builders';

/**
 * The write requests of the annotation API, named as CVAT's OpenAPI document names them, each built the
 * first time it is asked for (`requestSchemas.ProjectWriteRequest()`), so that a process start builds none
 * (docs/decisions/0009); `requests.ts` exports them built. Each is the
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

/** `build` on the first call, then the same value. */
function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

/** A related object's primary key (`PrimaryKeyRelatedField(allow_null=True, required=False)`). */
const relatedId = () => z.number().int().nullable().optional();
/** A resource's `name`: required, non-blank, at most 256 characters. */
const name = () => z.string().min(1).max(256);
/** `bug_tracker`: a free-form link, may be blank. */
const bugTracker = () => z.string().max(2000).optional();
/** `labels`: read loosely (the entries with a string `name` are kept). */
const labels = () => z.unknown().optional();

/** `ProjectWriteRequest` (the storage fields are not read). */
const ProjectWriteRequest = once(() =>
  z.object({
    name: name(),
    labels: labels(),
    owner_id: relatedId(),
    assignee_id: relatedId(),
    bug_tracker: bugTracker(),
  }),
);

/** `PatchedProjectWriteRequest`: nothing required, and a project may move to another organization. */
const PatchedProjectWriteRequest = once(() =>
  ProjectWriteRequest()
    .extend({
      organization_id: relatedId(),
    })
    .partial(),
);

/** `TaskWriteRequest` (the storage fields and `consensus_replicas` are not read). */
const TaskWriteRequest = once(() =>
  z.object({
    name: name(),
    project_id: relatedId(),
    owner_id: relatedId(),
    assignee_id: relatedId(),
    bug_tracker: bugTracker(),
    overlap: z.number().int().min(0).nullable().optional(),
    segment_size: z.number().int().min(0).optional(),
    labels: labels(),
    subset: z.string().max(64).optional(),
  }),
);

/**
 * `PatchedTaskWriteRequest`: how the data is cut (`overlap`, `segment_size`) is fixed at creation; a task
 * may move to another organization.
 */
const PatchedTaskWriteRequest = once(() =>
  TaskWriteRequest()
    .omit({ overlap: true, segment_size: true })
    .extend({ organization_id: relatedId() })
    .partial(),
);

/** `DataRequest` (`POST /api/tasks/{id}/data/`): the fields the simulator reads; the files are named, not kept. */
const DataRequest = once(() =>
  z.object({
    image_quality: z.number().int().min(1).max(100),
    chunk_size: z.number().int().min(0).nullable().optional(),
    client_files: z.unknown().optional(),
    server_files: z.unknown().optional(),
    remote_files: z.unknown().optional(),
    sorting_method: z.enum(['lexicographical', 'natural', 'predefined', 'random']).optional(),
  }),
);

/** `PatchedJobWriteRequest` (`assignee` is the user's id). */
const PatchedJobWriteRequest = once(() =>
  z.object({
    assignee: relatedId(),
    stage: jobStage().optional(),
    state: jobState().optional(),
  }),
);

/** `IssueWriteRequest`: `message` becomes the issue's first comment. */
const IssueWriteRequest = once(() =>
  z.object({
    frame: z.number().int().min(0),
    position: z.array(z.number()),
    job: z.number().int(),
    assignee: relatedId(),
    message: z.string().min(1),
    resolved: z.boolean().optional(),
  }),
);

/** `PatchedIssueWriteRequest`. */
const PatchedIssueWriteRequest = once(() =>
  z.object({
    position: z.array(z.number()).optional(),
    assignee: relatedId(),
    resolved: z.boolean().optional(),
  }),
);

/** `CommentWriteRequest`. */
const CommentWriteRequest = once(() =>
  z.object({
    issue: z.number().int(),
    message: z.string().min(1).optional(),
  }),
);

/** `PatchedCommentWriteRequest`: only the message changes. */
const PatchedCommentWriteRequest = once(() => z.object({ message: z.string().min(1).optional() }));

/**
 * `OrganizationWriteRequest` (`slug` required; the patched variant has nothing required). `contact` is a
 * `JSONField`: any JSON value.
 */
const OrganizationWriteRequest = once(() =>
  z.object({
    slug: z
      .string()
      .min(1)
      .max(16)
      .regex(/^[-a-zA-Z0-9_]+$/),
    name: z.string().max(64).optional(),
    description: z.string().optional(),
    contact: z.unknown().optional(),
  }),
);

/** `PatchedOrganizationWriteRequest`: `OrganizationWriteRequest` with nothing required. */
const PatchedOrganizationWriteRequest = once(() => OrganizationWriteRequest().partial());

/** `InvitationWriteRequest`. */
const InvitationWriteRequest = once(() => z.object({ role: organizationRole(), email: z.string().min(1) }));

/** `PatchedMembershipWriteRequest`: a new role. */
const PatchedMembershipWriteRequest = once(() => z.object({ role: organizationRole().optional() }));

/**
 * `AccessTokenWriteRequest`. `expiry_date` (a `DateTimeField`) is taken as text here; the caller parses
 * it and answers DRF's datetime format error, blank included.
 */
const AccessTokenWriteRequest = once(() =>
  z.object({
    name: z.string().min(1).max(50),
    expiry_date: z.string().nullable().optional(),
    read_only: z.boolean().optional(),
  }),
);

/** `PatchedAccessTokenWriteRequest`. */
const PatchedAccessTokenWriteRequest = once(() => AccessTokenWriteRequest().partial());

/** `WebhookWriteRequest`: `target_url` is a `URLField` (Django's `URLValidator`). */
const WebhookWriteRequest = once(() =>
  z.object({
    target_url: z.url().min(1).max(8192),
    description: z.string().max(128).optional(),
    type: webhookType(),
    content_type: webhookContentType().optional(),
    secret: z.string().max(64).optional(),
    is_active: z.boolean().optional(),
    enable_ssl: z.boolean().optional(),
    project_id: z.number().int().nullable().optional(),
    events: z.array(eventsEnum()),
  }),
);

/** `PatchedWebhookWriteRequest`: no `type`/`project_id` (write-once), nothing required. */
const PatchedWebhookWriteRequest = once(() =>
  WebhookWriteRequest()
    .omit({
      type: true,
      project_id: true,
    })
    .partial(),
);

/** `LoginSerializerExRequest`: a username or an email, and the password. */
const LoginRequest = once(() =>
  z.object({
    username: z.string().optional(),
    email: z.string().optional(),
    password: z.string().min(1),
  }),
);

/**
 * `AttributeRequest`: a label's attribute (`values` a list of strings CVAT keeps joined by new lines).
 * Its required fields are required of a new attribute only: the label reader (annotation-sim's
 * `label-input.ts`) reads an attribute with `id` partially.
 */
const AttributeRequest = once(() =>
  z.object({
    id: z.number().int().optional(),
    name: z.string().min(1).max(64),
    mutable: z.boolean(),
    input_type: z.enum(['checkbox', 'radio', 'number', 'text', 'select']),
    default_value: z.string().max(128).optional(),
    values: z.array(z.string().max(200)),
    deleted: z.boolean().optional(),
  }),
);

/**
 * `PatchedLabelRequest` (a label of a project's or task's `labels`, or `PATCH /api/labels/{id}`):
 * `type` is free text as CVAT's serializer takes it; `attributes` and `sublabels` are lists of
 * `AttributeRequest` and `SublabelRequest`, read item by item by the label reader.
 */
const PatchedLabelRequest = once(() =>
  z.object({
    id: z.number().int().optional(),
    name: z.string().min(1).max(64).optional(),
    color: z.string().optional(),
    attributes: z.unknown().optional(),
    deleted: z.boolean().optional(),
    type: z.string().max(32).optional(),
    svg: z.string().optional(),
    sublabels: z.unknown().optional(),
  }),
);

/** `SublabelRequest`: a skeleton's point (`has_parent` is read-only in effect). */
const SublabelRequest = once(() =>
  z.object({
    id: z.number().int().optional(),
    name: z.string().min(1).max(64).optional(),
    color: z.string().optional(),
    attributes: z.unknown().optional(),
    type: z.string().max(32).optional(),
  }),
);

/** Every write request schema by its OpenAPI name, each built on its first call. */
export const requestSchemas = {
  ProjectWriteRequest,
  PatchedProjectWriteRequest,
  TaskWriteRequest,
  PatchedTaskWriteRequest,
  DataRequest,
  PatchedJobWriteRequest,
  IssueWriteRequest,
  PatchedIssueWriteRequest,
  CommentWriteRequest,
  PatchedCommentWriteRequest,
  OrganizationWriteRequest,
  PatchedOrganizationWriteRequest,
  InvitationWriteRequest,
  PatchedMembershipWriteRequest,
  AccessTokenWriteRequest,
  PatchedAccessTokenWriteRequest,
  WebhookWriteRequest,
  PatchedWebhookWriteRequest,
  AttributeRequest,
  PatchedLabelRequest,
  SublabelRequest,
  LoginRequest,
};
