/**
 * Decisions shared by the annotation resources (projects, tasks, jobs, issues, comments): who may list,
 * create, see or change them, and what fields the edge checked must also satisfy (the records they
 * name exist). Each returns a `Result` whose error is the answer CVAT gives (403, or a DRF serializer's
 * 400).
 */

import { canChange, canCreateInContext, canListInContext, canView, type Resource } from './access';
import { denied, fail, ok, type Result } from './errors';
import type { UserRec } from './model';
import type { OrgContext } from './org-context';
import type { AnnotationState } from './state';

/** A body's fields as the edge checked them: DRF's field values by name. */
export type Fields = Record<string, unknown>;

/**
 * A related object by primary key (`undefined` when the field is absent or null), or DRF's
 * `Invalid pk "N" - object does not exist.` on the field.
 */
export function relatedPk<T>(
  map: Map<number, T>,
  field: string,
  id: number | null | undefined,
): Result<T | undefined> {
  if (id === undefined || id === null) return ok(undefined);
  const rec = map.get(id);
  if (rec === undefined)
    return fail({
      code: 'INVALID',
      errors: { [field]: [`Invalid pk "${String(id)}" - object does not exist.`] },
    });
  return ok(rec);
}

/** The users a body names in `fields` (e.g. `owner_id`, `assignee_id`) exist, checked in that order. */
export function usersExist<K extends string>(
  state: AnnotationState,
  v: { readonly [F in K]?: number | null },
  fields: readonly K[],
): Result<void> {
  for (const field of fields) {
    const user = relatedPk(state.users, field, v[field]);
    if (!user.ok) return user;
  }
  return ok(undefined);
}

/** The fields of `v` named in `keys` that the body carries, as a patch. */
export function present<T>(v: Fields, keys: readonly (keyof T & string)[]): Partial<T> {
  const patch: Record<string, unknown> = {};
  for (const k of keys) if (v[k] !== undefined) patch[k] = v[k];
  return patch as Partial<T>;
}

/** Listing in an organization context: its members and admins may; without one, everyone. */
export function mayList(state: AnnotationState, user: UserRec, ctx: OrgContext): Result<void> {
  return canListInContext(state, user, ctx) ? ok(undefined) : fail(denied());
}

/** Creating a project or task: privilege user or above; in an organization, role supervisor or above. */
export function mayCreate(state: AnnotationState, user: UserRec, ctx: OrgContext): Result<void> {
  return canCreateInContext(state, user, ctx) ? ok(undefined) : fail(denied());
}

/** The record if `user` may see it (`write`: change or delete it), else 403. */
export function mayAccess<T>(
  state: AnnotationState,
  user: UserRec,
  kind: Resource['kind'],
  rec: T,
  write: boolean,
): Result<T> {
  const res = { kind, rec } as Resource;
  const allowed = write ? canChange(state, user, res) : canView(state, user, res);
  return allowed ? ok(rec) : fail(denied());
}

/** 403 unless `user` may see the record a new object would hang under (a task's project, an issue's job). */
export function mayUse(state: AnnotationState, user: UserRec, res: Resource): Result<void> {
  return canView(state, user, res) ? ok(undefined) : fail(denied());
}
