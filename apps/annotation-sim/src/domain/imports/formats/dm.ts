/**
 * `import_dm_annotations` (`bindings.py`): a dataset as Datumaro reads a format's files (items with
 * their annotations, labels by category index) put into the target. Each item is matched to a frame
 * (`match_dm_item`, under the root `find_dataset_root` finds); groups of one are dropped and the others
 * numbered from 1 in the item; `score`, `rotation`, `occluded`, `outside`, `track_id` and a known
 * `source` are read from the attributes, every attribute (those too) offered to the label's specs by
 * name; a shape with a `track_id` and a `keyframe` attribute, in the formats that carry tracks, is a
 * track's shape, and a track keeps the shapes where its visibility changes (`_validate_track_shapes`).
 * A failure on an annotation is CVAT's `Image <id>: can't import annotation #<n> (<type>): <error>`.
 */
import { type Bitmap, maskArea } from '../../exports/masks';
import { pythonStr } from '../../python-json';
import {
  CVAT_IMPORT_ERROR,
  type ImportInstance,
  type NamedAttribute,
  type NamedShape,
  type NamedTrack,
  type NamedTrackedShape,
} from './instance';
import { castInt } from './py';
import { ImportError } from './types';

/** A Datumaro annotation: its type's name (`AnnotationType`), category index, group, attributes. */
export interface DmAnnotation {
  type: string;
  label: number | null;
  group: number;
  z_order: number;
  /** In the file's order; values as Python holds them (`str()` of each is what CVAT offers the specs). */
  attributes: Map<string, unknown>;
  points?: number[];
  /** A mask's pixels. */
  bitmap?: Bitmap;
  /** A skeleton's points (`Points` of one point each), or a point's visibility (0 absent, 1 hidden). */
  elements?: DmAnnotation[];
  visibility?: number[];
}

/** A Datumaro item: its id (a path without extension), its image's extension, its `frame` attribute. */
export interface DmItem {
  id: string;
  /** `item.media.ext` when the item has an image, else null. */
  ext: string | null;
  frame?: unknown;
  annotations: DmAnnotation[];
}

export interface DmDataset {
  /** Datumaro's format name (`coco_instances`, `voc`, `yolo`, …): tracks are read in some only. */
  format: string;
  /** The label categories' names, by index. */
  labels: string[];
  items: DmItem[];
}

const SHAPES: Record<string, string> = {
  bbox: 'rectangle',
  polygon: 'polygon',
  polyline: 'polyline',
  points: 'points',
  skeleton: 'skeleton',
  mask: 'mask',
  ellipse: 'ellipse',
};

const TRACK_FORMATS = new Set([
  'cvat',
  'datumaro',
  'sly_pointcloud',
  'coco',
  'coco_instances',
  'coco_person_keypoints',
  'voc',
  'yolo_ultralytics_detection',
  'yolo_ultralytics_segmentation',
  'yolo_ultralytics_oriented_boxes',
  'yolo_ultralytics_pose',
]);

const SOURCES = new Set(['auto', 'semi-auto', 'manual', 'file', 'consensus']);

/** `datumaro.util.cast(v, to_bool) is True`. */
function isTrue(v: unknown): boolean {
  if (v === true) return true;
  if (v === undefined || v === null || v === false) return false;
  return ['true', '1'].includes(pythonStr(v).toLowerCase());
}

/** `dict.pop(key, default)`. */
function pop(m: Map<string, unknown>, key: string): unknown {
  const v = m.get(key);
  m.delete(key);
  return v;
}

const attributesOf = (m: Map<string, unknown>): NamedAttribute[] =>
  [...m].map(([name, v]) => ({ name, value: pythonStr(v) }));

/** A known `source` popped from the attributes, else "file". */
function sourceOf(m: Map<string, unknown>): string {
  const s = m.get('source');
  if (typeof s === 'string' && SOURCES.has(s.toLowerCase())) {
    m.delete('source');
    return s.toLowerCase();
  }
  return 'file';
}

/**
 * `MaskConverter.dm_mask_to_cvat_rle`: the mask's row-major runs (zeros first) inside its tight box,
 * then the box's left, top, right, bottom.
 */
function cvatRle(m: Bitmap): number[] {
  // `get_bbox`'s box; `max(x, x + w - 1)` keeps an empty mask's box at its corner.
  const [x0, y0, w, h] = maskArea(m).bbox;
  const x1 = Math.max(x0, x0 + w - 1);
  const y1 = Math.max(y0, y0 + h - 1);
  const runs: number[] = [];
  let current = 0;
  let run = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const v = m.bits[x * m.h + y] ? 1 : 0;
      if (v !== current) {
        runs.push(run);
        run = 0;
        current = v;
      }
      run++;
    }
  }
  runs.push(run);
  return [...runs, x0, y0, x1, y1];
}

/** `Path(p).parts` of a POSIX path. */
const parts = (p: string) => p.split('/').filter((s) => s !== '' && s !== '.');
const dirname = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');

/** `find_dataset_root`: the prefix the target's frame paths have over the items' ids. */
function datasetRoot(ds: DmDataset, inst: ImportInstance): string | null {
  let longest: DmItem | undefined;
  for (const item of ds.items)
    if (!longest || parts(item.id).length > parts(longest.id).length) longest = item;
  if (!longest) return null;
  const frame = inst.matchFrameFuzzy(longest.id, false);
  if (frame === undefined) return null;
  const match = dirname(inst.frameInfo.get(frame)?.name ?? '');
  const cut = dirname(longest.id).length;
  let prefix = cut === 0 ? match : match.slice(0, -cut);
  if (prefix.endsWith('/')) prefix = prefix.slice(0, -1);
  return prefix;
}

/** `match_dm_item`: by path with the image's extension, without it, then the `frame` attribute or id. */
function matchItem(item: DmItem, inst: ImportInstance, rootHint: string | null): number {
  let frame: number | undefined;
  if (item.ext !== null) frame = inst.matchFrame(item.id + item.ext, rootHint);
  frame ??= inst.matchFrame(item.id, rootHint, false);
  frame ??= castInt(item.frame === undefined ? item.id : pythonStr(item.frame));
  if (frame === undefined || !inst.frameInfo.has(frame)) {
    throw new ImportError(CVAT_IMPORT_ERROR, `Could not match item id: '${item.id}' with any task frame`);
  }
  return frame;
}

/** The groups of more than one shape, numbered from 1 in the order of their Datumaro ids. */
function groupMap(anns: readonly DmAnnotation[]): Map<number, number> {
  const size = new Map<number, number>();
  for (const a of anns) if (SHAPES[a.type]) size.set(a.group, (size.get(a.group) ?? 0) + 1);
  const kept = [...size].filter(([g, n]) => n > 1 && g !== 0).map(([g]) => g);
  kept.sort((a, b) => a - b);
  return new Map([[0, 0], ...kept.map((g, i): [number, number] => [g, i + 1])]);
}

interface DmTrack {
  label: string;
  group: number;
  source: string;
  shapes: NamedTrackedShape[];
  elements: Map<number, NamedTrack>;
}

/** `_validate_track_shapes`: the shapes where visibility changes, each visible run closed by an outside one. */
function keyframeShapes(shapes: readonly NamedTrackedShape[], stop: number): NamedTrackedShape[] {
  const sorted = [...shapes].sort((a, b) => a.frame - b.frame);
  const keys: NamedTrackedShape[] = [];
  const close = (s: NamedTrackedShape) => {
    if (keys.length === 0 || keys[keys.length - 1]?.frame !== s.frame) keys.push({ ...s, keyframe: true });
    const outside = { ...s, outside: true, keyframe: true, frame: s.frame + 1 };
    keys.push(outside);
    return outside;
  };
  let prev: NamedTrackedShape | undefined;
  for (let shape of sorted) {
    if (prev && prev.frame === shape.frame) {
      throw new ImportError(
        'ValueError',
        `Found several track shapes on the same frame '${shape.frame}'. Track shape frames must be strictly ascending.`,
      );
    }
    const prevVisible = prev !== undefined && !prev.outside;
    const curVisible = !shape.outside;
    const gap = prevVisible && (prev as NamedTrackedShape).frame + 1 < shape.frame;
    if (gap) prev = close(prev as NamedTrackedShape);
    if (prevVisible !== curVisible || (curVisible && (gap || shape.keyframe))) {
      shape = { ...shape, keyframe: true };
      keys.push(shape);
    }
    prev = shape;
  }
  if (prev && !prev.outside && prev.frame + 1 <= stop) close(prev);
  return keys;
}

/** `import_dm_annotations` of a task's or job's dataset. */
export function importDmAnnotations(ds: DmDataset, inst: ImportInstance): void {
  if (ds.items.length === 0) return;
  const rootHint = datasetRoot(ds, inst);
  const tracks = new Map<string, DmTrack>();
  const labelName = (i: number | null) => {
    const name = i === null ? undefined : ds.labels[i];
    if (name === undefined) throw new ImportError('IndexError', 'list index out of range');
    return name;
  };
  let lastType = '';
  for (const item of ds.items) {
    const frame = matchItem(item, inst, rootHint);
    const groups = groupMap(item.annotations);
    item.annotations.forEach((ann, idx) => {
      lastType = ann.type;
      try {
        importOne(ann, frame, groups, { ds, inst, tracks, labelName });
      } catch (err) {
        const text = err instanceof ImportError ? err.message : String(err);
        throw new ImportError(
          CVAT_IMPORT_ERROR,
          `Image ${item.id}: can't import annotation #${idx} (${ann.type}): ${text}`,
        );
      }
    });
  }
  for (const t of tracks.values()) {
    const shapes = keyframeShapes(t.shapes, inst.stopFrame);
    // CVAT checks the type of the last annotation read, not the track's, before it filters the elements.
    const elements = [...t.elements.values()].map((e) =>
      lastType === 'skeleton' ? { ...e, shapes: keyframeShapes(e.shapes, inst.stopFrame) } : e,
    );
    if (shapes.length > 0 || elements.length > 0) {
      inst.addTrack({ label: t.label, group: t.group, source: t.source, shapes, elements });
    }
  }
}

interface Ctx {
  ds: DmDataset;
  inst: ImportInstance;
  tracks: Map<string, DmTrack>;
  labelName: (i: number | null) => string;
}

function importOne(ann: DmAnnotation, frame: number, groups: Map<number, number>, c: Ctx): void {
  if (ann.type !== 'label' && !SHAPES[ann.type]) return;
  if (ann.label === null) throw new ImportError(CVAT_IMPORT_ERROR, 'annotation has no label');
  const attrs = new Map(ann.attributes);
  const score = pop(attrs, 'score');
  const attributes = attributesOf(attrs);
  const group = groups.get(ann.group) ?? 0;
  if (ann.type === 'label') {
    c.inst.addTag({ frame, label: c.labelName(ann.label), group, source: 'file', attributes });
    return;
  }
  const type = SHAPES[ann.type] as string;
  let points: number[] = [];
  if (ann.type === 'mask') points = cvatRle(ann.bitmap as Bitmap);
  else if (ann.type === 'ellipse') {
    const [l = 0, t = 0, r = 0, b = 0] = ann.points ?? [];
    points = [(l + r) / 2, (t + b) / 2, r, t];
  } else if (ann.type !== 'skeleton') points = ann.points ?? [];
  const rotation = Number(pythonStr(pop(attrs, 'rotation') ?? 0));
  const occluded = isTrue(pop(attrs, 'occluded'));
  const keyframe = isTrue(attrs.get('keyframe'));
  const outside = isTrue(pop(attrs, 'outside'));
  const trackId = pop(attrs, 'track_id');
  const source = sourceOf(attrs);
  if (
    trackId === undefined ||
    trackId === null ||
    !attrs.has('keyframe') ||
    !TRACK_FORMATS.has(c.ds.format)
  ) {
    const elements: NamedShape[] = (ann.elements ?? []).map((e) => ({
      type: SHAPES[e.type] ?? 'points',
      frame,
      points: e.points ?? [],
      label: c.labelName(e.label),
      occluded: e.visibility?.[0] === 1,
      z_order: ann.z_order,
      group,
      source: sourceOf(new Map(e.attributes)),
      attributes: attributesOf(e.attributes),
      outside: e.visibility?.[0] === 0,
    }));
    c.inst.addShape({
      type,
      frame,
      points,
      label: c.labelName(ann.label),
      occluded,
      z_order: ann.z_order,
      group,
      source,
      rotation,
      attributes,
      elements,
      score: score === undefined || score === null ? 1 : Number(pythonStr(score)),
    });
    return;
  }
  const key = pythonStr(trackId);
  let track = c.tracks.get(key);
  if (!track) {
    track = { label: c.labelName(ann.label), group, source, shapes: [], elements: new Map() };
    c.tracks.set(key, track);
  }
  track.shapes.push({
    type,
    frame,
    occluded,
    outside,
    keyframe,
    points,
    z_order: ann.z_order,
    rotation,
    attributes,
  });
  for (const e of ann.elements ?? []) {
    const label = e.label ?? -1;
    let element = track.elements.get(label);
    if (!element) {
      element = { label: c.labelName(e.label), group: 0, source, shapes: [] };
      track.elements.set(label, element);
    }
    element.shapes.push({
      type: SHAPES[e.type] ?? 'points',
      frame,
      occluded: e.visibility?.[0] === 1,
      outside: e.visibility?.[0] === 0,
      keyframe,
      points: e.points ?? [],
      z_order: e.z_order,
      attributes: attributesOf(e.attributes),
    });
  }
}
