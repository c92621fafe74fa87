import * as z from 'zod';

/**
 * Wire shapes of CVAT's events API (v2.73.0 `cvat/schema.yml`): client events, the export request id,
 * the background `Request` and the deprecated flow's `{query_id}`. Responses the simulator sends are
 * validated against these in tests; requests are validated DRF-style in the app (CVAT's own messages).
 */

/** A date-time as DRF renders it: ISO-8601, UTC with `Z`, microseconds only when non-zero. */
export const cvatDateTimeSchema = z.iso.datetime({ offset: true });

const nullableInt = z.int().nullable();
const nullableString = z.string().nullable();

/** `Event` (response side): only `scope` and `timestamp` are required. */
export const eventSchema = z
  .object({
    scope: z.string(),
    obj_name: nullableString.optional(),
    obj_id: nullableInt.optional(),
    obj_val: nullableString.optional(),
    source: nullableString.optional(),
    timestamp: cvatDateTimeSchema,
    count: nullableInt.optional(),
    duration: z.int().optional(),
    project_id: nullableInt.optional(),
    task_id: nullableInt.optional(),
    job_id: nullableInt.optional(),
    user_id: nullableInt.optional(),
    user_name: nullableString.optional(),
    user_email: nullableString.optional(),
    org_id: nullableInt.optional(),
    org_slug: nullableString.optional(),
    payload: nullableString.optional(),
  })
  .strict();

/** `EventRequest`: as `Event`, but every string has `minLength: 1`. */
export const eventRequestSchema = z
  .object({
    scope: z.string().min(1),
    obj_name: z.string().min(1).nullable().optional(),
    obj_id: nullableInt.optional(),
    obj_val: z.string().min(1).nullable().optional(),
    source: z.string().min(1).nullable().optional(),
    timestamp: cvatDateTimeSchema,
    count: nullableInt.optional(),
    duration: z.int().optional(),
    project_id: nullableInt.optional(),
    task_id: nullableInt.optional(),
    job_id: nullableInt.optional(),
    user_id: nullableInt.optional(),
    user_name: z.string().min(1).nullable().optional(),
    user_email: z.string().min(1).nullable().optional(),
    org_id: nullableInt.optional(),
    org_slug: z.string().min(1).nullable().optional(),
    payload: z.string().min(1).nullable().optional(),
  })
  .strict();

/** `ClientEventsRequest`: the body of `POST /api/events`. */
export const clientEventsRequestSchema = z
  .object({
    events: z.array(eventRequestSchema).default([]),
    previous_event: eventRequestSchema.nullable().optional(),
    timestamp: cvatDateTimeSchema,
  })
  .strict();

/**
 * `ClientEvents`: the 201 body of `POST /api/events`. CVAT answers with the serializer's validated data,
 * so `previous_event` (write-only in the schema) is present as well: null or the corrected event.
 */
export const clientEventsSchema = z
  .object({
    events: z.array(eventSchema).default([]),
    previous_event: eventSchema.nullable().optional(),
    timestamp: cvatDateTimeSchema,
  })
  .strict();

/** `RqId`: the 202 body of `POST /api/events/export` (also the 409 body). */
export const rqIdSchema = z.object({ rq_id: z.string() }).strict();

/** The 202 body of the deprecated `GET /api/events`. */
export const queryIdSchema = z.object({ query_id: z.uuid() }).strict();

export const requestStatusSchema = z.enum(['queued', 'started', 'failed', 'finished']);

export const requestDataOperationSchema = z
  .object({
    type: z.string(),
    target: z.string(),
    project_id: nullableInt.optional(),
    task_id: nullableInt.optional(),
    job_id: nullableInt.optional(),
    org_id: nullableInt.optional(),
    format: nullableString.optional(),
    function_id: nullableString.optional(),
    lightweight: z.boolean().nullable().optional(),
  })
  .strict();

export const userIdentifiersSchema = z
  .object({
    id: z.int().optional(),
    username: z
      .string()
      .max(150)
      .regex(/^[\w.@+-]+$/),
  })
  .strict();

/** `Request`: `GET /api/requests/{id}`. */
export const requestSchema = z
  .object({
    status: requestStatusSchema,
    message: z.string().optional(),
    id: z.string(),
    operation: requestDataOperationSchema,
    progress: z.number().min(0).max(1).nullable().optional(),
    created_date: cvatDateTimeSchema,
    started_date: cvatDateTimeSchema.nullable().optional(),
    finished_date: cvatDateTimeSchema.nullable().optional(),
    expiry_date: cvatDateTimeSchema.nullable().optional(),
    owner: userIdentifiersSchema.optional(),
    result_url: z.url().nullable().optional(),
    result_id: nullableInt.optional(),
  })
  .strict();

/** `PaginatedRequestList`: `GET /api/requests`. */
export const paginatedRequestListSchema = z
  .object({
    count: z.int(),
    next: z.url().nullable().optional(),
    previous: z.url().nullable().optional(),
    results: z.array(requestSchema),
  })
  .strict();

export { EVENT_LOG_CSV_COLUMNS } from './event-log';
