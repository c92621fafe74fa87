import {
  type Annotations,
  type CvatError,
  type CvatHttp,
  type CvatResult,
  expectStatus,
  type Label,
  listLabels,
  readAnnotations,
} from '../../cvat-http/src';
import type { WebhookEvent } from '../../webhook-receiver/src';

/** What one completed job held: its shapes counted by label name and type, its tags and tracks. */
export interface JobSummary {
  readonly jobId: number;
  readonly taskId: number;
  /** `"<label>/<type>"` → count, e.g. `{"car/rectangle": 2}`. */
  readonly shapes: Readonly<Record<string, number>>;
  readonly tags: number;
  readonly tracks: number;
}

export type CollectorOutcome =
  | { readonly outcome: 'collected'; readonly summary: JobSummary }
  | { readonly outcome: 'ignored'; readonly reason: string }
  | { readonly outcome: 'rejected'; readonly step: string; readonly error: CvatError };

export interface JobCollectorOptions {
  readonly http: CvatHttp;
}

/**
 * A job-completion consumer: on a webhook's `update:job` whose state became `completed`, it fetches
 * what the annotators drew (`GET /api/jobs/{id}/annotations`) and the job's labels (`GET
 * /api/labels?job_id=`) and summarises the shapes by label. Other events are ignored.
 *
 * @example
 * const collector = createJobCollector({ http: createCvatHttp({ baseUrl, token }) });
 * const receiver = createWebhookReceiver({ secret, onEvent: (e) => collector.onEvent(e) });
 */
export function createJobCollector(options: JobCollectorOptions) {
  const { http } = options;

  const labelsOf = (jobId: number): Promise<CvatResult<Label[]>> => listLabels(http, { job_id: jobId });

  async function annotationsOf(jobId: number): Promise<CvatResult<Annotations>> {
    const response = await http.request('GET', `/api/jobs/${jobId}/annotations`);
    return expectStatus(response, 200, (r) => readAnnotations(r.body));
  }

  async function onEvent(event: WebhookEvent): Promise<CollectorOutcome> {
    if (event.kind !== 'job-updated') return { outcome: 'ignored', reason: event.kind };
    if (
      event.job.state !== 'completed' ||
      event.previousState === null ||
      event.previousState === 'completed'
    )
      return { outcome: 'ignored', reason: 'the job did not become completed' };
    const jobId = event.job.id;
    const annotations = await annotationsOf(jobId);
    if (!annotations.ok) return { outcome: 'rejected', step: 'read annotations', error: annotations.error };
    const labels = await labelsOf(jobId);
    if (!labels.ok) return { outcome: 'rejected', step: 'read labels', error: labels.error };
    const names = new Map(labels.value.map((l) => [l.id, l.name]));
    const shapes: Record<string, number> = {};
    for (const shape of annotations.value.shapes) {
      const key = `${names.get(shape.labelId) ?? `#${shape.labelId}`}/${shape.type}`;
      shapes[key] = (shapes[key] ?? 0) + 1;
    }
    return {
      outcome: 'collected',
      summary: {
        jobId,
        taskId: event.job.taskId,
        shapes,
        tags: annotations.value.tags,
        tracks: annotations.value.tracks,
      },
    };
  }

  return { labelsOf, annotationsOf, onEvent };
}

export type JobCollector = ReturnType<typeof createJobCollector>;
