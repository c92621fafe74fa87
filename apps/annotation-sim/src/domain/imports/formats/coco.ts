/**
 * "COCO 1.0" and "COCO Keypoints 1.0" (`formats/coco.py`): Datumaro's `coco_instances` and
 * `coco_person_keypoints` readers, then `import_dm_annotations`. A bare `.json` is read as the default
 * subset's file; a zip's `annotations/instances_<subset>.json` (`person_keypoints_…`) files are read.
 * An image is an item named by its `file_name` without extension; an annotation is its polygons (one a
 * part), its mask (an RLE, compressed or not) or, without a segmentation, its box, all in one group (the
 * annotation's id); `attributes`, `score` and `is_crowd` are its attributes. A keypoints annotation is a
 * skeleton of its category's keypoints (`v`: 0 outside, 1 occluded, 2 visible); its box is dropped.
 */
import { emptyBitmap, fillRuns } from '../../exports/masks';
import { PyDict } from '../../python-json';
import { type DmAnnotation, type DmDataset, type DmItem, importDmAnnotations } from './dm';
import { extOf, ImportInstance, stripExt } from './instance';
import { attributeMap, get, type Json, list, missingField, num, parseJson } from './json';
import { datasetNotFoundAt, depthOf, extract, isZip } from './source-file';
import { type AnnotationImporter, ImportError, type ImportFile, type ImportTarget } from './types';

/** pycocotools' `rleFrString`: compressed counts back to run lengths. */
function rleCounts(s: string): number[] {
  const counts: number[] = [];
  let p = 0;
  while (p < s.length) {
    let x = 0;
    let k = 0;
    let more = true;
    while (more) {
      const c = s.charCodeAt(p) - 48;
      x |= (c & 0x1f) << (5 * k);
      more = (c & 0x20) !== 0;
      p++;
      k++;
      if (!more && c & 0x10) x |= -1 << (5 * k);
    }
    if (counts.length > 2) x += counts[counts.length - 2] as number;
    counts.push(x);
  }
  return counts;
}

/** A segmentation's mask over the `h`×`w` image (`counts` compressed or a list). */
export function rleBitmap(seg: Json, h: number, w: number) {
  const counts = get(seg, 'counts');
  const runs = typeof counts === 'string' ? rleCounts(counts) : (counts as Json[]).map(num);
  const m = emptyBitmap(w, h);
  fillRuns(m, runs);
  m.box = { x0: 0, y0: 0, x1: w - 1, y1: h - 1 };
  return m;
}

interface Task {
  /** Datumaro's format and the files' prefix. */
  format: 'coco_instances' | 'coco_person_keypoints';
  prefix: 'instances' | 'person_keypoints';
}

/** A category's label, and its keypoints' names (the skeleton's points), by category id. */
function categories(json: Json) {
  const cats = list(json, 'categories')
    .map((c) => ({ id: num(get(c, 'id')), name: String(get(c, 'name')), keypoints: get(c, 'keypoints') }))
    .sort((a, b) => a.id - b.id);
  const labels: string[] = [];
  const byId = new Map<number, { index: number; points: number[] }>();
  for (const c of cats) {
    const index = labels.push(c.name) - 1;
    const points = (Array.isArray(c.keypoints) ? c.keypoints : []).map((k) => labels.push(String(k)) - 1);
    byId.set(c.id, { index, points });
  }
  return { labels, byId };
}

/** One annotation's Datumaro annotations (`_load_annotations`). */
function annotationsOf(
  ann: Json,
  image: Json,
  cats: ReturnType<typeof categories>,
  task: Task,
): DmAnnotation[] {
  const id = num(get(ann, 'id'));
  const attributes = attributeMap(get(ann, 'attributes'));
  const score = get(ann, 'score');
  if (score !== undefined) attributes.set('score', score);
  const catId = num(get(ann, 'category_id'));
  // `_get_label_id`: no category (0) is no label; an id the categories do not have is undeclared.
  const cat = catId ? cats.byId.get(catId) : undefined;
  if (catId && !cat) {
    throw new ImportError('datumaro.components.errors.UndeclaredLabelError', `Undeclared label '${catId}'`);
  }
  const label = cat?.index ?? null;
  const iscrowd = get(ann, 'iscrowd');
  if (iscrowd === undefined) throw missingField('iscrowd');
  attributes.set('is_crowd', num(iscrowd) !== 0);
  const base = { label, group: id, z_order: 0, attributes };
  const out: DmAnnotation[] = [];
  if (task.format === 'coco_person_keypoints') {
    const kp = list(ann, 'keypoints').map(num);
    const elements: DmAnnotation[] = [];
    for (let i = 0; i * 3 < kp.length; i++) {
      elements.push({
        type: 'points',
        label: cat?.points[i] ?? null,
        group: 0,
        z_order: 0,
        attributes: new Map(),
        points: [kp[i * 3] as number, kp[i * 3 + 1] as number],
        visibility: [kp[i * 3 + 2] as number],
      });
    }
    out.push({ ...base, type: 'skeleton', elements });
  }
  const seg = get(ann, 'segmentation');
  const hasSeg =
    seg !== undefined &&
    seg !== null &&
    !(
      Array.isArray(seg) &&
      (seg.length === 0 || (seg.length === 1 && Array.isArray(seg[0]) && seg[0].length === 0))
    );
  if (hasSeg && Array.isArray(seg)) {
    for (const part of seg) out.push({ ...base, type: 'polygon', points: (part as Json[]).map(num) });
  } else if (hasSeg && seg instanceof PyDict) {
    const [h, w] = (get(seg, 'size') as Json[]).map(num) as [number, number];
    const ih = num(get(image, 'height'));
    const iw = num(get(image, 'width'));
    out.push({
      ...base,
      type: 'mask',
      bitmap: rleBitmap(seg, Number.isNaN(ih) ? h : ih, Number.isNaN(iw) ? w : iw),
    });
  } else if (task.format === 'coco_instances') {
    const [x = 0, y = 0, bw = 0, bh = 0] = list(ann, 'bbox').map(num);
    out.push({ ...base, type: 'bbox', points: [x, y, x + bw, y + bh] });
  }
  return out;
}

/** A file's items in its images' order, each with its annotations in the file's order. */
function fileItems(json: Json, task: Task, labels: string[]): DmItem[] {
  const cats = categories(json);
  if (labels.length === 0) labels.push(...cats.labels);
  const items = new Map<number, { item: DmItem; image: Json }>();
  for (const image of list(json, 'images')) {
    const fileName = String(get(image, 'file_name'));
    items.set(num(get(image, 'id')), {
      item: { id: stripExt(fileName), ext: extOf(fileName), annotations: [] },
      image,
    });
  }
  for (const ann of list(json, 'annotations')) {
    const at = items.get(num(get(ann, 'image_id')));
    if (at) at.item.annotations.push(...annotationsOf(ann, at.image, cats, task));
  }
  return [...items.values()].map((x) => x.item);
}

function readCoco(task: Task, file: ImportFile, target: ImportTarget) {
  const inst = new ImportInstance(target);
  const ds: DmDataset = { format: task.format, labels: [], items: [] };
  if (!isZip(file)) {
    const path = 'annotations/default.json';
    ds.items = fileItems(parseJson(Buffer.from(file.bytes).toString('utf8'), path), task, ds.labels);
  } else {
    const files = extract(file);
    const pattern = new RegExp(`(^|/)annotations/${task.prefix}_[^/]*\\.json$`);
    const found = files.paths.filter((p) => pattern.test(p) && depthOf(p) <= 5);
    if (found.length === 0) throw datasetNotFoundAt();
    for (const p of found) ds.items.push(...fileItems(parseJson(files.text(p), p), task, ds.labels));
  }
  importDmAnnotations(ds, inst);
  return inst.out;
}

export const COCO_IMPORTER: AnnotationImporter = {
  format: 'COCO 1.0',
  ext: 'JSON, ZIP',
  enabled: true,
  dimension: '2d',
  read: (file, target) => readCoco({ format: 'coco_instances', prefix: 'instances' }, file, target),
};

export const COCO_KEYPOINTS_IMPORTER: AnnotationImporter = {
  format: 'COCO Keypoints 1.0',
  ext: 'JSON, ZIP',
  enabled: true,
  dimension: '2d',
  read: (file, target) =>
    readCoco({ format: 'coco_person_keypoints', prefix: 'person_keypoints' }, file, target),
};
