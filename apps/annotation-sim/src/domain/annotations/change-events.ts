import type { Actor } from '../changes';
import { recordAnnotationChange } from '../events/annotation-events';
import { EVENTS_EXTENSION, eventsOf } from '../events/state';
import type { AnnotationState } from '../state';
import type { AnnotationChange } from './model';

/**
 * The server events of a write's changes (`handle_annotations_change`, one call per job and action, in
 * the order made): each in the context of its job, the job's task and project, and the task's
 * organization, made by `actor` through the request it names.
 */
export function recordAnnotationChanges(
  state: AnnotationState,
  changes: readonly AnnotationChange[],
  actor: Actor,
  now: number,
): void {
  // A state without the events API's part (one made by hand, as a test's) has no log to write to.
  if (changes.length === 0 || !state.extensions.has(EVENTS_EXTENSION)) return;
  const events = eventsOf(state);
  const request =
    actor.kind === 'user'
      ? {
          requestId: actor.requestId ?? null,
          userAgent: actor.userAgent ?? null,
          accessTokenId: actor.accessTokenId ?? null,
        }
      : { requestId: actor.requestId ?? null };
  for (const change of changes) {
    const job = state.jobs.get(change.jobId);
    const task = job === undefined ? undefined : state.tasks.get(job.task_id);
    const org = task?.organization_id == null ? undefined : state.organizations.get(task.organization_id);
    recordAnnotationChange(
      events,
      {
        action: change.action,
        annotations: change.data as unknown as Parameters<typeof recordAnnotationChange>[1]['annotations'],
        jobId: change.jobId,
        taskId: task?.id ?? null,
        projectId: task?.project_id ?? null,
        org: org ? { id: org.id, slug: org.slug } : null,
        actor: {
          id: actor.id,
          username: actor.username,
          email: actor.email,
          ...(actor.requestId ? { requestId: actor.requestId } : {}),
        },
        ...request,
        stopFrame: job?.stop_frame ?? null,
        ...(change.storedTracks
          ? { storedTracks: change.storedTracks as unknown as Record<string, unknown>[] }
          : {}),
      },
      now,
    );
  }
}
