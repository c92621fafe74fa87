/**
 * A job's annotations as CVAT keeps them (`LabeledImage`, `LabeledShape`, `LabeledTrack`, `TrackedShape`
 * and their attribute values), stored in the form CVAT 2.73's `LabeledDataSerializer` writes them, keys
 * in its field order, so that a read is a straight serialisation of the stored rows.
 */

/** `AttributeValSerializer`: a spec id of the object's label and its value as text. */
export interface AttributeVal {
  spec_id: number;
  value: string;
}

/** A tag (`LabeledImage`). */
export interface TagRow {
  id: number;
  label_id: number;
  group: number | null;
  source: string;
  frame: number;
  attributes: readonly AttributeVal[];
}

/** The fields a shape and a track's keyframe share (`ShapeSerializer`). */
interface ShapeFields {
  type: string;
  occluded: boolean;
  outside: boolean;
  z_order: number;
  rotation: number;
  points: readonly number[];
}

/** A shape (`LabeledShape`); a skeleton's points are its `elements` (top-level shapes only). */
export interface ShapeRow extends ShapeFields {
  id: number;
  label_id: number;
  group: number | null;
  source: string;
  frame: number;
  attributes: readonly AttributeVal[];
  score: number;
  elements?: readonly ShapeRow[];
}

/** A track's keyframe (`TrackedShape`). */
export interface TrackedShapeRow extends ShapeFields {
  attributes: readonly AttributeVal[];
  id: number;
  frame: number;
}

/** A track (`LabeledTrack`); a skeleton track's points are its `elements` (top-level tracks only). */
export interface TrackRow {
  id: number;
  label_id: number;
  group: number | null;
  source: string;
  frame: number;
  attributes: readonly AttributeVal[];
  shapes: readonly TrackedShapeRow[];
  elements?: readonly TrackRow[];
}

/** One job's annotations: the row of the `annotations` table (keyed by the job's id). */
export interface JobAnnotationsRec {
  job_id: number;
  /** In frame order (ties by id), as CVAT reads them (`order_by("frame")`). */
  tags: readonly TagRow[];
  /** In frame order (ties by id). */
  shapes: readonly ShapeRow[];
  /** In id order (`order_by("id", "shape__frame")`). */
  tracks: readonly TrackRow[];
}

/** `LabeledData`: what the annotation endpoints answer and take. */
export interface LabeledData {
  version: number;
  tags: readonly TagRow[];
  shapes: readonly ShapeRow[];
  tracks: readonly TrackRow[];
  /** CVAT 2.73's `intervals`: always empty here (FIDELITY.md, Annotations). */
  intervals: readonly never[];
}

/** The id counters (`seq`) of each kind of object: one sequence per model across the instance. */
export const ANNOTATION_SEQ = {
  tag: 'labeledimage',
  shape: 'labeledshape',
  track: 'labeledtrack',
  trackedShape: 'trackedshape',
} as const;

/** A frozen empty list, shared by the rows that have no attributes or elements (most have none). */
export const NONE: readonly never[] = Object.freeze([]);

/** Whether `data` holds nothing (`JobAnnotation._data_is_empty`). */
export const isEmpty = (data: {
  tags: readonly unknown[];
  shapes: readonly unknown[];
  tracks: readonly unknown[];
}) => data.tags.length === 0 && data.shapes.length === 0 && data.tracks.length === 0;

/** A tag as a request gives it, checked by the edge (`id` null when not given). */
export type TagIn = Omit<TagRow, 'id'> & { id: number | null };
/** A track's keyframe as a request gives it. */
export type TrackedShapeIn = Omit<TrackedShapeRow, 'id'> & { id: number | null };
/** A shape as a request gives it. */
export type ShapeIn = Omit<ShapeRow, 'id' | 'elements'> & { id: number | null; elements?: ShapeIn[] };
/** A track as a request gives it. */
export type TrackIn = Omit<TrackRow, 'id' | 'shapes' | 'elements'> & {
  id: number | null;
  shapes: TrackedShapeIn[];
  elements?: TrackIn[];
};
/** `LabeledDataSerializer`'s validated data. */
export interface DataIn {
  version: number;
  tags: TagIn[];
  shapes: ShapeIn[];
  tracks: TrackIn[];
}

/**
 * What one change did, in the serialized form CVAT's `handle_annotations_change` receives (per action;
 * a PUT is the delete of what was there and the create of what it gave): what the events of the change
 * are made from.
 */
export interface AnnotationChange {
  action: 'create' | 'update' | 'delete';
  jobId: number;
  data: LabeledData;
  /** `update`: the job's tracks before the change. */
  storedTracks?: readonly TrackRow[];
}
