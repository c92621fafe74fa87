/**
 * The objects an export draws on each frame, as CVAT's `AnnotationManager.to_shapes` gives them to the
 * exporters: a frame's shapes, then the shapes its tracks have there (`TrackManager
 * .get_interpolated_shapes`: each keyframe, the frames between two keyframes interpolated, the last
 * keyframe propagated to the end unless it is outside), the track's group, source and attributes
 * joined to each. Rectangles, ellipses, cuboids, skeletons and single points move linearly (rotation
 * by the shorter arc, as CVAT's `find_angle_diff`); polygons, polylines and points of equal counts
 * linearly too, other point sets and masks keep the earlier keyframe's (FIDELITY.md, Exports).
 */
import {
  type AttributeVal,
  NONE,
  type ShapeRow,
  type TagRow,
  type TrackedShapeRow,
  type TrackRow,
} from '../annotations/model';

/** A shape on one frame: a labeled shape, or a track's shape there (`trackId` its index in the export). */
export interface FrameShape {
  type: string;
  frame: number;
  label_id: number;
  group: number | null;
  source: string;
  occluded: boolean;
  outside: boolean;
  z_order: number;
  rotation: number;
  points: readonly number[];
  attributes: readonly AttributeVal[];
  elements: readonly FrameShape[];
  /** Set for a track's shape: the track's index, and whether the frame is one of its keyframes. */
  trackId?: number;
  keyframe?: boolean;
}

/** CVAT's `find_angle_diff` (its quirk kept: a half turn back is read as one degree). */
function angleDiff(right: number, left: number): number {
  let d = right - left;
  d = ((((d + 180) % 360) + 360) % 360) - 180;
  if (Math.abs(d) >= 180) d = d > 0 ? 360 + Math.abs(d) : 1;
  return d;
}

/** Python's `%` of a float by 360 (the result takes the divisor's sign). */
const mod360 = (v: number) => ((v % 360) + 360) % 360;

const LINEAR = new Set(['rectangle', 'ellipse', 'cuboid', 'skeleton']);

/** The points between keyframes `a` and `b` at `offset` (0…1), or undefined when `a`'s are kept. */
function between(a: TrackedShapeRow, b: TrackedShapeRow, offset: number): number[] | undefined {
  const moves =
    LINEAR.has(a.type) ||
    ((a.type === 'polygon' || a.type === 'polyline' || a.type === 'points') &&
      a.points.length === b.points.length);
  if (!moves || a.points.length !== b.points.length) return undefined;
  return a.points.map((p, i) => p + ((b.points[i] as number) - p) * offset);
}

/** A track's shape on one frame, a keyframe or not. */
export type TrackFrameShape = TrackedShapeRow & { keyframe: boolean };

/**
 * A track's shapes over frames `0 … end-1` (`get_interpolated_shapes`): its keyframes (outside ones
 * too), the frames between, and after the last keyframe unless it is outside (`includeOutside`: also
 * the interpolated outside ones).
 */
export function interpolated(track: TrackRow, end: number, includeOutside = false): TrackFrameShape[] {
  const out: TrackFrameShape[] = [];
  const keys = [...track.shapes].sort((x, y) => x.frame - y.frame);
  let prev: TrackedShapeRow | undefined;
  const copy = (s: TrackedShapeRow, frame: number, points?: number[], rotation?: number) => ({
    ...s,
    frame,
    keyframe: false,
    points: points ?? s.points,
    rotation: rotation ?? s.rotation,
  });
  for (const key of keys) {
    if (prev && (!prev.outside || includeOutside)) {
      const distance = key.frame - prev.frame;
      for (let f = prev.frame + 1; f < key.frame && f < end; f++) {
        const offset = (f - prev.frame) / distance;
        const linear = LINEAR.has(prev.type);
        const rotation = linear
          ? mod360(prev.rotation + angleDiff(key.rotation, prev.rotation) * offset + 360)
          : undefined;
        out.push(copy(prev, f, between(prev, key, offset), rotation));
      }
    }
    if (key.frame >= end) break;
    out.push({ ...key, keyframe: true });
    prev = key;
  }
  if (prev && (!prev.outside || includeOutside)) {
    for (let f = prev.frame + 1; f < end; f++) out.push(copy(prev, f));
  }
  return out.filter(
    (s) => track.frame <= s.frame && s.frame < end && (s.keyframe || !s.outside || includeOutside),
  );
}

/** A track's shapes as frame shapes, its elements' on the same frames (a skeleton's points). */
function trackFrameShapes(
  track: TrackRow,
  index: number,
  end: number,
  includeOutside: boolean,
): FrameShape[] {
  const shapes = interpolated(track, end, includeOutside).map(
    (s): FrameShape => ({
      type: s.type,
      frame: s.frame,
      label_id: track.label_id,
      group: track.group,
      source: track.source,
      occluded: s.occluded,
      outside: s.outside,
      z_order: s.z_order,
      rotation: s.rotation,
      points: s.points,
      attributes: [...s.attributes, ...track.attributes],
      elements: [],
      trackId: index,
      keyframe: s.keyframe,
    }),
  );
  if (!track.elements || track.elements.length === 0) return shapes;
  const frames = new Set(shapes.map((s) => s.frame));
  const elementShapes = track.elements.map((e, i) =>
    trackFrameShapes(e, i, end, true).filter((s) => frames.has(s.frame)),
  );
  const withElements = shapes.map((s) => ({
    ...s,
    elements: elementShapes.flatMap((list) => list.filter((e) => e.frame === s.frame)),
  }));
  return includeOutside
    ? withElements
    : withElements.filter((s) => s.elements.length === 0 || !s.elements.every((e) => e.outside));
}

/** A labeled shape as a frame shape. */
function shapeOf(s: ShapeRow): FrameShape {
  return {
    type: s.type,
    frame: s.frame,
    label_id: s.label_id,
    group: s.group,
    source: s.source,
    occluded: s.occluded,
    outside: s.outside,
    z_order: s.z_order,
    rotation: s.rotation,
    points: s.points,
    attributes: s.attributes,
    // Most shapes have no elements: they share one empty list.
    elements: s.elements && s.elements.length > 0 ? s.elements.map(shapeOf) : NONE,
  };
}

/** What one frame holds: its shapes (a stable sort by `z_order`), its tags. */
export interface FrameObjects {
  shapes: FrameShape[];
  tags: TagRow[];
}

/**
 * The objects of frames `0 … end-1` by frame, outside track shapes left out (CVAT for images,
 * Datumaro-based formats): shapes before track shapes, tracks in their order, then sorted by `z_order`.
 */
export function objectsByFrame(
  data: { tags: readonly TagRow[]; shapes: readonly ShapeRow[]; tracks: readonly TrackRow[] },
  end: number,
): Map<number, FrameObjects> {
  const byFrame = new Map<number, FrameObjects>();
  const at = (frame: number) => {
    let o = byFrame.get(frame);
    if (!o) {
      o = { shapes: [], tags: [] };
      byFrame.set(frame, o);
    }
    return o;
  };
  for (const s of data.shapes) if (s.frame < end) at(s.frame).shapes.push(shapeOf(s));
  data.tracks.forEach((t, i) => {
    for (const s of trackFrameShapes(t, i, end, false)) if (!s.outside) at(s.frame).shapes.push(s);
  });
  for (const t of data.tags) if (t.frame < end) at(t.frame).tags.push(t);
  for (const o of byFrame.values()) o.shapes.sort((a, b) => a.z_order - b.z_order);
  return byFrame;
}
