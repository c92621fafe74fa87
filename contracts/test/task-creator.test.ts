import { describe, expect, it } from 'vitest';
import { createCvatHttp } from '../consumers/cvat-http/src';
import { createTaskCreator } from '../consumers/task-creator/src';

/** A fetch that answers from a list of canned responses and records the requests it was given. */
function cannedFetch(responses: Array<{ status: number; json?: unknown }>) {
  const calls: Array<{ method: string; url: string; body: string | undefined }> = [];
  const fake: typeof fetch = async (input, init) => {
    calls.push({ method: init?.method ?? 'GET', url: String(input), body: init?.body as string | undefined });
    const next = responses.shift();
    if (!next) throw new Error(`unexpected request ${String(input)}`);
    return new Response(next.json === undefined ? null : JSON.stringify(next.json), {
      status: next.status,
      headers: { 'Content-Type': 'application/vnd.cvat+json' },
    });
  };
  return { calls, fake };
}

const RQ_ID = 'action=create&target=task&target_id=42';
const DATA = { imageQuality: 70, serverFiles: ['a.jpg', 'b.jpg'] };
const request = (status: string, message = '') => ({
  status: 200,
  json: {
    status,
    message,
    id: RQ_ID,
    operation: { type: 'create:task', target: 'task', project_id: null, task_id: 42 },
    finished_date: status === 'finished' || status === 'failed' ? '2026-08-12T10:00:02Z' : null,
    result_url: null,
  },
});

function creator(responses: Parameters<typeof cannedFetch>[0], options: { maxPolls?: number } = {}) {
  const { calls, fake } = cannedFetch(responses);
  const sleeps: number[] = [];
  const c = createTaskCreator({
    http: createCvatHttp({ baseUrl: 'http://cvat.test', token: 't', fetch: fake }),
    sleep: async (ms) => void sleeps.push(ms),
    pollIntervalMs: 250,
    ...options,
  });
  return { c, calls, sleeps };
}

describe('createTaskCreator', () => {
  it('sends the data as JSON to /data/ and polls the encoded rq_id until it is finished', async () => {
    const { c, calls, sleeps } = creator([
      { status: 202, json: { rq_id: RQ_ID } },
      request('queued'),
      request('started'),
      request('finished'),
    ]);
    expect(await c.createTaskData(42, DATA)).toMatchObject({
      outcome: 'created',
      rqId: RQ_ID,
      polls: 3,
      request: { status: 'finished', taskId: 42, finishedDate: '2026-08-12T10:00:02Z' },
    });
    expect(calls[0]).toEqual({
      method: 'POST',
      url: 'http://cvat.test/api/tasks/42/data/',
      body: '{"image_quality":70,"server_files":["a.jpg","b.jpg"]}',
    });
    expect(calls.slice(1).map((call) => call.url)).toEqual(
      Array(3).fill(`http://cvat.test/api/requests/${encodeURIComponent(RQ_ID)}`),
    );
    expect(sleeps).toEqual([250, 250]);
  });

  it("reports a failed creation with the worker's message", async () => {
    const message = 'ValueError: No media data found\n';
    const { c } = creator([{ status: 202, json: { rq_id: RQ_ID } }, request('failed', message)]);
    expect(await c.createTaskData(42, DATA)).toEqual({ outcome: 'failed', rqId: RQ_ID, message });
  });

  it('follows the request a 409 names (the same data is being created already)', async () => {
    const { c } = creator([{ status: 409, json: { rq_id: RQ_ID } }, request('finished')]);
    expect(await c.createTaskData(42, DATA)).toMatchObject({ outcome: 'created', rqId: RQ_ID, polls: 1 });
  });

  it('polls at most maxPolls times and reports a time-out', async () => {
    const { c, sleeps } = creator(
      [{ status: 202, json: { rq_id: RQ_ID } }, request('queued'), request('queued')],
      { maxPolls: 2 },
    );
    expect(await c.createTaskData(42, DATA)).toEqual({ outcome: 'timed-out', rqId: RQ_ID, polls: 2 });
    expect(sleeps).toEqual([250]);
  });

  it('reports the data refused once it exists, from the bare JSON string CVAT answers', async () => {
    const { c } = creator([{ status: 400, json: 'Adding more data is not supported' }]);
    expect(await c.createTaskData(42, DATA)).toEqual({
      outcome: 'rejected',
      error: {
        kind: 'validation',
        status: 400,
        fieldErrors: {},
        nonFieldErrors: ['Adding more data is not supported'],
      },
    });
  });

  it('refuses a request status it does not know', async () => {
    const { c } = creator([{ status: 202, json: { rq_id: RQ_ID } }, request('deferred')]);
    await expect(c.createTaskData(42, DATA)).rejects.toThrow(/unknown request status "deferred"/);
  });
});
