/**
 * Jobs: what a partial update may carry, whether a job may be deleted, and the save that derives a
 * job's `status` from its `stage`. Jobs are created with their task's data (`attachTaskData`).
 */
import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import { fail, ok, type Result } from './errors';
import type { JobRec } from './model';
import { type MutationContext, update } from './mutation';
import { usersExist, validated } from './resource-rules';
import type { AnnotationState } from './state';

/** A job's partial update from a request body (`assignee` is the user's id). */
export function jobPatch(state: AnnotationState, body: unknown): Result<Partial<JobRec>> {
  const v = validated(body, requestSchemas.PatchedJobWriteRequest(), true);
  if (!v.ok) return v;
  const f = v.value;
  const users = usersExist(state, f, ['assignee']);
  if (!users.ok) return users;
  const patch: Partial<JobRec> = {};
  if (f.assignee !== undefined) patch.assignee_id = f.assignee as number | null;
  if (f.stage !== undefined) patch.stage = f.stage as JobRec['stage'];
  if (f.state !== undefined) patch.state = f.state as JobRec['state'];
  return ok(patch);
}

/** Only ground-truth jobs can be deleted; the simulator creates annotation jobs only, so none can. */
export function jobDeletion(_job: JobRec): Result<never> {
  return fail({ code: 'INVALID_LIST', messages: ['Only ground truth jobs can be removed'] });
}

/** Job.save derives `status` from `stage` (acceptance → completed). */
export function updateJob(ctx: MutationContext, j: JobRec, patch: Partial<JobRec>): JobRec {
  const stage = patch.stage ?? j.stage;
  const status = stage === 'acceptance' ? 'completed' : stage;
  return update(ctx, 'job', j, { ...patch, ...(status !== j.status ? { status } : {}) });
}
