/**
 * Backups as CVAT's `engine/backup.py` writes them. A task: `task.json` (the task's name, bug tracker,
 * status, subset and labels, then `version`, `data` and `jobs`), `annotations.json` (one entry a job)
 * and `data/` with the media (the simulator's placeholder frames). A project: `project.json` and each
 * task with data under `task_<index>/`.
 */
import { frameName, placeholderJpeg } from './frames';
import type { ExportSource, ExportTask, LabelRec } from './source';
import { type ZipEntry, zipArchive } from './zip';

/** Labels as the backup keeps them (LabelSerializer's fields a backup allows, in its order). */
const backupLabels = (labels: LabelRec[]) =>
  labels.map((l) => ({ name: l.name, color: l.color, attributes: [], type: l.type, svg: '', sublabels: [] }));

/** `task.json`: the allowed task fields in TaskReadSerializer order, then `version`, `data`, `jobs`. */
function taskManifest(et: ExportTask, labels: LabelRec[]): Record<string, unknown> {
  const t = et.task;
  return {
    name: t.name,
    bug_tracker: t.bug_tracker,
    status: t.status,
    subset: t.subset,
    labels: backupLabels(labels),
    version: '1.0',
    data: {
      chunk_size: t.data_chunk_size,
      image_quality: t.image_quality,
      start_frame: 0,
      stop_frame: Math.max(0, t.size - 1),
      chunk_type: 'imageset',
      storage_method: 'cache',
      storage: 'local',
      sorting_method: 'lexicographical',
      deleted_frames: [],
    },
    jobs: et.jobs.map((j) => ({
      start_frame: j.start_frame,
      stop_frame: j.stop_frame,
      status: j.status,
      type: j.type,
    })),
  };
}

/** One task's files under `prefix` (`''` or `task_0/`). */
function taskEntries(et: ExportTask, labels: LabelRec[], prefix: string): ZipEntry[] {
  return [
    { name: `${prefix}task.json`, data: JSON.stringify(taskManifest(et, labels)) },
    {
      name: `${prefix}annotations.json`,
      data: JSON.stringify(et.jobs.map(() => ({ version: 0, tags: [], shapes: [], tracks: [] }))),
    },
    { name: `${prefix}data/` },
    ...et.frames.map((f) => ({ name: `${prefix}data/${frameName(f)}`, data: placeholderJpeg() })),
  ];
}

/**
 * The backup archive of a task or project export source, made at `at`.
 *
 * @example backupArchive(exportSource(state, 'task', 5)!, Date.now())
 */
export function backupArchive(src: ExportSource, at: number): Uint8Array {
  if (src.target !== 'project' || !src.project) {
    return zipArchive(taskEntries(src.tasks[0] as ExportTask, src.labels, ''), at);
  }
  const p = src.project;
  const manifest = {
    name: p.name,
    bug_tracker: p.bug_tracker,
    status: p.status,
    labels: backupLabels(src.labels),
    version: '1.0',
  };
  const entries: ZipEntry[] = [{ name: 'project.json', data: JSON.stringify(manifest) }];
  // Tasks without data are skipped (a task's own backup refuses them).
  src.tasks
    .filter((et) => et.task.data_id !== null)
    .forEach((et, i) => {
      entries.push(...taskEntries(et, src.labels, `task_${i}/`));
    });
  return zipArchive(entries, at);
}
