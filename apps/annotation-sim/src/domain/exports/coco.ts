/**
 * "COCO 1.0": Datumaro's `coco_instances` as CVAT 2.73 exports it (`formats/coco.py`: ellipses made
 * masks first): one `annotations/instances_<subset>.json` a subset (a task or job: its subset or
 * `default`), keys `licenses, info, categories, images, annotations`, compact JSON as orjson writes it
 * (Python floats keep their `.0`). Categories are every label, sublabels included (`supercategory` the
 * skeleton's name), ids from 1; images every frame, ids from 1 across the export. Each frame's
 * rectangles, polygons, masks and ellipses (track shapes on it included) become instances: an object
 * alone, or the objects of one `group` together (Datumaro's `find_instances`), their leader the one of
 * largest area; an instance with a mask of its leader's label is a crowd (`iscrowd` 1, run lengths),
 * else its polygons; a box alone has no segmentation and its box's area. Tags, points, polylines,
 * cuboids and skeletons are not COCO instances and are not written.
 */

import type { FrameRec, LabelRec } from '../model';
import { type PyFloat, pythonFloatRepr } from '../python-json';
import { type FrameShape, objectsByFrame } from './frame-shapes';
import {
  type Bitmap,
  cvatMaskBitmap,
  ellipseBitmap,
  emptyBitmap,
  maskArea,
  orInto,
  polygonBitmap,
  polygonRuns,
  runLengths,
} from './masks';
import { compactJson, pyFloat, round2 } from './py-format';
import { datasetTasks, type ExportSource, type ExportTask, exportFrame, subsetOf } from './source';

/** One subset's instances file: its path in the archive, the subset and the JSON text in pieces. */
export interface CocoFile {
  path: string;
  subset: string;
  json: Iterable<string>;
}

const dumps = compactJson;
const f = pyFloat;

type Box = [number, number, number, number];

/** An object as Datumaro sees it: its kind, leader area, box, and its polygon or mask. */
interface Part {
  shape: FrameShape;
  kind: 'bbox' | 'polygon' | 'mask';
  box: Box;
  area: number;
  polygon?: number[];
  mask?: Bitmap;
}

function partOf(s: FrameShape, w: number, h: number): Part | undefined {
  if (s.type === 'rectangle') {
    const [x0, y0, x1, y1] = s.points.map(round2) as Box;
    return { shape: s, kind: 'bbox', box: [x0, y0, x1 - x0, y1 - y0], area: (x1 - x0) * (y1 - y0) };
  }
  if (s.type === 'polygon') {
    const polygon = s.points.map(round2);
    const xs = polygon.filter((_, i) => i % 2 === 0);
    const ys = polygon.filter((_, i) => i % 2 === 1);
    const x0 = Math.min(...xs);
    const y0 = Math.min(...ys);
    const box: Box = [x0, y0, Math.max(...xs) - x0, Math.max(...ys) - y0];
    // Polygon.get_area: pycocotools' area over the polygon's own box.
    const runs = polygonRuns(polygon, Math.ceil(box[1] + box[3]), Math.ceil(box[0] + box[2]));
    const area = runs.reduce((n, c, i) => (i % 2 === 1 ? n + c : n), 0);
    return { shape: s, kind: 'polygon', box, area, polygon };
  }
  if (s.type === 'mask' || s.type === 'ellipse') {
    const mask =
      s.type === 'mask' ? cvatMaskBitmap(s.points, w, h) : ellipseBitmap(s.points, s.rotation, w, h);
    const m = maskArea(mask);
    return { shape: s, kind: 'mask', box: m.bbox, area: m.area, mask };
  }
  return undefined;
}

/** `max_bbox`: the box around boxes. */
function maxBox(boxes: Box[]): Box {
  const x0 = Math.min(...boxes.map((b) => b[0]));
  const y0 = Math.min(...boxes.map((b) => b[1]));
  const x1 = Math.max(...boxes.map((b) => b[0] + b[2]));
  const y1 = Math.max(...boxes.map((b) => b[1] + b[3]));
  return [x0, y0, x1 - x0, y1 - y0];
}

/** Datumaro's `find_instances`: ungrouped objects alone, then each group's together, by group id. */
function instances(parts: Part[]): Part[][] {
  const sorted = [...parts].sort((a, b) => (a.shape.group ?? 0) - (b.shape.group ?? 0));
  const out: Part[][] = [];
  for (const p of sorted) {
    const g = p.shape.group ?? 0;
    const last = out[out.length - 1];
    if (g !== 0 && last && (last[0]?.shape.group ?? 0) === g) last.push(p);
    else out.push([p]);
  }
  return out;
}

/** The attribute values Datumaro keeps of an object (`_convert_attrs`, then occluded, rotation, track). */
export type AttrConvert = (s: FrameShape) => Record<string, unknown>;

/** A group's leader: its part of largest area (the first of equal ones). */
const leaderOf = (group: Part[]) => group.reduce((best, p) => (p.area > best.area ? p : best));

/** One instance as `convert_instance` writes it (its ids filled in later). */
function instanceAnnotation(group: Part[], leader: Part, w: number, h: number, attrsOf: AttrConvert) {
  // A box alone (most instances): its own box and area, no segmentation.
  if (group.length === 1 && leader.kind === 'bbox') {
    return cocoAnnotation(leader, [], leader.box[2] * leader.box[3], leader.box, false, attrsOf);
  }
  const boxes = group.filter((p) => p.kind === 'bbox');
  const bbox = maxBox((boxes.length > 0 ? boxes : group).map((p) => p.box));
  const polygons = group.filter((p) => p.kind === 'polygon');
  const masks = group.filter((p) => p.kind === 'mask');
  const crowd = masks.length > 0;
  let segmentation: unknown = [];
  let area = bbox[2] * bbox[3];
  if (crowd) {
    // One mask alone (most crowds) is its own union.
    const only = polygons.length === 0 && masks.length === 1 ? masks[0]?.mask : undefined;
    const merged = only ?? emptyBitmap(w, h);
    if (!only) for (const p of polygons) orInto(merged, polygonBitmap(p.polygon ?? [], w, h));
    if (!only) for (const p of masks) if (p.mask) orInto(merged, p.mask);
    segmentation = { counts: runLengths(merged), size: [h, w] };
    area = maskArea(merged).area;
  } else if (polygons.length === 1) {
    // One polygon (most instances): its run lengths' area, without an image-sized bitmap.
    const polygon = polygons[0]?.polygon ?? [];
    segmentation = [polygon.map(f)];
    area = polygonRuns(polygon, h, w).reduce((n, c, i) => (i % 2 === 1 ? n + c : n), 0);
  } else if (polygons.length > 1) {
    segmentation = polygons.map((p) => (p.polygon ?? []).map(f));
    const merged = emptyBitmap(w, h);
    for (const p of polygons) orInto(merged, polygonBitmap(p.polygon ?? [], w, h));
    area = maskArea(merged).area;
  }
  return cocoAnnotation(leader, segmentation, area, bbox, crowd, attrsOf);
}

/** The annotation's fields in `convert_instance`'s order; `id` and `image_id` set by the writer. */
function cocoAnnotation(
  leader: Part,
  segmentation: unknown,
  area: number,
  bbox: Box,
  crowd: boolean,
  attrsOf: AttrConvert,
) {
  return {
    id: 0,
    image_id: 0,
    category_id: leader.shape.label_id,
    segmentation,
    area: f(area),
    bbox: [f(round2(bbox[0])), f(round2(bbox[1])), f(round2(bbox[2])), f(round2(bbox[3]))],
    iscrowd: crowd ? 1 : 0,
    attributes: attrsOf(leader.shape),
  };
}

/**
 * `_convert_attrs` and what CVAT adds: each spec of the object's label, its value or the default
 * (`number` a float, `checkbox` a bool), then `occluded`, a box's or ellipse's `rotation`, a track
 * shape's `track_id` and `keyframe`.
 */
export function attributeConverter(labels: readonly LabelRec[]): AttrConvert {
  const byId = new Map(labels.map((l) => [l.id, l]));
  return (s) => {
    const out: Record<string, unknown> = {};
    for (const spec of byId.get(s.label_id)?.attributes ?? []) {
      const value = s.attributes.find((a) => a.spec_id === spec.id)?.value ?? spec.default_value;
      out[spec.name] =
        spec.input_type === 'number'
          ? f(Number.parseFloat(value))
          : spec.input_type === 'checkbox'
            ? value.toLowerCase() === 'true'
            : value;
    }
    out.occluded = s.occluded;
    if (s.type === 'rectangle' || s.type === 'ellipse') out.rotation = f(s.rotation);
    if (s.trackId !== undefined) {
      out.track_id = s.trackId;
      out.keyframe = s.keyframe === true;
    }
    return out;
  };
}

/** What a COCO task writes: its file's name, its categories, and the annotations of one frame. */
export interface CocoTask {
  name: string;
  categories(labels: readonly LabelRec[]): unknown[];
  /** A frame's annotations in order, `category_id` still a label id, without ids. */
  annotate(shapes: readonly FrameShape[], size: FrameRec, attrsOf: AttrConvert): Record<string, unknown>[];
  /** One annotation's JSON, ids set (`compactJson` of it when the task has no writer of its own). */
  json?(a: Record<string, unknown>): string;
}

/** One subset's `images`, then its `annotations`, each a pass over its frames (nothing kept between). */
function* subsetJson(
  head: string,
  tasks: readonly ExportTask[],
  imageIds: Map<string, number>,
  categoryOf: Map<number, number>,
  attrsOf: AttrConvert,
  task: CocoTask,
): Generator<string> {
  yield `${head.slice(0, -1)},"images":[`;
  const frames = function* () {
    for (const et of tasks) for (const frame of et.frames) yield { et, frame, fr: exportFrame(et, frame) };
  };
  const idOf = (name: string) => imageIds.get(name.replace(/\.[^./]*$/, '')) as number;
  let first = true;
  for (const { fr } of frames()) {
    const key = fr.name.replace(/\.[^./]*$/, '');
    if (!imageIds.has(key)) imageIds.set(key, imageIds.size + 1);
    const image = {
      id: idOf(fr.name),
      width: fr.width,
      height: fr.height,
      file_name: fr.name,
      license: 0,
      flickr_url: '',
      coco_url: '',
      date_captured: 0,
    };
    yield `${first ? '' : ','}${dumps(image)}`;
    first = false;
  }
  yield '],"annotations":[';
  let annId = 0;
  for (const et of tasks) {
    const last = et.frames[et.frames.length - 1] ?? -1;
    const objects = objectsByFrame(et.annotations, last + 1);
    for (const frame of et.frames) {
      const fr = exportFrame(et, frame);
      const written: string[] = [];
      const shapes = objects.get(frame)?.shapes;
      if (!shapes) continue;
      const imageId = idOf(fr.name);
      for (const a of task.annotate(shapes, fr, attrsOf)) {
        // Fresh objects of this frame's: their ids are set in place, keeping the writer's key order.
        a.id = ++annId;
        a.image_id = imageId;
        a.category_id = categoryOf.get(a.category_id as number) ?? 0;
        written.push(task.json ? task.json(a) : dumps(a));
      }
      if (written.length > 0) yield `${annId > written.length ? ',' : ''}${written.join(',')}`;
    }
  }
  yield ']}';
}

/** The frame's instances (`_InstancesExporter.save_annotations`). */
export function frameInstances(shapes: readonly FrameShape[], size: FrameRec, attrsOf: AttrConvert) {
  const parts = shapes
    .map((s) => partOf(s, size.width, size.height))
    .filter((p): p is Part => p !== undefined);
  return instances(parts).map((group) => {
    const leader = leaderOf(group);
    return {
      annotation: instanceAnnotation(group, leader, size.width, size.height, attrsOf),
      leader: leader.shape,
    };
  });
}

/** `coco_instances`: every label a category (`supercategory` a sublabel's skeleton). */
export const INSTANCES: CocoTask = {
  name: 'instances',
  categories: (labels) => {
    const byId = new Map(labels.map((l) => [l.id, l]));
    return labels.map((l, i) => ({
      id: i + 1,
      name: l.name,
      supercategory: l.parent_id === null ? '' : (byId.get(l.parent_id)?.name ?? ''),
    }));
  },
  annotate: (shapes, size, attrsOf) => frameInstances(shapes, size, attrsOf).map((i) => i.annotation),
  json: instanceJson,
};

/**
 * `compactJson` of an instance as {@link cocoAnnotation} makes it, written field by field: the same text
 * without walking each object (what a COCO export of many boxes spends most on; a test holds the two equal).
 */
export function instanceJson(a: Record<string, unknown>): string {
  const seg = a.segmentation;
  const segJson = Array.isArray(seg) && seg.length === 0 ? '[]' : dumps(seg);
  const [x, y, w, h] = a.bbox as PyFloat[];
  const bbox = `${repr(x?.value)},${repr(y?.value)},${repr(w?.value)},${repr(h?.value)}`;
  return (
    `{"id":${a.id},"image_id":${a.image_id},"category_id":${a.category_id},"segmentation":${segJson},` +
    `"area":${repr((a.area as PyFloat).value)},"bbox":[${bbox}],"iscrowd":${a.iscrowd},` +
    `"attributes":${dumps(a.attributes)}}`
  );
}

const repr = (v: number | undefined) => pythonFloatRepr(v as number);

/**
 * The files of a COCO task (`instances`, `person_keypoints`) of an export, one a subset in the order
 * the subsets first appear.
 *
 * @example cocoFiles(exportSource(state, 'task', 5)!, INSTANCES) // [{ path: 'annotations/instances_default.json', … }]
 */
export function cocoFiles(src: ExportSource, task: CocoTask): CocoFile[] {
  const subsets = new Map<string, ExportTask[]>();
  for (const et of datasetTasks(src)) {
    const subset = subsetOf(et.task);
    subsets.set(subset, [...(subsets.get(subset) ?? []), et]);
  }
  if (subsets.size === 0) subsets.set('default', []);
  const categoryOf = new Map(src.allLabels.map((l, i) => [l.id, i + 1]));
  const head = dumps({
    licenses: [{ name: '', id: 0, url: '' }],
    info: { contributor: '', date_created: '', description: '', url: '', version: '', year: '' },
    categories: task.categories(src.allLabels),
  });
  const attrsOf = attributeConverter(src.allLabels);
  // Datumaro's image ids are the exporter's: one numbering across subsets, by item id (name without extension).
  const imageIds = new Map<string, number>();
  return [...subsets].map(([subset, tasks]) => ({
    path: `annotations/${task.name}_${subset}.json`,
    subset,
    json: subsetJson(head, tasks, imageIds, categoryOf, attrsOf, task),
  }));
}
