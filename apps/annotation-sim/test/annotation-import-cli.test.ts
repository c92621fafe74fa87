/**
 * Annotation imports as CVAT's SDK and REST tests make them, against the built CLI
 * (support/cli-harness.ts: one process for the file, a namespace a test). Ports CVAT 2.73's
 * `tests/python/rest_api/test_tasks.py`: `TestImportTaskAnnotations.test_import_annotations_respects_import_mode`
 * (task and job; `import_mode` default, `replace`, `append`: an annotations export imported over a
 * sentinel tag put in its place, `compare_annotations(..., ignore_source=True) == {}` when replaced,
 * the sentinel kept and the counts added when appended) through `import_task_annotations` /
 * `import_job_annotations` (one multipart request, the request polled until it ends), and
 * `TestWorkWithTask.test_can_import_annotations` (a dataset export imported back through the SDK's
 * `task.import_annotations`: a TUS upload), with "CVAT for images 1.1" / "CVAT 1.1" as
 * `TestImportTaskAnnotations` uses them. And the scenario file of a corrupted archive.
 */
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { drawn, fileForm, ROAD } from './support/import-files';
import { tusUpload } from './support/tus-upload';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

const SENTINEL_GROUP = 987654;

/**
 * Org acme: task 1 "road" (6 frames, jobs of frames 0-2 and 3-5, labels car and person) with shapes on
 * both jobs and a tag, as the `tasks_with_shapes` / `jobs_with_shapes` fixtures give.
 */
async function world() {
  await h.seed(ROAD);
  const labels = (await h.get('/api/labels?task_id=1&org=acme', { as: 'alice' })).body.results as {
    id: number;
    name: string;
  }[];
  const car = labels.find((l) => l.name === 'car')?.id as number;
  const shape = (frame: number, type: string, points: number[]) => drawn(car, frame, type, points);
  const put = await h.put(
    '/api/tasks/1/annotations?org=acme',
    {
      version: 0,
      tags: [{ frame: 4, label_id: car, group: 0, source: 'manual', attributes: [] }],
      shapes: [
        shape(0, 'rectangle', [1, 2, 30, 40]),
        shape(1, 'polygon', [0, 0, 9, 0, 9, 9]),
        shape(3, 'polyline', [1, 1, 2, 2, 3, 1]),
        shape(5, 'points', [7, 7]),
      ],
      tracks: [],
    },
    { as: 'alice' },
  );
  expect(put.status, JSON.stringify(put.body)).toBe(200);
}

const requestPath = (rqId: string) => `/api/requests/${encodeURIComponent(rqId)}?org=acme`;

/** The request polled (the clock moved past any delay) until it ended. */
async function ended(rqId: string) {
  await h.advance('2s');
  const res = await h.get(requestPath(rqId), { as: 'alice' });
  expect(res.status).toBe(200);
  return res.body as { status: string; message: string; result_id: number | null; result_url: string | null };
}

/** `export_dataset(api, id=…, format=…, save_images=…)`: export, wait, download. */
async function exportDataset(resource: string, format: string, saveImages: boolean): Promise<Uint8Array> {
  const query = `format=${encodeURIComponent(format)}&save_images=${saveImages}&org=acme`;
  const started = await h.post(`/api/${resource}/dataset/export?${query}`, undefined, { as: 'alice' });
  expect(started.status).toBe(202);
  const request = await ended(started.body.rq_id);
  expect(request.status).toBe('finished');
  const url = new URL(request.result_url as string);
  const res = await h.send('GET', `${url.pathname}${url.search}&org=acme`, 'alice', {});
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** `import_task_annotations` / `import_job_annotations`: one multipart request, then the request polled. */
async function importAnnotations(resource: string, file: Uint8Array, importMode?: string) {
  const { body, type } = fileForm(file);
  const mode = importMode ? `&import_mode=${importMode}` : '';
  const res = await h.send(
    'POST',
    `/api/${resource}/annotations?format=CVAT%201.1&org=acme${mode}`,
    'alice',
    { 'Content-Type': type },
    body,
  );
  expect(res.status).toBe(202);
  return ended(((await res.json()) as { rq_id: string }).rq_id);
}

interface Annotations {
  tags: { group: number }[];
  shapes: unknown[];
  tracks: unknown[];
}

const count = (a: Annotations) => a.tags.length + a.shapes.length + a.tracks.length;

/** `compare_annotations(a, b, ignore_source=True)`: the ids (and `source`) left out of both. */
const comparable = (a: Annotations) =>
  JSON.parse(JSON.stringify(a), (k, v) => (k === 'id' || k === 'source' ? undefined : v));

describe('TestImportTaskAnnotations.test_import_annotations_respects_import_mode', () => {
  const cases = [
    ['tasks', 1, 0],
    ['jobs', 2, 3],
  ] as const;
  for (const [targetType, targetId, sentinelFrame] of cases) {
    for (const [importMode, shouldAppend] of [
      [undefined, false],
      ['replace', false],
      ['append', true],
    ] as const) {
      it(`${targetType === 'tasks' ? 'task' : 'job'}, ${importMode ?? 'replace-default'}`, async () => {
        await world();
        const endpoint = `/api/${targetType}/${targetId}/annotations?org=acme`;
        const original = (await h.get(endpoint, { as: 'alice' })).body as Annotations;
        expect(count(original)).toBeGreaterThan(0);
        const file = await exportDataset(`${targetType}/${targetId}`, 'CVAT for images 1.1', false);
        const labelId = (original.shapes[0] as { label_id: number }).label_id;
        const replacement = {
          version: 0,
          tags: [{ frame: sentinelFrame, label_id: labelId, group: SENTINEL_GROUP, attributes: [] }],
          shapes: [],
          tracks: [],
        };
        expect((await h.put(endpoint, replacement, { as: 'alice' })).status).toBe(200);

        const request = await importAnnotations(`${targetType}/${targetId}`, file, importMode);
        expect(request.status, request.message).toBe('finished');

        const imported = (await h.get(endpoint, { as: 'alice' })).body as Annotations;
        const hasSentinel = imported.tags.some((t) => t.group === SENTINEL_GROUP);
        if (shouldAppend) {
          expect(hasSentinel).toBe(true);
          expect(count(imported)).toBe(count(original) + 1);
        } else {
          expect(hasSentinel).toBe(false);
          expect(comparable(imported)).toEqual(comparable(original));
        }
      });
    }
  }
});

describe('TestWorkWithTask.test_can_import_annotations', () => {
  it("imports a dataset export (images in the zip) through the SDK's TUS upload", async () => {
    await world();
    const original = (await h.get('/api/tasks/1/annotations?org=acme', { as: 'alice' })).body as Annotations;
    const file = await exportDataset('tasks/1', 'CVAT for images 1.1', true);
    expect((await h.del('/api/tasks/1/annotations?org=acme', { as: 'alice' })).status).toBe(204);
    const finished = await tusUpload(
      h,
      '/api/tasks/1/annotations/',
      'org=acme&format=CVAT%201.1',
      file,
      'alice',
    );
    expect(finished.status).toBe(202);
    const { rq_id: rqId } = (await finished.json()) as { rq_id: string };
    expect(rqId).toBe('action=import&target=task&target_id=1&subresource=annotations');
    const request = await ended(rqId);
    expect(request).toMatchObject({ status: 'finished', message: '', result_id: null, result_url: null });
    const imported = (await h.get('/api/tasks/1/annotations?org=acme', { as: 'alice' })).body as Annotations;
    expect(comparable(imported)).toEqual(comparable(original));
  });
});

describe('scenarios/corrupted-annotation-import.yaml', () => {
  it('fails the next import as a corrupted archive would, and imports nothing; the one after runs', async () => {
    await world();
    const original = (await h.get('/api/jobs/1/annotations?org=acme', { as: 'alice' })).body;
    const file = await exportDataset('jobs/1', 'CVAT for images 1.1', false);
    const yaml = readFileSync(
      new URL('../../../scenarios/corrupted-annotation-import.yaml', import.meta.url),
    );
    const loaded = await h.send(
      'POST',
      '/_sim/scenarios?source=corrupted-annotation-import.yaml',
      'admin',
      { 'Content-Type': 'application/yaml' },
      new Uint8Array(yaml),
    );
    expect(loaded.status, await loaded.clone().text()).toBe(201);
    const failed = await importAnnotations('jobs/1', file, 'append');
    expect(failed).toMatchObject({
      status: 'failed',
      message: 'zipfile.BadZipFile: File is not a zip file\n',
      result_id: null,
    });
    expect((await h.get('/api/jobs/1/annotations?org=acme', { as: 'alice' })).body).toEqual(original);
    expect((await importAnnotations('jobs/1', file, 'append')).status).toBe('finished');
  });
});
