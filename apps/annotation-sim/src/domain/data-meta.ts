/**
 * A task's media as CVAT describes it: the frames an upload makes (names in CVAT's order, sizes from
 * the images' headers) and `DataMetaRead` of a task or of a job's segment.
 */
import { lazy } from '@sims/sim-core';
import { FRAME_HEIGHT, FRAME_WIDTH, frameName } from './exports/frames';
import type { FrameRec, JobRec, TaskRec } from './model';
import { jobsOfTask } from './relations';
import type { AnnotationState } from './state';

/** A file an upload names, with the image size its header declared when the simulator saw its bytes. */
export interface UploadedFile {
  name: string;
  width?: number;
  height?: number;
}

/** `DataRequest.sorting_method`. */
type SortingMethod = 'lexicographical' | 'natural' | 'predefined' | 'random';

/** A UTF-16 unit remapped so that units compare in code point order (surrogates above U+E000–U+FFFF). */
const codePointRank = (unit: number) =>
  unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;

/** Python's `sorted` of text: code point order, where `<` compares UTF-16 units (no copy of either). */
function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/**
 * CVAT's `natsort.os_sorted`, approximated: digit runs compare as numbers. Made on first use: building an
 * ICU collator costs several milliseconds of every start (decision 0009's rule).
 */
const natural = lazy(() => new Intl.Collator('en', { numeric: true, sensitivity: 'variant' }));

/**
 * The frames of an upload in CVAT's order (`sorting_method`, lexicographical by default; `random` is
 * shuffled with the world's seeded `random`), each of its header's size. A file whose size the
 * simulator could not read (a remote or server file, or bytes no header reader knows) is a
 * {@link FRAME_WIDTH}×{@link FRAME_HEIGHT} frame, as exports draw them.
 */
export function uploadFrames(
  files: readonly UploadedFile[],
  sorting: SortingMethod = 'lexicographical',
  random: () => number = Math.random,
): FrameRec[] {
  const frames = files.map((f) => ({
    name: f.name,
    width: f.width ?? FRAME_WIDTH,
    height: f.height ?? FRAME_HEIGHT,
  }));
  if (sorting === 'lexicographical') frames.sort((a, b) => byCodePoint(a.name, b.name));
  else if (sorting === 'natural') frames.sort((a, b) => natural().compare(a.name, b.name));
  else if (sorting === 'random') {
    for (let i = frames.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [frames[i], frames[j]] = [frames[j] as FrameRec, frames[i] as FrameRec];
    }
  }
  return frames;
}

/** The name a remote file gets in the upload directory: the last segment of its URL's path. */
export function remoteFileName(url: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // Not a URL: CVAT's downloader refuses it later; the name is what was given.
  }
  return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) || url;
}

/** Frame `i` of a task's data: the upload's, or the placeholder of data seeded without files. */
export function frameOf(t: TaskRec, i: number): FrameRec {
  return (
    t.frames?.[i] ?? {
      name: frameName(i),
      width: FRAME_WIDTH,
      height: FRAME_HEIGHT,
    }
  );
}

const frameMeta = (f: FrameRec) => ({
  width: f.width,
  height: f.height,
  name: f.name,
  related_files: 0,
  has_related_context: false,
});

/** `chunks_updated_date` of a segment: set when its job was created with the data. */
const newest = (dates: string[], fallback: string) =>
  dates.length === 0 ? fallback : ([...dates].sort().at(-1) as string);

/** CVAT 2.73's `DataMetaRead` (the schema's key order) over frames `start`…`stop` of the task's data. */
function dataMeta(t: TaskRec, start: number, stop: number, chunksUpdated: string): Record<string, unknown> {
  const frames: Record<string, unknown>[] = [];
  for (let i = start; i <= stop; i++) frames.push(frameMeta(frameOf(t, i)));
  return {
    chapters: null,
    chunks_updated_date: chunksUpdated,
    chunk_size: t.data_chunk_size,
    size: frames.length,
    image_quality: t.image_quality,
    start_frame: start,
    stop_frame: Math.max(stop, 0),
    frame_filter: '',
    frames,
    deleted_frames: [],
    included_frames: null,
    storage: 'local',
    cloud_storage_id: null,
  };
}

/**
 * `GET /api/tasks/{id}/data/meta` of a task with data: every frame (none while its upload is still
 * being made), and the newest of its segments' `chunks_updated_date`.
 */
export function taskDataMeta(state: AnnotationState, t: TaskRec): Record<string, unknown> {
  const jobs = jobsOfTask(state, t.id);
  return dataMeta(
    t,
    0,
    t.size - 1,
    newest(
      jobs.map((j) => j.created_date),
      t.created_date,
    ),
  );
}

/** `GET /api/jobs/{id}/data/meta`: the frames of the job's segment, its start and stop. */
export function jobDataMeta(t: TaskRec, j: JobRec): Record<string, unknown> {
  return dataMeta(t, j.start_frame, j.stop_frame, j.created_date);
}
