/**
 * CVAT 2.73's own REST tests of dataset, annotations and backup exports, ported with their assertions and
 * run against the built CLI (support/cli-harness.ts: one process for the file, a namespace a test):
 * `test_tasks.py` (`TestGetTaskDataset`, `TestTaskBackups`' exports), `test_jobs.py` (`TestJobDataset`),
 * `test_projects.py` (`TestImportExportDatasetProject`'s exports, `TestGetPostProjectBackup`'s tasks
 * without data). CVAT's fixtures (assets' tasks 8, 14, 21, 25, projects 4, 8, 11) are seeded here as
 * small worlds of the same shape: what each test needs of them is said where it is seeded.
 */
import { strFromU8, unzipSync } from 'fflate';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { exportedFile } from './support/cli-requests';
import { TEAM } from './support/harness';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

const ADMIN = 'admin';

/** `export_dataset` / `export_backup` of CVAT's tests: the archive downloaded. */
const exported = async (path: string, as: string, query: Record<string, string> = {}) =>
  (await exportedFile(h, path, as, query)) as Uint8Array;

/** `zipfile.is_zipfile` and `namelist()`: the members (fflate reads the archive, not the simulator). */
function namelist(archive: Uint8Array): string[] {
  expect(strFromU8(archive.subarray(0, 2))).toBe('PK');
  return Object.keys(unzipSync(archive));
}

const member = (archive: Uint8Array, name: string) => {
  const file = unzipSync(archive)[name];
  expect(file, `${name} in the archive`).toBeDefined();
  return strFromU8(file as Uint8Array);
};

/** `export_task_dataset(user, save_images=True, id=…, format=…)`. */
const exportTaskDataset = (id: number, as: string, format = 'CVAT for images 1.1') =>
  exported(`/api/tasks/${id}/dataset/export`, as, { format, save_images: 'true' });

const exportJobDataset = (id: number, as: string, format: string, saveImages: boolean) =>
  exported(`/api/jobs/${id}/dataset/export`, as, { format, save_images: String(saveImages) });

const exportProjectDataset = (id: number, as: string, format: string, saveImages = true) =>
  exported(`/api/projects/${id}/dataset/export`, as, { format, save_images: String(saveImages) });

/** The text of the first `<tag>` element inside `xml`. */
const xmlText = (xml: string, tag: string) => xml.match(new RegExp(`<${tag}>([^<]*)</${tag}>`))?.[1];
/** The contents of each `<tag>…</tag>` element (not nested in one of its kind). */
const xmlBlocks = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1] as string);

const SKELETON = [
  {
    name: 'skeleton',
    type: 'skeleton',
    sublabels: [
      { name: '1', type: 'points' },
      { name: '2', type: 'points' },
    ],
  },
];

describe('TestGetTaskDataset (test_tasks.py)', () => {
  it.each(['CVAT for images 1.1', 'CVAT for video 1.1', 'COCO Keypoints 1.0'])(
    'test_can_export_task_with_several_jobs [%s]',
    async (format) => {
      // Task 21: several jobs, a skeleton label.
      const seeded = await h.seed({
        ...TEAM,
        tasks: [{ name: 't21', owner: 'alice', size: 9, segment_size: 3, labels: SKELETON }],
      });
      const id = seeded.tasks.t21?.id as number;
      expect(seeded.tasks.t21?.jobs).toHaveLength(3);
      expect(namelist(await exportTaskDataset(id, ADMIN, format)).length).toBeGreaterThan(0);
    },
  );

  it('test_can_export_task_to_coco_format: a skeleton track put with frames out of order is kept from its first frame', async () => {
    // Task 8: labels 63 (a skeleton) with its points 64 and 65.
    const seeded = await h.seed({
      ...TEAM,
      tasks: [{ name: 't8', owner: 'alice', size: 10, labels: SKELETON }],
    });
    const id = seeded.tasks.t8?.id as number;
    const skeleton = (await h.get(`/api/labels?task_id=${id}`, { as: ADMIN })).body.results[0];
    const [p1, p2] = skeleton.sublabels as { id: number }[];
    const keyframe = (type: string, frame: number, outside: boolean, points: number[]) => ({
      type,
      frame,
      occluded: false,
      outside,
      z_order: 0,
      rotation: 0,
      points,
      attributes: [],
    });
    // These annotations contain incorrect frame numbers, to check that the server handles such cases.
    const annotations = {
      version: 0,
      tags: [],
      shapes: [],
      tracks: [
        {
          label_id: skeleton.id,
          frame: 1,
          group: 0,
          source: 'manual',
          shapes: [keyframe('skeleton', 1, false, [])],
          attributes: [],
          elements: [
            {
              label_id: p1?.id,
              frame: 0,
              group: 0,
              source: 'manual',
              shapes: [
                keyframe('points', 1, true, [74.14935096036425, 79.09960455479086]),
                keyframe('points', 7, false, [74.14935096036425, 79.09960455479086]),
              ],
              attributes: [],
            },
            {
              label_id: p2?.id,
              frame: 0,
              group: 0,
              source: 'manual',
              shapes: [keyframe('points', 0, false, [285.07319976630424, 353.51583641966175])],
              attributes: [],
            },
          ],
        },
      ],
    };
    const put = await h.put(`/api/tasks/${id}/annotations`, annotations, { as: ADMIN });
    expect(put.status, put.text).toBe(200);

    // Check that we can export the task's dataset.
    namelist(await exportTaskDataset(id, ADMIN, 'COCO Keypoints 1.0'));

    // Check that the server saved the track's annotations correctly.
    const read = await h.get(`/api/tasks/${id}/annotations`, { as: ADMIN });
    expect(read.status).toBe(200);
    expect(read.body.tracks[0].frame).toBe(0);
    expect(read.body.tracks[0].shapes[0].frame).toBe(0);
    expect(read.body.tracks[0].elements[0].shapes[0].frame).toBe(0);
  });

  it('test_can_download_task_with_special_chars_in_name', async () => {
    await h.seed(TEAM);
    // Control characters in file names may conflict with the Content-Disposition header's restrictions.
    const name = `test_special_chars_${Array.from({ length: 126 }, (_, i) => String.fromCharCode(i + 1)).join('')}_in_name`;
    const created = await h.post('/api/tasks', { name, labels: [{ name: 'cat' }] }, { as: ADMIN });
    expect(created.status, created.text).toBe(201);
    const data = await h.post(
      `/api/tasks/${created.body.id}/data`,
      { image_quality: 75, remote_files: ['http://example.test/image_0.jpg'] },
      { as: ADMIN },
    );
    expect(data.status, data.text).toBe(202);
    await h.advance('5s');
    const archive = await exportTaskDataset(created.body.id, ADMIN);
    expect(namelist(archive)).toContain('annotations.xml');
  });
});

describe('TestTaskBackups (test_tasks.py), exports', () => {
  it('test_can_export_backup [annotation]: the downloaded file is not empty', async () => {
    const seeded = await h.seed({
      ...TEAM,
      tasks: [{ name: 't', owner: 'alice', size: 4, labels: [{ name: 'a' }] }],
    });
    const backup = await exported(`/api/tasks/${seeded.tasks.t?.id}/backup/export`, ADMIN);
    expect(backup.length).toBeGreaterThan(0);
    expect(namelist(backup)).toEqual(expect.arrayContaining(['task.json', 'annotations.json']));
  });

  it('test_cannot_export_backup_for_task_without_data', async () => {
    const seeded = await h.seed({
      ...TEAM,
      tasks: [{ name: 'empty', owner: 'alice', labels: [{ name: 'a' }] }],
    });
    const res = await h.post(`/api/tasks/${seeded.tasks.empty?.id}/backup/export`, undefined, { as: ADMIN });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Backup of a task without data is not allowed');
  });
});

describe('TestJobDataset (test_jobs.py)', () => {
  /** A task of 12 frames in jobs of 4 owned by `bob` (not an admin, in no organization), with boxes on job 2. */
  async function taskWithShapes() {
    const seeded = await h.seed({
      ...TEAM,
      tasks: [
        {
          name: 'shapes',
          owner: 'bob',
          size: 12,
          segment_size: 4,
          labels: [{ name: 'car' }],
          annotations: {
            shapes: [
              { label: 'car', frame: 4, points: [1, 2, 10, 20] },
              { label: 'car', frame: 6, points: [3, 4, 30, 40] },
              { label: 'car', frame: 7, points: [5, 6, 50, 60] },
            ],
          },
        },
      ],
    });
    return seeded.tasks.shapes as { id: number; jobs: number[] };
  }

  it('test_non_admin_can_export_dataset', async () => {
    const task = await taskWithShapes();
    namelist(await exportJobDataset(task.jobs[1] as number, 'bob', 'CVAT for images 1.1', true));
  });

  it('test_non_admin_can_export_annotations', async () => {
    const task = await taskWithShapes();
    namelist(await exportJobDataset(task.jobs[1] as number, 'bob', 'CVAT for images 1.1', false));
  });

  it.each([
    ['COCO 1.0', 'annotations/instances_default.json'],
    ['CVAT for images 1.1', 'annotations.xml'],
  ])('test_exported_job_dataset_structure [%s]', async (format, file) => {
    const task = await taskWithShapes();
    const jid = task.jobs[1] as number;
    const job = (await h.get(`/api/jobs/${jid}`, { as: ADMIN })).body;
    const jobSize = job.stop_frame - job.start_frame + 1;
    const archive = await exportJobDataset(jid, ADMIN, format, true);
    expect(namelist(archive)).toHaveLength(jobSize + 1); // images + the annotation file
    const content = member(archive, file);
    if (format === 'COCO 1.0') {
      // _check_coco_job_annotations
      const coco = JSON.parse(content);
      expect(coco.annotations).toHaveLength(3);
      expect(coco.images).toHaveLength(jobSize);
      expect(12).toBeGreaterThan(coco.images.length);
      return;
    }
    // _check_cvat_for_images_job_annotations
    const meta = xmlBlocks(content, 'meta')[0] as string;
    expect(meta.trimStart().startsWith('<job>')).toBe(true);
    expect(xmlText(meta, 'id')).toBe(String(jid));
    expect(xmlText(meta, 'size')).toBe(String(jobSize));
    expect(xmlText(meta, 'start_frame')).toBe(String(job.start_frame));
    expect(xmlText(meta, 'stop_frame')).toBe(String(job.stop_frame));
    expect(xmlText(meta, 'mode')).toBe(job.mode);
    expect(xmlBlocks(meta, 'segments')[0]?.match(/<segment>/g)).toHaveLength(1);
    const images = [...content.matchAll(/<image id="(\d+)"/g)].map((m) => Number(m[1]));
    expect(images).toHaveLength(jobSize);
    expect(content.match(/<box /g)).toHaveLength(3);
    expect(images).toEqual(Array.from({ length: jobSize }, (_, i) => job.start_frame + i));
  });

  it.each([
    ['CVAT for images 1.1', 'annotations.xml'],
    ['CVAT for video 1.1', 'annotations.xml'],
    ['COCO Keypoints 1.0', 'annotations/person_keypoints_default.json'],
  ])('test_export_job_among_several_jobs_in_task [%s]', async (format, file) => {
    const seeded = await h.seed({
      ...TEAM,
      tasks: [{ name: 't25', owner: 'alice', size: 10, segment_size: 4, labels: SKELETON }],
    });
    const taskSize = 10;
    for (const jid of (seeded.tasks.t25 as { jobs: number[] }).jobs.slice(0, 2)) {
      const job = (await h.get(`/api/jobs/${jid}`, { as: ADMIN })).body;
      const jobSize = job.stop_frame - job.start_frame + 1;
      const archive = await exportJobDataset(jid, ADMIN, format, true);
      expect(namelist(archive)).toHaveLength(jobSize + 1);
      const content = member(archive, file);
      if (format.startsWith('COCO')) {
        const coco = JSON.parse(content);
        expect(coco.images).toHaveLength(jobSize);
        expect(taskSize).toBeGreaterThan(coco.images.length);
        continue;
      }
      const meta = xmlBlocks(content, 'meta')[0] as string;
      expect(meta.trimStart().startsWith('<job>')).toBe(true);
      expect(xmlText(meta, 'id')).toBe(String(jid));
      expect(xmlText(meta, 'size')).toBe(String(jobSize));
      expect(xmlText(meta, 'start_frame')).toBe(String(job.start_frame));
      expect(xmlText(meta, 'stop_frame')).toBe(String(job.stop_frame));
      expect(xmlText(meta, 'mode')).toBe(job.mode);
      expect(xmlBlocks(meta, 'segments')[0]?.match(/<segment>/g)).toHaveLength(1);
    }
  });
});

describe('TestImportExportDatasetProject (test_projects.py), exports', () => {
  // Project 8: two tasks with data; the CVAT for video meta lists both.
  it('test_exported_project_dataset_structure [CVAT for video 1.1]', async () => {
    const seeded = await h.seed({
      ...TEAM,
      projects: [{ name: 'p8', owner: 'alice', labels: [{ name: 'car' }] }],
      tasks: [
        { name: 'first', owner: 'alice', project: 'p8', size: 3 },
        { name: 'second', owner: 'alice', project: 'p8', size: 5 },
      ],
    });
    const pid = seeded.projects.p8 as number;
    const tasks = (await h.get(`/api/tasks?project_id=${pid}&sort=id`, { as: ADMIN })).body.results;
    const content = member(
      await exportProjectDataset(pid, ADMIN, 'CVAT for video 1.1', false),
      'annotations.xml',
    );
    const meta = xmlBlocks(content, 'meta')[0] as string;
    expect(meta.trimStart().startsWith('<project>')).toBe(true);
    expect(xmlText(meta, 'id')).toBe(String(pid));
    const taskMetas = xmlBlocks(content, 'task');
    expect(taskMetas).toHaveLength(tasks.length);
    for (const [i, task] of tasks.entries()) {
      const taskMeta = taskMetas[i] as string;
      expect(xmlText(taskMeta, 'id')).toBe(String(task.id));
      expect(xmlText(taskMeta, 'name')).toBe(task.name);
      expect(xmlText(taskMeta, 'size')).toBe(String(task.size));
      expect(xmlText(taskMeta, 'mode')).toBe(task.mode);
      // CVAT's project 8 holds video tasks, whose meta names the video in `source` (`meta_for_task`:
      // only `if hasattr(db_task.data, "video")`); the simulator's tasks are image tasks, which have none.
      expect(task.mode).toBe('annotation');
      expect(xmlText(taskMeta, 'source')).toBeUndefined();
    }
  });

  it('test_can_export_dataset_with_skeleton_labels_with_spaces', async () => {
    const seeded = await h.seed({
      ...TEAM,
      projects: [
        {
          name: 'p11',
          owner: 'alice',
          labels: [
            {
              name: 'skeleton with spaces',
              type: 'skeleton',
              sublabels: [
                { name: 'left hand', type: 'points' },
                { name: 'right hand', type: 'points' },
              ],
            },
          ],
        },
      ],
      tasks: [{ name: 't', owner: 'alice', project: 'p11', size: 2 }],
    });
    namelist(await exportProjectDataset(seeded.projects.p11 as number, ADMIN, 'COCO Keypoints 1.0'));
  });

  it('test_can_export_dataset_for_empty_project', async () => {
    const seeded = await h.seed({
      ...TEAM,
      projects: [{ name: 'empty', owner: 'alice', labels: [{ name: 'a' }] }],
    });
    namelist(await exportProjectDataset(seeded.projects.empty as number, ADMIN, 'COCO 1.0'));
  });

  it.each([
    ['some', 1],
    ['all', 0],
  ])('test_can_export_project_dataset_when_%s_tasks_have_no_data', async (_which, withData) => {
    const seeded = await h.seed({
      ...TEAM,
      projects: [{ name: 'p', owner: 'alice', labels: [{ name: 'a' }] }],
      tasks: withData ? [{ name: 'with data', owner: 'alice', project: 'p', size: 2 }] : [],
    });
    const pid = seeded.projects.p as number;
    for (const name of ['empty_task1', 'empty_task2']) {
      const res = await h.post('/api/tasks', { name, project_id: pid }, { as: ADMIN });
      expect(res.status, res.text).toBe(201);
    }
    namelist(await exportProjectDataset(pid, ADMIN, 'COCO 1.0'));
  });

  it.each([
    ['COCO 1.0', 'images/{subset}/'],
    ['CVAT for images 1.1', 'images/{subset}/'],
    ['CVAT for video 1.1', 'images/{subset}/'],
    ['Datumaro 1.0', 'images/{subset}/'],
    ['YOLO 1.1', 'obj_{subset}_data/'],
    ['Ultralytics YOLO Detection 1.0', 'images/{subset}/'],
  ])('test_creates_subfolders_for_subsets_on_export [%s]', async (format, template) => {
    const seeded = await h.seed({
      ...TEAM,
      projects: [{ name: 'p', owner: 'alice', labels: [{ name: 'a' }] }],
      tasks: [
        { name: 'a', owner: 'alice', project: 'p', size: 2, subset: 'Train' },
        { name: 'b', owner: 'alice', project: 'p', size: 2, subset: 'Validation' },
      ],
    });
    const names = namelist(await exportProjectDataset(seeded.projects.p as number, ADMIN, format));
    for (const subset of ['Train', 'Validation']) {
      const prefix = template.replace('{subset}', subset);
      expect(
        names.filter((f) => f.startsWith(prefix)).length,
        `No ${prefix} in ${names.join(', ')}`,
      ).toBeGreaterThan(0);
    }
  });
});

describe('TestGetPostProjectBackup (test_projects.py), tasks without data', () => {
  it.each([
    ['some', 1],
    ['all', 0],
  ])('test_can_get_backup_project_when_%s_tasks_have_no_data', async (_which, withData) => {
    const seeded = await h.seed({
      ...TEAM,
      projects: [{ name: 'p', owner: 'alice', org: 'acme', labels: [{ name: 'a' }] }],
      tasks: withData ? [{ name: 'with data', owner: 'alice', project: 'p', size: 2 }] : [],
    });
    const pid = seeded.projects.p as number;
    for (const name of ['empty_task1', 'empty_task2']) {
      const res = await h.post('/api/tasks?org=acme', { name, project_id: pid }, { as: ADMIN });
      expect(res.status, res.text).toBe(201);
    }
    const names = namelist(await exported(`/api/projects/${pid}/backup/export?org=acme`, ADMIN));
    expect(names).toContain('project.json');
    // Tasks without data are left out of a project's backup.
    expect(names.filter((n) => n.endsWith('task.json'))).toHaveLength(withData);
  });
});
