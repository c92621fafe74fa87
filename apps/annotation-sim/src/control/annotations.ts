import { controlError, type SimEnv, SimInputError, type World } from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import { eventsOf } from '../domain/events/state';
import type { AnnotationState } from '../domain/state';
import {
  type AnnotationsControlView,
  annotatedJobsView,
  annotationEventsView,
  DEFAULT_ANNOTATION_EVENTS,
  DEFAULT_ANNOTATION_JOBS,
  jobAnnotationsView,
} from './annotations-view';

/** A count from the query: decimal digits only, at least `min`; absent or empty gives `fallback`. */
function countOf(c: Context, name: string, fallback: number, min: number): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min)
    throw new SimInputError(`${name} must be ${min > 0 ? 'a positive' : 'a non-negative'} integer`, name);
  return n;
}

/**
 * `GET /_sim/annotations`: the request's namespace's jobs with annotations, each counted by label and
 * type, and the newest annotation events of its event log (annotations-view.ts). `?job_id=` shows that
 * job alone (empty or not) and its events; a job that does not exist is a 404.
 *
 * @example registerAnnotationControlRoutes(control, tools.world)
 */
export function registerAnnotationControlRoutes(
  control: Hono<SimEnv<AnnotationState>>,
  worldOf: (c: Context) => World<AnnotationState>,
): void {
  control.get('/annotations', (c) => {
    const state = worldOf(c).state;
    const rawJob = c.req.query('job_id');
    const jobId = rawJob === undefined ? undefined : countOf(c, 'job_id', 0, 1);
    const limit = countOf(c, 'limit', DEFAULT_ANNOTATION_JOBS, 1);
    const eventsLimit = countOf(c, 'events_limit', DEFAULT_ANNOTATION_EVENTS, 0);
    let jobs: Pick<AnnotationsControlView, 'jobs' | 'job_count'>;
    if (jobId === undefined) jobs = annotatedJobsView(state, limit);
    else {
      const one = jobAnnotationsView(state, jobId);
      if (!one) return controlError(c, 404, `no job ${jobId}`);
      jobs = { jobs: [one], job_count: 1 };
    }
    const events = annotationEventsView(eventsOf(state).store, eventsLimit, jobId);
    return c.json<AnnotationsControlView>({ ...jobs, ...events });
  });
}

/** `/_sim/openapi.json` entries of the annotation control routes. */
export const ANNOTATION_CONTROL_OPENAPI: Record<string, unknown> = {
  '/_sim/annotations': {
    get: {
      summary:
        "The namespace's jobs with annotations (job, task, counts of tags, shapes and tracks, and by label and type: a tag's type `tag`, a track's its first keyframe's) and the newest annotation events of the event log (scope create|update|delete:tags|shapes|tracks)",
      parameters: [
        {
          name: 'job_id',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1 },
          description: 'That job alone (listed even when it holds nothing) and its events',
        },
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, default: DEFAULT_ANNOTATION_JOBS },
          description: 'Jobs listed at most (by id)',
        },
        {
          name: 'events_limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 0, default: DEFAULT_ANNOTATION_EVENTS },
          description: 'Annotation events listed at most (newest first)',
        },
      ],
      responses: {
        '200': {
          description:
            '{ jobs: JobAnnotationsView[], job_count, events: AnnotationEventView[], event_count }',
        },
        '400': { description: 'job_id, limit or events_limit is not an integer of its range' },
        '404': { description: 'no job of that job_id' },
      },
    },
  },
};
