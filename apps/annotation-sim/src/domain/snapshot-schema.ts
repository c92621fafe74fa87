import { lazy } from '@sims/sim-core';
import * as z from 'zod';
import { jobAnnotationsSnapshot } from './annotations/snapshot-schema';

/**
 * The shape of a world's data in a snapshot (`GET /_sim/state`'s `state`): every table as `[id, record]`
 * rows with the record shapes of model.ts, the id counters, the base URL, and the parts other modules
 * read themselves (`extensions`, `delivery`). Built on first use (docs/decisions/0009): only
 * `PUT /_sim/state` and `--state-file` need it. Records are strict: a field the simulator does not keep
 * is refused, not dropped, so what was imported is what is exported.
 */
export const dataSnapshotSchema = lazy(() => {
  const id = z.int().min(1);
  const ref = id.nullable();
  const date = z.string();
  const optionalDate = z.string().nullable();
  const status = z.enum(['annotation', 'validation', 'completed']);
  /** A table keyed by the record's numeric id. */
  const rows = <T extends z.ZodType>(record: T) => z.array(z.tuple([id, record])).optional();
  /** A table keyed by a string (a token, a session or an invitation key). */
  const keyed = <T extends z.ZodType>(record: T) => z.array(z.tuple([z.string(), record])).optional();

  const user = z
    .object({
      id,
      username: z.string(),
      first_name: z.string(),
      last_name: z.string(),
      email: z.string(),
      password: z.string(),
      privilege: z.enum(['admin', 'user', 'worker']),
      is_superuser: z.boolean(),
      is_staff: z.boolean(),
      is_active: z.boolean(),
      date_joined: date,
      last_login: optionalDate,
    })
    .strict();
  const session = z.object({ key: z.string(), user_id: id, csrf: z.string() }).strict();
  const accessToken = z
    .object({
      id,
      key: z.string(),
      user_id: id,
      name: z.string(),
      read_only: z.boolean(),
      expiry_date: optionalDate,
      created_date: date.optional(),
      updated_date: date.optional(),
    })
    .strict();
  const organization = z
    .object({
      id,
      slug: z.string(),
      name: z.string(),
      description: z.string(),
      contact: z.record(z.string(), z.unknown()),
      owner_id: ref,
      created_date: date,
      updated_date: date,
    })
    .strict();
  const membership = z
    .object({
      id,
      user_id: id,
      organization_id: id,
      is_active: z.boolean(),
      joined_date: optionalDate,
      role: z.enum(['worker', 'supervisor', 'maintainer', 'owner']),
    })
    .strict();
  const invitation = z
    .object({
      key: z.string(),
      created_date: date,
      sent_date: optionalDate,
      owner_id: ref,
      membership_id: id,
    })
    .strict();
  const project = z
    .object({
      id,
      name: z.string(),
      owner_id: ref,
      assignee_id: ref,
      bug_tracker: z.string(),
      organization_id: ref,
      status,
      created_date: date,
      updated_date: date,
      assignee_updated_date: optionalDate,
    })
    .strict();
  const task = z
    .object({
      id,
      name: z.string(),
      project_id: ref,
      owner_id: ref,
      assignee_id: ref,
      bug_tracker: z.string(),
      organization_id: ref,
      overlap: z.int().nullable(),
      segment_size: z.int(),
      size: z.int().min(0),
      mode: z.string(),
      dimension: z.string(),
      subset: z.string(),
      status,
      image_quality: z.int(),
      data_id: ref,
      data_chunk_size: z.int().nullable(),
      created_date: date,
      updated_date: date,
      assignee_updated_date: optionalDate,
      frames: z
        .array(z.object({ name: z.string(), width: z.int().min(0), height: z.int().min(0) }).strict())
        .optional(),
    })
    .strict();
  const attribute = z
    .object({
      id,
      name: z.string(),
      mutable: z.boolean(),
      input_type: z.string(),
      default_value: z.string(),
      values: z.string(),
    })
    .strict();
  const label = z
    .object({
      id,
      name: z.string(),
      color: z.string(),
      type: z.string(),
      project_id: ref,
      task_id: ref,
      parent_id: ref,
      svg: z.string().nullable(),
      attributes: z.array(attribute),
    })
    .strict();
  const job = z
    .object({
      id,
      task_id: id,
      start_frame: z.int().min(0),
      stop_frame: z.int().min(0),
      assignee_id: ref,
      stage: z.enum(['annotation', 'validation', 'acceptance']),
      state: z.enum(['new', 'in progress', 'completed', 'rejected']),
      status,
      type: z.enum(['annotation', 'ground_truth', 'consensus_replica']),
      created_date: date,
      updated_date: date,
      assignee_updated_date: optionalDate,
    })
    .strict();
  const issue = z
    .object({
      id,
      frame: z.int(),
      position: z.array(z.number()),
      job_id: id,
      owner_id: ref,
      assignee_id: ref,
      resolved: z.boolean(),
      created_date: date,
      updated_date: date,
    })
    .strict();
  const comment = z
    .object({
      id,
      issue_id: id,
      owner_id: ref,
      message: z.string(),
      created_date: date,
      updated_date: date,
    })
    .strict();
  const webhook = z
    .object({
      id,
      target_url: z.string(),
      description: z.string(),
      events: z.array(z.string()),
      type: z.enum(['project', 'organization']),
      content_type: z.literal('application/json'),
      secret: z.string(),
      is_active: z.boolean(),
      enable_ssl: z.boolean(),
      owner_id: ref,
      project_id: ref,
      organization_id: ref,
      created_date: date,
      updated_date: date,
    })
    .strict();
  const delivery = z
    .object({
      id,
      webhook_id: id,
      event: z.string(),
      status_code: z.int().nullable(),
      redelivery: z.boolean(),
      attempt: z.int().nullable(),
      request_duration: z.number().nullable(),
      changed_fields: z.string(),
      // The payload sent, any JSON value (its bytes are derived from it when read).
      request: z.unknown(),
      response: z.string(),
      created_date: date,
      updated_date: date,
    })
    .strict();

  return z
    .object({
      seq: z.record(z.string(), z.int().min(0)).optional(),
      baseUrl: z.string().optional(),
      users: rows(user),
      tokens: z.array(z.tuple([z.string(), id])).optional(),
      sessions: keyed(session),
      accessTokens: keyed(accessToken),
      organizations: rows(organization),
      memberships: rows(membership),
      invitations: keyed(invitation),
      projects: rows(project),
      tasks: rows(task),
      labels: rows(label),
      jobs: rows(job),
      issues: rows(issue),
      comments: rows(comment),
      annotations: rows(jobAnnotationsSnapshot()),
      webhooks: rows(webhook),
      deliveries: rows(delivery),
      // Each part is read by its own module (the simulator's extensions, the delivery engine's egress).
      extensions: z.record(z.string(), z.unknown()).optional(),
      delivery: z.object({ egress: z.unknown() }).partial().strict().optional(),
    })
    .strict();
});

/** A snapshot's data as the schema reads it. */
export type DataSnapshot = z.output<ReturnType<typeof dataSnapshotSchema>>;
