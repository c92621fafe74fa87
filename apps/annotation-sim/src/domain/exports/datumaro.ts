/**
 * "Datumaro 1.0": Datumaro's own format as CVAT 2.73 exports it (`formats/datumaro.py`, cvat-ai's
 * Datumaro `DatumaroConverter`): one `annotations/<subset>.json` a subset, `{"info": {}, "categories":
 * {"label": …, "points": …}, "items": […]}` in compact JSON (Python floats keep their `.0`). Categories:
 * every label (sublabels with their skeleton as `parent`), the attribute names of all labels and
 * `occluded`, sorted; a skeleton's points and joints from its SVG. An item a frame: `id` (its name
 * without the extension), its annotations (tags, then the shapes by `z_order`), `attr.frame`, `image`
 * (`path`, `size` [h, w]). Boxes as `bbox` [x, y, w, h], polygons, polylines, points (with
 * visibility), ellipses (their box's corners), masks (COCO's compressed run lengths over the image),
 * skeletons (every point `x, y, visibility` in the category's order, absent ones `0.0, 0.0, 0`);
 * cuboids are not written (CVAT makes no 2D cuboid for Datumaro).
 */

import type { TagRow } from '../annotations/model';
import type { LabelRec } from '../model';
import { type AttrConvert, attributeConverter } from './coco';
import type { FrameShape } from './frame-shapes';
import { objectsByFrame } from './frame-shapes';
import { cvatMaskBitmap, rleString, runLengths } from './masks';
import { compactJson, pyFloat, round2 } from './py-format';
import { skeletonOf } from './skeletons';
import { datasetTasks, type ExportSource, type ExportTask, exportFrame, subsetOf } from './source';
import type { ZipEntry } from './zip';

const dumps = compactJson;
const f = pyFloat;

/** The categories block, and each label's index and each skeleton's point order. */
function categories(labels: readonly LabelRec[]) {
  const index = new Map(labels.map((l, i) => [l.id, i]));
  const names = new Set<string>(['occluded']);
  for (const l of labels) for (const a of l.attributes) names.add(a.name);
  const byId = new Map(labels.map((l) => [l.id, l]));
  const points = labels
    .filter((l) => l.type === 'skeleton')
    .map((l) => ({
      label_id: index.get(l.id) as number,
      ...skeletonOf(
        l,
        labels.filter((s) => s.parent_id === l.id),
      ),
    }));
  const block = {
    label: {
      labels: labels.map((l) => ({
        name: l.name,
        parent: l.parent_id === null ? '' : (byId.get(l.parent_id)?.name ?? ''),
        attributes: [],
      })),
      attributes: [...names].sort(),
    },
    points: { items: points },
  };
  return { block, index, order: new Map(points.map((p) => [p.label_id, p.labels])) };
}

/** `_convert_attrs` of a tag: each spec of its label, typed as for shapes. */
function tagAttributes(labels: readonly LabelRec[], t: TagRow): Record<string, unknown> {
  const all = attributeConverter(labels)({ label_id: t.label_id, attributes: t.attributes } as FrameShape);
  const { occluded: _occluded, ...rest } = all;
  return rest;
}

interface Context {
  index: Map<number, number>;
  order: Map<number, string[]>;
  attrsOf: AttrConvert;
  names: Map<number, string>;
}

/** One shape as Datumaro writes it, or undefined for a cuboid. */
function shapeJson(c: Context, s: FrameShape, size: { width: number; height: number }) {
  const head = {
    id: 0,
    type: '',
    attributes: c.attrsOf(s),
    group: s.group ?? 0,
    label_id: c.index.get(s.label_id) ?? 0,
  };
  const points = (p: readonly number[]) => p.map((v) => f(round2(v)));
  switch (s.type) {
    case 'rectangle': {
      const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = s.points.map(round2);
      return { ...head, type: 'bbox', z_order: s.z_order, bbox: [x0, y0, x1 - x0, y1 - y0].map(f) };
    }
    case 'polygon':
    case 'polyline':
      return { ...head, type: s.type, points: points(s.points), z_order: s.z_order };
    case 'points':
      return {
        ...head,
        type: 'points',
        points: points(s.points),
        z_order: s.z_order,
        visibility: s.points.filter((_, i) => i % 2 === 0).map(() => 2),
      };
    case 'ellipse': {
      const [cx = 0, cy = 0, right = 0, top = 0] = s.points;
      const box = [cx - (right - cx), top, right, cy + (cy - top)];
      return { ...head, type: 'ellipse', points: points(box), z_order: s.z_order };
    }
    case 'mask': {
      const counts = runLengths(cvatMaskBitmap(s.points, size.width, size.height));
      return {
        ...head,
        type: 'mask',
        rle: { counts: rleString(counts), size: [size.height, size.width] },
        z_order: s.z_order,
      };
    }
    case 'skeleton':
      return skeletonJson(c, s, head);
    default:
      return undefined;
  }
}

/** `_convert_skeleton_object`: the points in the category's order, the skeleton's `keyframe` from its points'. */
function skeletonJson(c: Context, s: FrameShape, head: Record<string, unknown>) {
  const order = c.order.get(c.index.get(s.label_id) ?? -1) ?? [];
  const points: unknown[] = order.flatMap(() => [f(0), f(0), 0]);
  const attributes: Record<string, unknown>[] = order.map(() => ({}));
  let keyframe = false;
  for (const e of s.elements) {
    const at = order.indexOf(c.names.get(e.label_id) ?? '');
    if (at < 0) continue;
    const { occluded: _o, rotation: _r, ...attrs } = c.attrsOf(e);
    if (attrs.keyframe === true) keyframe = true;
    const visibility = e.outside ? 0 : e.occluded ? 1 : 2;
    points.splice(at * 3, 3, f(round2(e.points[0] ?? 0)), f(round2(e.points[1] ?? 0)), visibility);
    attributes[at] = attrs;
  }
  const { attributes: own, ...rest } = head as { attributes: Record<string, unknown> };
  return {
    ...rest,
    attributes: { ...own, keyframe },
    type: 'skeleton',
    points,
    points_attributes: attributes,
  };
}

/**
 * The annotation files of a Datumaro export, one a subset (without the images).
 *
 * @example [...datumaroFiles(exportSource(state, 'task', 5)!)].map((e) => e.name)
 */
export function* datumaroFiles(src: ExportSource): Generator<ZipEntry> {
  const labels = src.allLabels;
  const cats = categories(labels);
  const c: Context = {
    index: cats.index,
    order: cats.order,
    attrsOf: attributeConverter(labels),
    names: new Map(labels.map((l) => [l.id, l.name])),
  };
  const subsets = new Map<string, ExportTask[]>();
  for (const et of datasetTasks(src))
    subsets.set(subsetOf(et.task), [...(subsets.get(subsetOf(et.task)) ?? []), et]);
  if (subsets.size === 0) subsets.set('default', []);
  const head = dumps({ info: {}, categories: cats.block });
  for (const [subset, tasks] of subsets) {
    yield {
      name: `annotations/${subset}.json`,
      data: subsetJson(head, tasks, labels, c, src.target === 'project'),
    };
  }
}

/** A subset's file; a project's frames numbered on from the subset's earlier tasks (`abs_frame_id`). */
function* subsetJson(
  head: string,
  tasks: readonly ExportTask[],
  labels: readonly LabelRec[],
  c: Context,
  project: boolean,
) {
  let offset = 0;
  yield `${head.slice(0, -1)},"items":[`;
  let first = true;
  for (const et of tasks) {
    const last = et.frames[et.frames.length - 1] ?? -1;
    const objects = objectsByFrame(et.annotations, last + 1);
    for (const frame of et.frames) {
      const fr = exportFrame(et, frame);
      const o = objects.get(frame);
      const annotations = [
        ...(o?.tags ?? []).map((t) => ({
          id: 0,
          type: 'label',
          attributes: tagAttributes(labels, t),
          group: t.group ?? 0,
          label_id: c.index.get(t.label_id) ?? 0,
        })),
        ...(o?.shapes ?? []).map((s) => shapeJson(c, s, fr)).filter((a) => a !== undefined),
      ];
      const item = {
        id: fr.name.replace(/\.[^./]*$/, ''),
        annotations,
        attr: { frame: project ? offset + frame : frame },
        image: { path: fr.name, size: [fr.height, fr.width] },
      };
      yield `${first ? '' : ','}${dumps(item)}`;
      first = false;
    }
    offset += et.task.size;
  }
  yield ']}';
}
