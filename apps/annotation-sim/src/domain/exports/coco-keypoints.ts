/**
 * "COCO Keypoints 1.0": Datumaro's `coco_person_keypoints` as CVAT 2.73 exports it (ellipses made
 * masks first): `annotations/person_keypoints_<subset>.json`. Categories are the top-level labels (ids
 * their place among all labels, from 1) with a skeleton's `keypoints` (its points' names in its
 * drawing's order) and `skeleton` (its joints). A frame's skeletons become annotations: first each
 * skeleton alone (ungrouped, or in a group with no box, polygon or mask: its points' box, no
 * segmentation), then each instance of a group that has a skeleton (the instance as COCO 1.0 writes
 * it, with the group's first skeleton's points); both with `keypoints` (`x, y, v` a point in the
 * category's order: 2 visible, 1 occluded, 0 outside) and `num_keypoints` (the points not outside).
 */

import type { LabelRec } from '../model';
import { type AttrConvert, type CocoTask, frameInstances } from './coco';
import type { FrameShape } from './frame-shapes';
import { pyFloat, round2 } from './py-format';
import { skeletonOf } from './skeletons';

const f = pyFloat;
const INSTANCE_TYPES = new Set(['rectangle', 'polygon', 'mask', 'ellipse']);

/** A skeleton's `keypoints` and `num_keypoints`, its points in `order` (their label ids). */
function keypoints(s: FrameShape, order: readonly number[]) {
  const out: unknown[] = [];
  let annotated = 0;
  for (const labelId of order) {
    const e = s.elements.find((x) => x.label_id === labelId);
    if (!e) continue;
    const v = e.outside ? 0 : e.occluded ? 1 : 2;
    if (v !== 0) annotated++;
    out.push(f(round2(e.points[0] ?? 0)), f(round2(e.points[1] ?? 0)), v);
  }
  return { keypoints: out, num_keypoints: annotated };
}

/** `Skeleton.get_bbox`: the box of its points that are not outside. */
function skeletonBox(s: FrameShape): number[] {
  const seen = s.elements.filter((e) => !e.outside);
  const xs = seen.map((e) => round2(e.points[0] ?? 0));
  const ys = seen.map((e) => round2(e.points[1] ?? 0));
  const x0 = xs.length > 0 ? Math.min(...xs) : 0;
  const y0 = ys.length > 0 ? Math.min(...ys) : 0;
  const x1 = xs.length > 0 ? Math.max(...xs) : 0;
  const y1 = ys.length > 0 ? Math.max(...ys) : 0;
  return [x0, y0, x1 - x0, y1 - y0];
}

/** Each skeleton's point label ids in its category's order. */
function pointOrders(labels: readonly LabelRec[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const l of labels.filter((x) => x.type === 'skeleton')) {
    const subs = labels.filter((s) => s.parent_id === l.id);
    const names = skeletonOf(l, subs).labels;
    out.set(
      l.id,
      names.map((n) => subs.find((s) => s.name === n)?.id ?? -1),
    );
  }
  return out;
}

/** The `person_keypoints` task of the COCO writer for an export's labels. */
export function keypointsTask(labels: readonly LabelRec[]): CocoTask {
  const orders = pointOrders(labels);
  return {
    name: 'person_keypoints',
    categories: (all) =>
      all.flatMap((l, i) => {
        if (l.parent_id !== null) return [];
        const skeleton =
          l.type === 'skeleton'
            ? skeletonOf(
                l,
                all.filter((s) => s.parent_id === l.id),
              )
            : undefined;
        return [
          {
            id: i + 1,
            name: l.name,
            supercategory: '',
            keypoints: skeleton?.labels ?? [],
            skeleton: skeleton?.joints ?? [],
          },
        ];
      }),
    annotate: (shapes, size, attrsOf: AttrConvert) => {
      const skeletons = shapes.filter((s) => s.type === 'skeleton');
      if (skeletons.length === 0) return [];
      const grouped = new Map<number, FrameShape[]>();
      for (const s of shapes) grouped.set(s.group ?? 0, [...(grouped.get(s.group ?? 0) ?? []), s]);
      const solitary = [...grouped]
        .sort(([a], [b]) => a - b)
        .flatMap(([g, group]) =>
          g === 0 || !group.some((s) => INSTANCE_TYPES.has(s.type))
            ? group.filter((s) => s.type === 'skeleton')
            : [],
        );
      const alone = solitary.map((s) => {
        const box = skeletonBox(s);
        return {
          id: 0,
          image_id: 0,
          category_id: s.label_id,
          segmentation: [],
          area: f((box[2] as number) * (box[3] as number)),
          bbox: box.map((n) => f(round2(n))),
          iscrowd: 0,
          // A skeleton's `keyframe`: whether any of its points is a track's keyframe there.
          attributes: {
            ...attrsOf(s),
            keyframe: s.elements.some((e) => e.trackId !== undefined && e.keyframe),
          },
          ...keypoints(s, orders.get(s.label_id) ?? []),
        };
      });
      const withInstance = frameInstances(shapes, size, attrsOf).flatMap(({ leader, annotation: a }) => {
        const g = leader.group ?? 0;
        const s = g === 0 ? undefined : skeletons.find((x) => x.group === g);
        return s ? [{ ...a, ...keypoints(s, orders.get(s.label_id) ?? []) }] : [];
      });
      return [...alone, ...withInstance];
    },
  };
}
