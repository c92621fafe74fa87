import { describe, expect, it } from 'vitest';
import { createCvatHttp } from '../consumers/cvat-http/src';
import { createJobCollector } from '../consumers/job-collector/src';
import { createPreAnnotator } from '../consumers/pre-annotator/src';

/** A fetch that answers from a list of canned responses and records the requests it was given. */
function cannedFetch(responses: Array<{ status: number; json?: unknown }>) {
  const calls: Array<{ method: string; url: string; body: unknown }> = [];
  const fake: typeof fetch = async (input, init) => {
    const body = init?.body === undefined ? undefined : JSON.parse(init.body as string);
    calls.push({ method: init?.method ?? 'GET', url: String(input), body });
    const next = responses.shift();
    if (!next) throw new Error(`unexpected request ${String(input)}`);
    return new Response(next.json === undefined ? null : JSON.stringify(next.json), {
      status: next.status,
      headers: { 'Content-Type': 'application/vnd.cvat+json' },
    });
  };
  return { calls, fake };
}

const http = (fake: typeof fetch) => createCvatHttp({ baseUrl: 'http://cvat.test', token: 't', fetch: fake });
const label = (id: number, name: string) => ({ id, name, type: 'rectangle' });
const shape = (id: number, labelId: number, frame = 0) => ({
  id,
  frame,
  label_id: labelId,
  type: 'rectangle',
  points: [1, 2, 3, 4],
  source: 'manual',
});
const annotations = (shapes: unknown[], tags: unknown[] = [], tracks: unknown[] = []) => ({
  version: 0,
  tags,
  shapes,
  tracks,
});
const finished = {
  status: 200,
  json: {
    status: 'finished',
    message: '',
    id: 'action=create&target=task&target_id=42',
    operation: { type: 'create:task', target: 'task', project_id: null, task_id: 42 },
    finished_date: '2026-08-12T10:00:02Z',
    result_url: null,
  },
};

describe('createPreAnnotator', () => {
  const data = { imageQuality: 70, serverFiles: ['a.jpg'] };

  it('maps the predictions to the label ids of every label page and PUTs them as automatic rectangles', async () => {
    const { calls, fake } = cannedFetch([
      { status: 201, json: { id: 42, name: 'T' } },
      { status: 202, json: { rq_id: 'action=create&target=task&target_id=42' } },
      finished,
      {
        status: 200,
        json: { count: 2, next: 'http://cvat.test/api/labels?task_id=42&page=2', results: [label(8, 'a')] },
      },
      { status: 200, json: { count: 2, next: null, results: [label(9, 'b')] } },
      { status: 200, json: annotations([shape(1, 9)]) },
      { status: 200, json: annotations([shape(1, 9)]) },
    ]);
    const annotator = createPreAnnotator({ http: http(fake), sleep: async () => {} });
    const report = await annotator.preAnnotate('T', ['a', 'b'], data, [
      { label: 'b', frame: 0, box: [1, 2, 3, 4] },
    ]);
    expect(report.outcome).toBe('uploaded');
    expect(calls[0]?.body).toEqual({
      name: 'T',
      labels: [
        { name: 'a', type: 'rectangle' },
        { name: 'b', type: 'rectangle' },
      ],
    });
    expect(calls[4]?.url).toBe('http://cvat.test/api/labels?task_id=42&page=2');
    expect(calls[5]).toEqual({
      method: 'PUT',
      url: 'http://cvat.test/api/tasks/42/annotations',
      body: {
        version: 0,
        tags: [],
        shapes: [{ type: 'rectangle', frame: 0, label_id: 9, points: [1, 2, 3, 4], source: 'auto' }],
        tracks: [],
      },
    });
  });

  it('stops before any PUT when a prediction names a label the task does not have', async () => {
    const { calls, fake } = cannedFetch([
      { status: 201, json: { id: 42, name: 'T' } },
      { status: 202, json: { rq_id: 'action=create&target=task&target_id=42' } },
      finished,
      { status: 200, json: { count: 1, next: null, results: [label(8, 'a')] } },
    ]);
    const annotator = createPreAnnotator({ http: http(fake), sleep: async () => {} });
    const report = await annotator.preAnnotate('T', ['a'], data, [
      { label: 'zebra', frame: 0, box: [1, 2, 3, 4] },
    ]);
    expect(report).toEqual({ outcome: 'unknown-label', taskId: 42, label: 'zebra' });
    expect(calls.map((c) => c.method)).not.toContain('PUT');
  });

  it("reports CVAT's refusal of the PUT as the step's rejection, with the DRF errors", async () => {
    const { fake } = cannedFetch([
      { status: 201, json: { id: 42, name: 'T' } },
      { status: 202, json: { rq_id: 'action=create&target=task&target_id=42' } },
      finished,
      { status: 200, json: { count: 1, next: null, results: [label(8, 'a')] } },
      { status: 400, json: ['Invalid frame'] },
    ]);
    const annotator = createPreAnnotator({ http: http(fake), sleep: async () => {} });
    const report = await annotator.preAnnotate('T', ['a'], data, [
      { label: 'a', frame: 5, box: [1, 2, 3, 4] },
    ]);
    expect(report).toEqual({
      outcome: 'rejected',
      step: 'put annotations',
      error: { kind: 'validation', status: 400, fieldErrors: {}, nonFieldErrors: ['Invalid frame'] },
    });
  });
});

describe('createJobCollector', () => {
  const completed = {
    kind: 'job-updated' as const,
    webhookId: 1,
    job: { id: 7, taskId: 12, state: 'completed', stage: 'annotation' },
    previousState: 'in progress',
    sender: 'alice',
  };

  it('counts the shapes of a job that became completed by label name and type', async () => {
    const { calls, fake } = cannedFetch([
      { status: 200, json: annotations([shape(1, 3), shape(2, 3, 1), shape(3, 4)], [{ id: 5 }], []) },
      { status: 200, json: { count: 2, next: null, results: [label(3, 'car'), label(4, 'person')] } },
    ]);
    const outcome = await createJobCollector({ http: http(fake) }).onEvent(completed);
    expect(outcome).toEqual({
      outcome: 'collected',
      summary: {
        jobId: 7,
        taskId: 12,
        shapes: { 'car/rectangle': 2, 'person/rectangle': 1 },
        tags: 1,
        tracks: 0,
      },
    });
    expect(calls.map((c) => c.url)).toEqual([
      'http://cvat.test/api/jobs/7/annotations',
      'http://cvat.test/api/labels?job_id=7',
    ]);
  });

  it('ignores updates that did not complete the job and other events, without a request', async () => {
    const { calls, fake } = cannedFetch([]);
    const collector = createJobCollector({ http: http(fake) });
    expect((await collector.onEvent({ ...completed, previousState: null })).outcome).toBe('ignored');
    expect(
      (await collector.onEvent({ ...completed, job: { ...completed.job, state: 'in progress' } })).outcome,
    ).toBe('ignored');
    expect((await collector.onEvent({ kind: 'ping', webhookId: 1, sender: null })).outcome).toBe('ignored');
    expect(calls).toEqual([]);
  });

  it("reports a job that is gone as the read's not-found", async () => {
    const { fake } = cannedFetch([{ status: 404, json: { detail: 'No Job matches the given query.' } }]);
    const outcome = await createJobCollector({ http: http(fake) }).onEvent(completed);
    expect(outcome).toEqual({
      outcome: 'rejected',
      step: 'read annotations',
      error: { kind: 'not-found', status: 404, detail: 'No Job matches the given query.' },
    });
  });
});
