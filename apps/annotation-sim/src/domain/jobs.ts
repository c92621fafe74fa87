/**
 * Jobs: what a partial update may carry, whether a job may be deleted, and the save that derives a
 * job's `status` from its `stage`. Jobs are created with their task's data (`attachTaskData`).
 */
import type { PatchedJobWriteRequest } from '@sims/annotation-schema/requests';
import { fail, ok, type Result } from './errors';
import type { JobRec } from './model';
import { type MutationContext, update } from './mutation';
import { usersExist } from './resource-rules';
import type { AnnotationState } from './state';
import { taskStatusFollowsJobs } from './tasks';

/** A job's partial update from its checked fields (`assignee` is the user's id, who must exist). */
export function jobPatch(state: AnnotationState, f: PatchedJobWriteRequest): Result<Partial<JobRec>> {
  const users = usersExist(state, f, ['assignee']);
  if (!users.ok) return users;
  const patch: Partial<JobRec> = {};
  if (f.assignee !== undefined) patch.assignee_id = f.assignee;
  if (f.stage !== undefined) patch.stage = f.stage;
  if (f.state !== undefined) patch.state = f.state;
  return ok(patch);
}

/** Only ground-truth jobs can be deleted; the simulator creates annotation jobs only, so none can. */
export function jobDeletion(_job: JobRec): Result<never> {
  return fail({ code: 'INVALID_LIST', messages: ['Only ground truth jobs can be removed'] });
}

/**
 * Job.save derives `status` from `stage` (acceptance → completed); its `post_save` then derives the
 * task's status from its jobs'.
 */
export function updateJob(ctx: MutationContext, j: JobRec, patch: Partial<JobRec>): JobRec {
  const stage = patch.stage ?? j.stage;
  const status = stage === 'acceptance' ? 'completed' : stage;
  update(ctx, 'job', j, { ...patch, ...(status !== j.status ? { status } : {}) });
  taskStatusFollowsJobs(ctx, j.task_id);
  return j;
}
