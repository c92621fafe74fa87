/**
 * CVAT 2.73's `test_requests.py` `TestGetRequests` legacy-id tests of imports and exports, ported with
 * their assertions and run against the built CLI (support/cli-harness.ts):
 * `test_can_retrieve_dataset_import_export_requests_using_legacy_ids` (an export in CVAT for images 1.1,
 * then its file imported back in CVAT 1.1: a project's dataset, a task's or job's annotations) and
 * `test_can_retrieve_backup_import_export_requests_using_legacy_ids`. Each request is read by its legacy
 * id (`import:task-5-annotations`, `import:project-1-dataset`, `import:task-<uuid>-backup`, …) and must be
 * the one request the list's filters find (`_test_get_request_using_legacy_id`).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { exportedFile, importedFile } from './support/cli-requests';
import { TEAM } from './support/harness';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

const OWNER = 'alice';
const EXPORT_FORMAT = 'CVAT for images 1.1';
const IMPORT_FORMAT = 'CVAT 1.1';

/** Project 1 (labels car, person) with task 1 (4 frames, jobs of 2) holding a box and a tag. */
async function world() {
  const seeded = await h.seed({
    ...TEAM,
    projects: [{ name: 'p', owner: OWNER, labels: [{ name: 'car' }, { name: 'person' }] }],
    tasks: [
      {
        name: 't',
        owner: OWNER,
        project: 'p',
        size: 4,
        segment_size: 2,
        annotations: {
          tags: [{ label: 'person', frame: 0 }],
          shapes: [{ label: 'car', frame: 1, points: [1, 2, 30, 40] }],
        },
      },
    ],
  });
  const users = (await h.get('/api/users?username=alice', { as: 'admin' })).body.results;
  return {
    ids: {
      project: seeded.projects.p as number,
      task: seeded.tasks.t?.id as number,
      job: seeded.tasks.t?.jobs[0] as number,
    },
    ownerId: users[0].id as number,
  };
}

/** `export_*(owner, …)`: the file downloaded. */
const exported = async (path: string, query: Record<string, string> = {}) =>
  (await exportedFile(h, path, OWNER, query)) as Uint8Array;

/** `import_resource` as the owner: the request, which must have finished. */
async function imported(path: string, field: string, bytes: Uint8Array) {
  const rq = await importedFile(h, path, field, bytes, OWNER);
  expect(rq.status, rq.message).toBe('finished');
  return rq as { id: string };
}

/** `_test_get_request_using_legacy_id`: the one request the filters list is the one the legacy id reads. */
async function expectLegacy(legacy: string, filters: Record<string, string>) {
  const list = await h.get(`/api/requests?${new URLSearchParams(filters)}`, { as: OWNER });
  expect(list.status).toBe(200);
  expect(list.body.results).toHaveLength(1);
  const byLegacy = await h.get(`/api/requests/${encodeURIComponent(legacy)}`, { as: OWNER });
  expect(byLegacy.status, byLegacy.text).toBe(200);
  expect(byLegacy.body.id).toBe(list.body.results[0].id);
}

describe('TestGetRequests (test_requests.py), legacy ids of imports and exports', () => {
  const cases = (['project', 'task', 'job'] as const).flatMap((target) =>
    [true, false].map((saveImages) => [target, saveImages] as const),
  );
  it.each(cases)(
    'test_can_retrieve_dataset_import_export_requests_using_legacy_ids [%s, save_images=%s]',
    async (target, saveImages) => {
      const { ids, ownerId } = await world();
      const id = ids[target];
      const subresource = saveImages ? 'dataset' : 'annotations';
      const file = await exported(`/api/${target}s/${id}/dataset/export`, {
        format: EXPORT_FORMAT,
        save_images: String(saveImages),
      });
      const format = EXPORT_FORMAT.replace(/ /g, '_').replace(/\./g, '@');
      await expectLegacy(`export:${target}-${id}-${subresource}-in-${format}-format-by-${ownerId}`, {
        target,
        action: 'export',
        subresource,
      });

      // Importing annotations into a project, or a dataset into a task or job, is not what CVAT tests.
      if ((!saveImages && target === 'project') || (saveImages && target !== 'project')) return;
      const importPath =
        target === 'project'
          ? `/api/projects/${id}/dataset?format=${encodeURIComponent(IMPORT_FORMAT)}`
          : `/api/${target}s/${id}/annotations?format=${encodeURIComponent(IMPORT_FORMAT)}`;
      await imported(importPath, target === 'project' ? 'dataset_file' : 'annotation_file', file);
      await expectLegacy(`import:${target}-${id}-${subresource}`, { target, action: 'import', subresource });
    },
  );

  it.each(['project', 'task'] as const)(
    'test_can_retrieve_backup_import_export_requests_using_legacy_ids [%s]',
    async (target) => {
      const { ids, ownerId } = await world();
      const backup = await exported(`/api/${target}s/${ids[target]}/backup/export`);
      await expectLegacy(`export:${target}-${ids[target]}-backup-by-${ownerId}`, {
        target,
        action: 'export',
        subresource: 'backup',
      });
      const rq = await imported(`/api/${target}s/backup`, `${target}_file`, backup);
      const uuid = new URLSearchParams(rq.id).get('id');
      await expectLegacy(`import:${target}-${uuid}-backup`, {
        target,
        action: 'import',
        subresource: 'backup',
      });
    },
  );
});
