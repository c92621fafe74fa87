/**
 * A project's dataset import against the built CLI (support/cli-harness.ts), as CVAT 2.73's
 * `tests/python/rest_api/test_projects.py` runs it: `TestImportExportDatasetProject`'s
 * `_test_import_project` (`projects_api.create_dataset(id, format, dataset_file_request=…)` as one
 * multipart request, then the request polled until finished) after `export_project_dataset(save_images=True)`:
 * `test_can_import_export_annotations_with_rotation` (the project's first two tasks after the import
 * have the same rotation), `test_can_import_dataset_in_org`, `test_can_export_and_import_dataset_with_skeletons`
 * (not Ultralytics YOLO Pose, which the simulator does not write), `test_can_import_export_dataset_with_some_format`
 * (not ImageNet) and `test_cant_import_annotations_as_project` (2d only: no 3D tasks).
 */
import { unzipSync } from 'fflate';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { TEAM } from './support/harness';
import { fileForm } from './support/images';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

/** Org acme: project 1 "acme-p" (car) with task 1 "Road t" (3 frames, subset Train) and a rotated car. */
async function world() {
  await h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme', labels: [{ name: 'car' }] }],
    tasks: [{ name: 'Road t', owner: 'alice', project: 'acme-p', size: 3, subset: 'Train' }],
  });
  const label = (await h.get('/api/labels?project_id=1&org=acme', { as: 'alice' })).body.results[0].id;
  const shape = {
    type: 'rectangle',
    frame: 2,
    label_id: label,
    points: [1, 2, 30.5, 40],
    rotation: 45,
    occluded: false,
    z_order: 0,
    attributes: [],
  };
  const put = await h.put(
    '/api/tasks/1/annotations?org=acme',
    { version: 0, tags: [], shapes: [shape], tracks: [] },
    { as: 'alice' },
  );
  expect(put.status).toBe(200);
}

/** The request once its worker ended. */
async function ended(rqId: string) {
  await h.advance('2s');
  const res = await h.get(`/api/requests/${encodeURIComponent(rqId)}?org=acme`, { as: 'alice' });
  expect(res.status).toBe(200);
  return res.body as { status: string; message: string; result_url: string | null };
}

/** `export_project_dataset(username, save_images=True, id=pid, format=…)`. */
async function exportDataset(pid: number, format = 'CVAT for images 1.1'): Promise<Uint8Array> {
  const started = await h.post(
    `/api/projects/${pid}/dataset/export?format=${encodeURIComponent(format)}&save_images=true&org=acme`,
    undefined,
    { as: 'alice' },
  );
  expect(started.status).toBe(202);
  const request = await ended(started.body.rq_id);
  expect(request.status).toBe('finished');
  const url = new URL(request.result_url as string);
  const res = await h.send('GET', `${url.pathname}${url.search}&org=acme`, 'alice', {});
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** `_test_import_project(username, project_id, format_name, data)` (`data.name` the file's name). */
async function importProject(pid: number, data: Uint8Array, format = 'CVAT 1.1', name = 'dataset.zip') {
  const form = fileForm('dataset_file', name, data);
  const res = await h.send(
    'POST',
    `/api/projects/${pid}/dataset/?format=${encodeURIComponent(format)}&org=acme`,
    'alice',
    form.headers,
    form.body,
  );
  // The SDK raises ApiException with the body for anything but 202.
  if (res.status !== 202) throw new Error(`${res.status} ${await res.text()}`);
  const rqId = ((await res.json()) as { rq_id: string }).rq_id;
  expect(rqId, 'The rq_id was not found in the response').toBeTruthy();
  const request = await ended(rqId);
  expect(request.status, request.message).toBe('finished');
}

const rotationOf = async (taskId: number) =>
  (await h.get(`/api/tasks/${taskId}/annotations?org=acme`, { as: 'alice' })).body.shapes[0].rotation;

describe('TestImportExportDatasetProject (test_projects.py), on the CLI', () => {
  it('test_can_import_export_annotations_with_rotation', async () => {
    await world();
    await importProject(1, await exportDataset(1));
    const res = await h.get('/api/tasks?project_id=1&org=acme', { as: 'alice' });
    expect(res.status).toBe(200);
    const tasks = res.body.results as { id: number; name: string }[];
    expect(tasks).toHaveLength(2);
    const task1Rotation = await rotationOf(tasks[0]?.id as number);
    const task2Rotation = await rotationOf(tasks[1]?.id as number);
    expect(task1Rotation).toBe(task2Rotation);
    expect(task1Rotation).toBe(45);
  });

  it('test_can_import_dataset_in_org', async () => {
    await world();
    const dataset = await exportDataset(1);
    const empty = await h.post('/api/projects?org=acme', { name: 'empty' }, { as: 'alice' });
    expect(empty.status).toBe(201);
    await importProject(empty.body.id, dataset);
    const tasks = (await h.get(`/api/tasks?project_id=${empty.body.id}&org=acme`, { as: 'alice' })).body;
    expect(tasks.results.map((t: { name: string; size: number }) => [t.name, t.size])).toEqual([
      ['Train', 3],
    ]);
  });

  it.each([
    ['COCO Keypoints 1.0', 'COCO Keypoints 1.0'],
    ['CVAT for images 1.1', 'CVAT 1.1'],
    ['CVAT for video 1.1', 'CVAT 1.1'],
    ['Datumaro 1.0', 'Datumaro 1.0'],
  ])('test_can_export_and_import_dataset_with_skeletons [%s → %s]', async (exporter, importer) => {
    // A project whose task has a skeleton.
    await h.seed({
      ...TEAM,
      projects: [
        {
          name: 'skel',
          owner: 'alice',
          org: 'acme',
          labels: [
            {
              name: 's1',
              type: 'skeleton',
              sublabels: [
                { name: '1', type: 'points' },
                { name: '2', type: 'points' },
              ],
            },
          ],
        },
      ],
      tasks: [{ name: 'Sk', owner: 'alice', project: 'skel', size: 2 }],
    });
    const s1 = (await h.get('/api/labels?project_id=1&org=acme', { as: 'alice' })).body.results[0];
    const point = (sub: { id: number }, x: number) => ({
      type: 'points',
      frame: 1,
      label_id: sub.id,
      points: [x, x + 1],
    });
    const skeleton = {
      type: 'skeleton',
      frame: 1,
      label_id: s1.id,
      points: [],
      elements: s1.sublabels.map(point),
    };
    const put = await h.put(
      '/api/tasks/1/annotations?org=acme',
      { version: 0, tags: [], shapes: [skeleton], tracks: [] },
      { as: 'alice' },
    );
    expect(put.status, put.text).toBe(200);
    await importProject(1, await exportDataset(1, exporter), importer);
  });

  it.each(['Datumaro 1.0', 'PASCAL VOC 1.1'])(
    'test_can_import_export_dataset_with_some_format [%s]',
    async (format) => {
      await world();
      await importProject(1, await exportDataset(1, format), format);
    },
  );

  it.each([
    ['CVAT 1.1', 'CVAT for images 1.1', 'annotations.xml', 'annotations.xml'],
    // The task here is of subset Train (CVAT's of none: `instances_default.json`).
    ['COCO 1.0', 'COCO 1.0', 'annotations/instances_Train.json', 'annotations.json'],
  ])('test_cant_import_annotations_as_project [2d, %s]', async (format, exporter, member, name) => {
    await world();
    // A task's annotations file exported alone, then given to a new project as its dataset.
    const started = await h.post(
      `/api/tasks/1/dataset/export?format=${encodeURIComponent(exporter)}&save_images=false&org=acme`,
      undefined,
      { as: 'alice' },
    );
    expect(started.status).toBe(202);
    const request = await ended(started.body.rq_id);
    const url = new URL(request.result_url as string);
    const zip = unzipSync(
      new Uint8Array(
        await (await h.send('GET', `${url.pathname}${url.search}&org=acme`, 'alice', {})).arrayBuffer(),
      ),
    );
    const annotations = zip[member] as Uint8Array;
    expect(annotations).toBeDefined();
    const project = await h.post(
      '/api/projects?org=acme',
      { name: `test_annotations_import_as_project ${format}` },
      { as: 'alice' },
    );
    expect(project.status).toBe(201);
    await expect(importProject(project.body.id, annotations, format, name)).rejects.toThrow(
      'Dataset file should be zip archive',
    );
  });
});
