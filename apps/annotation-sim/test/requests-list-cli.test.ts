/**
 * CVAT 2.73's `tests/python/rest_api/test_requests.py` `TestRequestsListFilters`, ported with its
 * assertions and run against the built CLI (support/cli-harness.ts). Its class fixture is rebuilt as
 * CVAT's makes it, by one user over the API: three projects and three tasks (two frames, jobs of one),
 * exports of every project, task and job but the first (backups, datasets, annotations; jobs in COCO and
 * YOLO), the first ones' files downloaded, the first task's backup imported again, an empty file imported
 * as a backup (a failed request), and a project and task of an organization's maintainer with their
 * dataset exports. Each simple filter must then list exactly the requests of the whole list whose field
 * has that value (`_test_can_use_simple_filter_for_object_list`: DeepDiff, order ignored).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { endedRequest, exportedFile, importedFile } from './support/cli-requests';

const cli = cliHarness();
let h: CliHarness;

const USER = 'user1';
const ORG_USER = 'maintainer1';
const ORG = 'org2';

type Rq = {
  id: string;
  status: string;
  operation: Record<string, unknown> & { type: string };
};

/** `field_lookups`: where each filter's field is in a request. */
const LOOKUPS: Record<string, (r: Rq) => unknown> = {
  target: (r) => r.operation.target,
  subresource: (r) => r.operation.type.split(':')[1],
  action: (r) => r.operation.type.split(':')[0],
  project_id: (r) => r.operation.project_id,
  task_id: (r) => r.operation.task_id,
  job_id: (r) => r.operation.job_id,
  format: (r) => r.operation.format,
  org_id: (r) => r.operation.org_id,
  status: (r) => r.status,
};

/** `get_paginated_collection` of `GET /api/requests` as `as`, with `query`. */
async function listAll(as: string, query: Record<string, string> = {}): Promise<Rq[]> {
  const out: Rq[] = [];
  for (let page = 1; ; page++) {
    const search = new URLSearchParams({ ...query, page: String(page), page_size: '10' });
    const res = await h.get(`/api/requests?${search}`, { as });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.results);
    if (!res.body.next) return out;
  }
}

/** A request polled until it ended (the manual clock moved past the export's duration). */
const ended = (as: string, rqId: string, org = '') => endedRequest(h, rqId, as, org);

/** `export_*(…, download_result=…)`: the export started and waited for; its file when downloaded. */
const exportOf = (as: string, path: string, query: Record<string, string>, download: boolean, org = '') =>
  exportedFile(h, path, as, { ...query, ...(org ? { org } : {}) }, download);

const dataset = (saveImages: boolean, format = 'CVAT for images 1.1') => ({
  format,
  save_images: String(saveImages),
});

/** `create_task(user, spec, data)`: the task, then its data (two files, jobs of one frame), waited for. */
async function createTask(as: string, name: string, org = ''): Promise<number> {
  const q = org ? `?org=${org}` : '';
  const task = await h.post(`/api/tasks${q}`, { name, labels: [{ name: 'car' }] }, { as });
  expect(task.status, task.text).toBe(201);
  const files = ['http://files.test/image_0.jpg', 'http://files.test/image_1.jpg'];
  const data = await h.post(
    `/api/tasks/${task.body.id}/data${q}`,
    { image_quality: 75, remote_files: files, segment_size: 1 },
    { as },
  );
  expect(data.status, data.text).toBe(202);
  expect((await ended(as, data.body.rq_id, org)).status).toBe('finished');
  return task.body.id;
}

/** `import_task_backup(user, file_content=…)`: the request, ended. */
const importTaskBackup = (bytes: Uint8Array) =>
  importedFile(h, '/api/tasks/backup', 'task_file', bytes, USER);

const projectIds: number[] = [];
const taskIds: number[] = [];
const jobIds: number[] = [];
let orgId = 0;

beforeAll(async () => {
  h = await cli.fresh({ forFile: true });
  const seeded = await h.seed({
    users: [{ username: USER }, { username: ORG_USER }],
    organizations: [{ slug: ORG, name: 'Org 2', owner: ORG_USER, members: [{ user: USER, role: 'worker' }] }],
  });
  orgId = seeded.organizations[ORG] as number;

  // fxt_resources_ids
  for (let i = 1; i <= 3; i++) {
    const p = await h.post(
      '/api/projects',
      { name: `Test project ${i}`, labels: [{ name: 'car' }] },
      { as: USER },
    );
    expect(p.status).toBe(201);
    projectIds.push(p.body.id);
  }
  for (let i = 1; i <= 3; i++) taskIds.push(await createTask(USER, `Test task ${i}`));
  for (const id of taskIds) {
    const jobs = await h.get(`/api/jobs?task_id=${id}`, { as: USER });
    jobIds.push(...jobs.body.results.map((j: { id: number }) => j.id));
  }

  // fxt_make_requests: exports of all but the first of each.
  for (const id of projectIds.slice(1)) {
    await exportOf(USER, `/api/projects/${id}/backup/export`, {}, false);
    await exportOf(USER, `/api/projects/${id}/dataset/export`, dataset(true), false);
    await exportOf(USER, `/api/projects/${id}/dataset/export`, dataset(false), false);
  }
  for (const id of taskIds.slice(1)) {
    await exportOf(USER, `/api/tasks/${id}/backup/export`, {}, false);
    await exportOf(USER, `/api/tasks/${id}/dataset/export`, dataset(true), false);
    await exportOf(USER, `/api/tasks/${id}/dataset/export`, dataset(false), false);
  }
  for (const id of jobIds.slice(1)) {
    await exportOf(USER, `/api/jobs/${id}/dataset/export`, dataset(true, 'COCO 1.0'), false);
    await exportOf(USER, `/api/jobs/${id}/dataset/export`, dataset(false, 'YOLO 1.1'), false);
  }
  // The first ones' files downloaded; the task's backup imported.
  const first = { project: projectIds[0], task: taskIds[0], job: jobIds[0] };
  for (const [resource, id] of Object.entries(first)) {
    for (const sub of ['dataset', 'annotations', 'backup']) {
      if (resource === 'job' && sub === 'backup') continue;
      const path = `/api/${resource}s/${id}/${sub === 'backup' ? 'backup' : 'dataset'}/export`;
      const data = await exportOf(USER, path, sub === 'backup' ? {} : dataset(sub === 'dataset'), true);
      expect(data?.length).toBeGreaterThan(0);
      if (resource === 'task' && sub === 'backup') {
        expect((await importTaskBackup(data as Uint8Array)).status).toBe('finished');
      }
    }
  }
  // A corrupted backup imported.
  expect((await importTaskBackup(new TextEncoder().encode('empty_file'))).status).toBe('failed');

  // fxt_org_resources
  const p = await h.post(
    `/api/projects?org=${ORG}`,
    { name: 'Org test project', labels: [{ name: 'car' }] },
    { as: ORG_USER },
  );
  expect(p.status).toBe(201);
  const t = await createTask(ORG_USER, 'Org test task', ORG);
  await exportOf(ORG_USER, `/api/projects/${p.body.id}/dataset/export`, dataset(true), false, ORG);
  await exportOf(ORG_USER, `/api/tasks/${t}/dataset/export`, dataset(true), false, ORG);
}, 120_000);

/** Order-free comparison of two request lists (DeepDiff with ignore_order). */
const sorted = (list: Rq[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

describe('TestRequestsListFilters (test_requests.py)', () => {
  it.each([
    ['subresource', ['annotations', 'dataset', 'backup']],
    ['action', ['create', 'export', 'import']],
    ['status', ['finished', 'failed']],
    ['project_id', []],
    ['task_id', []],
    ['job_id', []],
    ['format', ['CVAT for images 1.1', 'COCO 1.0', 'YOLO 1.1']],
    ['target', ['project', 'task', 'job']],
    ['org_id', []],
    ['org', []],
  ] as [string, string[]][])('test_can_use_simple_filter_for_object_list [%s]', async (filter, given) => {
    const samples = await listAll(USER);
    let values: unknown[] = given;
    if (filter === 'project_id') values = projectIds.slice(-1);
    else if (filter === 'task_id') values = taskIds.slice(-1);
    else if (filter === 'job_id') values = jobIds.slice(-1);
    else if (filter === 'org_id') values = [orgId];

    if (filter === 'org') {
      // `_get_field_samples` for `org`: the slug, and the samples of that organization's id.
      const expected = samples.filter((s) => s.operation.org_id === orgId);
      expect(sorted(await listAll(USER, { org: ORG }))).toEqual(sorted(expected));
      return;
    }
    const field = LOOKUPS[filter] as (r: Rq) => unknown;
    for (const value of values) {
      const expected = samples.filter((s) => field(s) === value);
      // The user's own requests are in the sandbox: none has the organization's id (CVAT compares as much).
      if (filter !== 'org_id') expect(expected.length, `samples with ${filter}=${value}`).toBeGreaterThan(0);
      expect(sorted(await listAll(USER, { [filter]: String(value) }))).toEqual(sorted(expected));
    }
  });
});
