import * as z from 'zod';

/** DRF datetime: ISO-8601 with `Z` (microseconds when non-zero). */
export const DateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/);

/** `BasicUser`: owner, assignee and sender objects. */
export const BasicUser = z.object({
  url: z.string(),
  id: z.number().int(),
  username: z
    .string()
    .max(150)
    .regex(/^[\w.@+-]+$/),
  first_name: z.string().max(150),
  last_name: z.string().max(150),
});
export type BasicUser = z.infer<typeof BasicUser>;

/** `User` (GET /api/users/self). */
export const User = BasicUser.extend({
  email: z.string(),
  groups: z.array(z.string()),
  is_staff: z.boolean(),
  is_superuser: z.boolean(),
  is_active: z.boolean(),
  last_login: DateTime.nullable(),
  date_joined: DateTime,
  has_analytics_access: z.boolean(),
});
export type User = z.infer<typeof User>;

/** The sender of a change made by a background worker (RQ meta user). */
export const WorkerSender = z.object({ id: z.number().int(), username: z.string(), email: z.string() });
export type WorkerSender = z.infer<typeof WorkerSender>;

/** `Token`: the answer of `POST /api/auth/login`. */
export const Token = z.object({ key: z.string().max(40) });
export type Token = z.infer<typeof Token>;

/** `Storage`. */
export const Storage = z.object({
  id: z.number().int(),
  location: z.enum(['cloud_storage', 'local']),
  cloud_storage_id: z.number().int().nullable(),
});
export type Storage = z.infer<typeof Storage>;

/** `{count, next, previous, results}` of every `Paginated*List`. */
export function paginated<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });
}
export interface Paginated<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}
