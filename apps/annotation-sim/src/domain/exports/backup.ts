/**
 * Backups as CVAT's `engine/backup.py` writes them. A task: `task.json` (the task's name, bug tracker,
 * status, subset and labels, then `version`, `data` and `jobs`), `annotations.json` (one entry a job,
 * `get_job_data` with labels and attributes named) and `data/` with the media (the simulator's
 * placeholder frames). A project: `project.json` and each task with data under `task_<index>/`.
 */
import type { AttributeVal, LabeledData } from '../annotations/model';
import { labelRead } from '../label-read';
import type { AnnotationState } from '../state';
import { frameName, placeholderJpeg } from './frames';
import { type ExportSource, type ExportTask, type LabelRec, readJob } from './source';
import { type ZipEntry, zipArchive } from './zip';

type Obj = Record<string, unknown>;

/** `_prepare_meta`: the keys a backup keeps of `obj`, in the serializer's order. */
function kept(obj: Obj, allowed: ReadonlySet<string>): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) if (allowed.has(k)) out[k] = v;
  return out;
}

const LABEL_FIELDS = new Set(['name', 'color', 'attributes', 'type', 'svg', 'sublabels']);
const ATTRIBUTE_FIELDS = new Set(['name', 'mutable', 'input_type', 'default_value', 'values']);

/**
 * Labels as `_prepare_label_meta` keeps them: `LabelSerializer`'s name, color, attributes (ids dropped),
 * type, svg (a skeleton's, its points named instead of numbered) and sublabels.
 */
function backupLabels(data: AnnotationState, labels: readonly LabelRec[]): Obj[] {
  const attributes = (l: Obj) => (l.attributes as Obj[]).map((a) => kept(a, ATTRIBUTE_FIELDS));
  return labels.map((rec) => {
    const label = kept(labelRead(data, rec), LABEL_FIELDS);
    const sublabels = (label.sublabels as Obj[]).map((s) => ({
      ...kept(s, LABEL_FIELDS),
      attributes: attributes(s),
    }));
    if (typeof label.svg === 'string') {
      label.svg = (label.sublabels as Obj[]).reduce<string>(
        (svg, s) => svg.replaceAll(`data-label-id="${s.id}"`, `data-label-name="${s.name}"`),
        label.svg,
      );
    }
    return { ...label, attributes: attributes(label), sublabels };
  });
}

/** `_prepare_annotations`' allowed fields, on export and restore: the others (ids among them) are dropped. */
export const ANNOTATION_FIELDS: ReadonlySet<string> = new Set([
  'label',
  'label_id',
  'type',
  'occluded',
  'outside',
  'z_order',
  'points',
  'rotation',
  'frame',
  'group',
  'source',
  'attributes',
  'shapes',
  'elements',
  'score',
  'start',
  'stop',
]);

/** `_get_label_mapping`: a label's name and its attributes' names, by id (sublabels by their own name). */
type LabelNames = Map<number, { name: string; attributes: Map<number, string> }>;

const labelNames = (labels: readonly LabelRec[]): LabelNames =>
  new Map(
    labels.map((l) => [l.id, { name: l.name, attributes: new Map(l.attributes.map((a) => [a.id, a.name])) }]),
  );

/**
 * One object as `_prepare_annotations` leaves it: `label_id` popped and `label` (its name) set last,
 * each attribute's `spec_id` popped and `name` set last, keyframes and elements alike, other fields dropped.
 */
function namedObject(o: Obj, names: LabelNames, labelId: number): Obj {
  const own = typeof o.label_id === 'number' ? o.label_id : labelId;
  const label = names.get(own);
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'label_id' || !ANNOTATION_FIELDS.has(k)) continue;
    if (k === 'attributes') {
      out[k] = (v as AttributeVal[]).map((a) => ({ value: a.value, name: label?.attributes.get(a.spec_id) }));
    } else if (k === 'shapes' || k === 'elements') {
      out[k] = (v as Obj[]).map((s) => namedObject(s, names, own));
    } else {
      out[k] = v;
    }
  }
  if (typeof o.label_id === 'number') out.label = label?.name;
  return out;
}

/** A job's `annotations.json` entry: `LabeledDataSerializer`'s data with labels and attributes named. */
function backupAnnotations(read: LabeledData, names: LabelNames): Obj {
  const named = (list: readonly object[]) => list.map((o) => namedObject(o as Obj, names, -1));
  return {
    version: read.version,
    tags: named(read.tags),
    shapes: named(read.shapes),
    tracks: named(read.tracks),
    intervals: named(read.intervals),
  };
}

/** `task.json`: the allowed task fields in TaskReadSerializer order, then `version`, `data`, `jobs`. */
function taskManifest(src: ExportSource, et: ExportTask): Record<string, unknown> {
  const t = et.task;
  return {
    name: t.name,
    bug_tracker: t.bug_tracker,
    status: t.status,
    subset: t.subset,
    labels: backupLabels(src.data, src.labels),
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

/** One task's files under `prefix` (`''` or `task_0/`); every job's annotations, in id order. */
function taskEntries(src: ExportSource, et: ExportTask, prefix: string): ZipEntry[] {
  const names = labelNames(src.allLabels);
  const annotations = et.jobs.map((j) => backupAnnotations(readJob(src.data, et.task, j), names));
  return [
    { name: `${prefix}task.json`, data: JSON.stringify(taskManifest(src, et)) },
    { name: `${prefix}annotations.json`, data: JSON.stringify(annotations) },
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
    return zipArchive(taskEntries(src, src.tasks[0] as ExportTask, ''), at);
  }
  const p = src.project;
  const manifest = {
    name: p.name,
    bug_tracker: p.bug_tracker,
    status: p.status,
    labels: backupLabels(src.data, src.labels),
    version: '1.0',
  };
  const entries: ZipEntry[] = [{ name: 'project.json', data: JSON.stringify(manifest) }];
  // Tasks without data are skipped (a task's own backup refuses them).
  src.tasks
    .filter((et) => et.task.data_id !== null)
    .forEach((et, i) => {
      entries.push(...taskEntries(src, et, `task_${i}/`));
    });
  return zipArchive(entries, at);
}
