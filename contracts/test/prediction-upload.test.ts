import { describe, expect, it } from 'vitest';
import { createCvatHttp } from '../consumers/cvat-http/src';
import { createPredictionUploader } from '../consumers/prediction-upload/src';

const RQ_ID = 'action=import&target=task&target_id=42&subresource=annotations';
const FILE = { name: 'predictions.json', content: '{"images": [], "annotations": [], "categories": []}' };
const request = (status: string, message = '') => ({
  status: 200,
  json: {
    status,
    message,
    id: RQ_ID,
    operation: { type: 'import:annotations', target: 'task', task_id: 42 },
  },
});
const SHAPE = { id: 1, frame: 0, label_id: 5, type: 'rectangle', points: [1, 2, 3, 4], source: 'file' };

/** An uploader over a fetch that answers canned JSON and records each request's URL and body. */
function uploader(responses: Array<{ status: number; json: unknown }>, maxPolls = 5) {
  const calls: Array<{ method: string; url: string; body: unknown }> = [];
  const sleeps: number[] = [];
  const fake: typeof fetch = async (input, init) => {
    calls.push({ method: init?.method ?? 'GET', url: String(input), body: init?.body });
    const next = responses.shift();
    if (!next) throw new Error(`unexpected request ${String(input)}`);
    return new Response(JSON.stringify(next.json), {
      status: next.status,
      headers: { 'Content-Type': 'application/vnd.cvat+json' },
    });
  };
  const u = createPredictionUploader({
    http: createCvatHttp({ baseUrl: 'http://cvat.test', token: 't', fetch: fake }),
    sleep: async (ms) => void sleeps.push(ms),
    pollIntervalMs: 50,
    maxPolls,
  });
  return { u, calls, sleeps };
}

describe('createPredictionUploader', () => {
  it('sends the file as annotation_file with its name and type, follows the import, then reads the task back', async () => {
    const { u, calls, sleeps } = uploader([
      { status: 202, json: { rq_id: RQ_ID } },
      request('started'),
      request('finished'),
      { status: 200, json: { version: 0, tags: [], shapes: [SHAPE], tracks: [] } },
    ]);
    expect(await u.uploadPredictions(42, FILE)).toEqual({
      outcome: 'imported',
      rqId: RQ_ID,
      polls: 2,
      readBack: {
        tags: 0,
        shapes: [{ id: 1, frame: 0, labelId: 5, type: 'rectangle', points: [1, 2, 3, 4], source: 'file' }],
        tracks: 0,
      },
    });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'POST http://cvat.test/api/tasks/42/annotations?format=COCO+1.0',
      `GET http://cvat.test/api/requests/${encodeURIComponent(RQ_ID)}`,
      `GET http://cvat.test/api/requests/${encodeURIComponent(RQ_ID)}`,
      'GET http://cvat.test/api/tasks/42/annotations',
    ]);
    const form = calls[0]?.body;
    if (!(form instanceof FormData)) throw new Error('the upload was not a form');
    const part = form.get('annotation_file') as File;
    expect([part.name, part.type, await part.text()]).toEqual([FILE.name, 'application/json', FILE.content]);
    expect(sleeps).toEqual([50]);
  });

  it('follows the running import a 409 names, and reports a failed one with its message', async () => {
    const { u } = uploader([
      { status: 409, json: { rq_id: RQ_ID } },
      request('failed', 'CvatImportError: Could not match item id: frame_9.jpg\n'),
    ]);
    expect(await u.uploadPredictions(42, FILE)).toEqual({
      outcome: 'failed',
      rqId: RQ_ID,
      message: 'CvatImportError: Could not match item id: frame_9.jpg\n',
    });
  });

  it("stops after maxPolls, and turns a refused upload into CVAT's error", async () => {
    const stuck = uploader(
      [{ status: 202, json: { rq_id: RQ_ID } }, request('queued'), request('queued')],
      2,
    );
    expect(await stuck.u.uploadPredictions(42, FILE)).toEqual({
      outcome: 'timed-out',
      rqId: RQ_ID,
      polls: 2,
    });
    const refused = uploader([{ status: 400, json: ["Unknown input format 'COCO 1.0'"] }]);
    expect(await refused.u.uploadPredictions(42, FILE)).toEqual({
      outcome: 'rejected',
      error: expect.objectContaining({ status: 400 }),
    });
  });
});
