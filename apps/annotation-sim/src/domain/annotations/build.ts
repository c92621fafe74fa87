/**
 * Turning checked input into stored rows as CVAT's `JobAnnotation._create` saves them: a track's frame
 * and first keyframe brought together (`_sync_frames`), tracks without keyframes dropped, ids given kept
 * and the others taken from each model's sequence in CVAT's order (a level's objects first, then each
 * object's elements; a level's tracks, then their keyframes, then each track's elements).
 */

import type { AnnotationState } from '../state';
import { nextId } from '../state';
import {
  ANNOTATION_SEQ,
  type AttributeVal,
  type DataIn,
  NONE,
  type ShapeIn,
  type ShapeRow,
  type TagIn,
  type TagRow,
  type TrackedShapeIn,
  type TrackedShapeRow,
  type TrackIn,
  type TrackRow,
} from './model';

const attrs = (list: readonly AttributeVal[]): readonly AttributeVal[] =>
  list.length === 0 ? NONE : list.map((a) => ({ spec_id: a.spec_id, value: a.value }));

/** `_correct_frame_of_tracked_shapes`: a track starts at its first keyframe. */
function correctFrames(track: TrackIn): void {
  let first: TrackedShapeIn | undefined;
  for (const s of track.shapes) if (first === undefined || s.frame < first.frame) first = s;
  if (first === undefined) return;
  if (track.frame < first.frame) {
    // A skeleton track's first keyframe moves; another track gains a hidden keyframe where it starts.
    if (first.type === 'skeleton') first.frame = track.frame;
    else track.shapes.push({ ...first, frame: track.frame, outside: true, id: null });
  } else if (first.frame < track.frame) track.frame = first.frame;
}

/** `_sync_frames`: elements start no later than their skeleton track, which starts with its first element. */
function syncFrames(tracks: TrackIn[], parent: TrackIn | undefined): void {
  if (tracks.length === 0) return;
  let min = (tracks[0] as TrackIn).frame;
  for (const t of tracks) {
    if (parent && parent.frame < t.frame) t.frame = parent.frame;
    correctFrames(t);
    if (t.frame < min) min = t.frame;
  }
  if (!parent || min >= parent.frame) return;
  parent.frame = min;
  const first = parent.shapes[0];
  if (first) first.frame = min;
  for (const t of tracks) {
    if (parent.frame < t.frame) {
      t.frame = parent.frame;
      correctFrames(t);
    }
  }
}

/**
 * The tracks CVAT keeps of `tracks` (those with keyframes), their frames synchronised, level by level
 * (it changes the input objects, which the edge made for this request).
 */
export function prepareTracks(tracks: TrackIn[], parent?: TrackIn): TrackIn[] {
  syncFrames(tracks, parent);
  const kept = tracks.filter((t) => t.shapes.length > 0);
  for (const t of kept) if (t.elements !== undefined) t.elements = prepareTracks(t.elements, t);
  return kept;
}

/** Ids as the database gives them: the one given, else the model's next. */
class IdSource {
  constructor(private readonly state: AnnotationState) {}
  take(seq: string, given: number | null): number {
    if (given === null) return nextId(this.state, seq);
    // Chosen: the sequence moves past an id given, so that a later one is never taken twice (FIDELITY.md).
    if (given > (this.state.seq[seq] ?? 0)) this.state.seq[seq] = given;
    return given;
  }
}

function buildTags(ids: IdSource, tags: readonly TagIn[]): TagRow[] {
  return tags.map((t) => ({
    id: ids.take(ANNOTATION_SEQ.tag, t.id),
    label_id: t.label_id,
    group: t.group,
    source: t.source,
    frame: t.frame,
    attributes: attrs(t.attributes),
  }));
}

function shapeRow(s: ShapeIn, id: number, top: boolean): ShapeRow {
  const row: ShapeRow = {
    type: s.type,
    occluded: s.occluded,
    outside: s.outside,
    z_order: s.z_order,
    rotation: s.rotation,
    // A skeleton has no points of its own: CVAT reads them back empty.
    points: s.type === 'skeleton' || s.points.length === 0 ? NONE : s.points,
    id,
    label_id: s.label_id,
    group: s.group,
    source: s.source,
    frame: s.frame,
    attributes: attrs(s.attributes),
    score: s.score,
  };
  if (top) row.elements = NONE;
  return row;
}

function buildShapes(ids: IdSource, shapes: readonly ShapeIn[], top: boolean): ShapeRow[] {
  const rows = shapes.map((s) => shapeRow(s, ids.take(ANNOTATION_SEQ.shape, s.id), top));
  shapes.forEach((s, i) => {
    const elements = s.elements ?? [];
    if (elements.length > 0) (rows[i] as ShapeRow).elements = buildShapes(ids, elements, false);
  });
  return rows;
}

function trackedShapeRow(s: TrackedShapeIn, id: number): TrackedShapeRow {
  return {
    type: s.type,
    occluded: s.occluded,
    outside: s.outside,
    z_order: s.z_order,
    rotation: s.rotation,
    points: s.type === 'skeleton' || s.points.length === 0 ? NONE : s.points,
    attributes: attrs(s.attributes),
    id,
    frame: s.frame,
  };
}

function buildTracks(ids: IdSource, tracks: readonly TrackIn[], top: boolean): TrackRow[] {
  const trackIds = tracks.map((t) => ids.take(ANNOTATION_SEQ.track, t.id));
  const shapeIds = tracks.map((t) => t.shapes.map((s) => ids.take(ANNOTATION_SEQ.trackedShape, s.id)));
  return tracks.map((t, i) => {
    const own = shapeIds[i] as number[];
    const row: TrackRow = {
      id: trackIds[i] as number,
      label_id: t.label_id,
      group: t.group,
      source: t.source,
      frame: t.frame,
      attributes: attrs(t.attributes),
      shapes: t.shapes.map((s, j) => trackedShapeRow(s, own[j] as number)).sort((a, b) => a.frame - b.frame),
    };
    if (top) row.elements = (t.elements ?? []).length > 0 ? buildTracks(ids, t.elements ?? [], false) : NONE;
    return row;
  });
}

/** The rows of `data` with their ids (tags, then shapes, then tracks, as `_create` saves them). */
export function buildRows(
  state: AnnotationState,
  data: DataIn,
): { tags: TagRow[]; shapes: ShapeRow[]; tracks: TrackRow[] } {
  const ids = new IdSource(state);
  const tags = buildTags(ids, data.tags);
  const shapes = buildShapes(ids, data.shapes, true);
  const tracks = buildTracks(ids, data.tracks, true);
  return { tags, shapes, tracks };
}
