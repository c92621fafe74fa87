/**
 * What an annotation importer is (CVAT's `dataset_manager/formats/*` importers, read by
 * `import_task_annotations`, `import_job_annotations` and `import_dataset_as_project`): it reads an
 * uploaded file, a zip or, for some formats, a bare file, and gives back annotations with the target's
 * label and attribute ids resolved, frames numbered in the task. Where the annotations go (added to a
 * job, a task, a project's new tasks) is the request's worker's business, not the importer's.
 */
import type { ShapeIn, TagIn, TrackIn } from '../../annotations/model';
import type { FrameRec, LabelRec } from '../../model';

/** The file as uploaded: its name (the format may look at the extension) and its bytes. */
export interface ImportFile {
  name: string;
  bytes: Uint8Array;
}

/** One frame an importer may place annotations on: its number in the task and data/meta's name and size. */
export interface ImportFrame {
  index: number;
  frame: FrameRec;
}

/** What an importer resolves names against. */
export interface ImportTarget {
  /** The target's labels, top labels and sublabels (a skeleton's points), with their attribute specs. */
  labels: readonly LabelRec[];
  /** The frames annotations may land on: a job's range, or the task's frames (deleted ones left out). */
  frames: readonly ImportFrame[];
}

/** What an importer gives back: new objects (`id` null), label and spec ids of the target. */
export interface ImportedAnnotations {
  tags: TagIn[];
  shapes: ShapeIn[];
  tracks: TrackIn[];
}

/**
 * An importer's refusal, as the failed request shows it: the exception class and message CVAT's worker
 * raises (`CvatImportError`, `DatasetImportError`, `zipfile.BadZipFile`, ...). The request's `message`
 * is `"<class>: <message>"` as `redis_handler` formats it; the worker changes nothing.
 */
export class ImportError extends Error {
  constructor(
    readonly exceptionClass: string,
    message: string,
  ) {
    super(message);
  }
}

/** One format's importer, as `/api/server/annotation/formats` lists it among `importers`. */
export interface AnnotationImporter {
  /** CVAT's display name, `COCO 1.0`. */
  format: string;
  /** `ext` as the formats list shows it: `JSON, ZIP`. */
  ext: string;
  /** Whether the format is listed as `enabled` (CVAT's `dimension` and `enabled` of the importer). */
  enabled: boolean;
  dimension: '2d' | '3d';
  /** Reads `file` against `target`; throws {@link ImportError} for what CVAT refuses. */
  read(file: ImportFile, target: ImportTarget): ImportedAnnotations;
}
