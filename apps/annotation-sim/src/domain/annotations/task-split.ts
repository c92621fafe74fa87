/**
 * A task's annotations over its jobs (`TaskAnnotation`): a write is split by frame into each annotation
 * job's part (`AnnotationIR.slice(start, stop)`; an object on a frame of no job is dropped, one on the
 * frames two jobs overlap goes to both), and a read merges the jobs' parts in job order, an object on
 * frames the job shares with the previous one left out when the previous has the same one
 * (`AnnotationManager.merge`, simplified: FIDELITY.md, Annotations). A track with nothing visible on a
 * job's frames is not that job's (`AnnotationIR._is_track_inside`): one outside from its first shape on
 * is in no job, so a task's write drops it.
 */
import type { JobRec } from '../model';
import type { DataIn, LabeledData, ShapeRow, TagRow, TrackIn, TrackRow } from './model';
import { NONE } from './model';

/** The frames of a track and of its elements' keyframes. */
function trackFrames(t: TrackIn, into: number[] = []): number[] {
  into.push(t.frame);
  for (const s of t.shapes) into.push(s.frame);
  for (const e of t.elements ?? []) trackFrames(e, into);
  return into;
}

/**
 * `AnnotationIR._is_track_inside(track, start, stop)`: whether a track is visible somewhere on the frames
 * `start`..`stop` (a skeleton's by its elements), judged from its shapes in the order given.
 */
function isTrackInside(t: TrackIn, start: number, stop: number): boolean {
  if (t.elements && t.elements.length > 0) return t.elements.some((e) => isTrackInside(e, start, stop));
  const overlaps = (a: number, b: number) => Math.min(b, stop) - Math.max(a, start) >= 0;
  let prev: TrackIn['shapes'][number] | undefined;
  for (const s of t.shapes) {
    // The only shape on the segment being outside on its first frame.
    if (s.frame === start && s.outside) {
      prev = s;
      continue;
    }
    if (prev && !prev.outside && overlaps(prev.frame, s.frame)) return true;
    prev = s;
  }
  return prev !== undefined && !prev.outside && prev.frame <= stop;
}

/** The part of `data` on each job's frames; a track that crosses a job's bounds is named in `crossing`. */
export function splitByJob(
  jobs: readonly JobRec[],
  data: DataIn,
): { parts: { job: JobRec; data: DataIn }[]; crossing: boolean } {
  let crossing = false;
  const parts = jobs.map((job) => {
    const inJob = (f: number) => f >= job.start_frame && f <= job.stop_frame;
    const tracks: TrackIn[] = [];
    for (const t of data.tracks) {
      if (!isTrackInside(t, job.start_frame, job.stop_frame)) continue;
      const frames = trackFrames(t);
      const inside = frames.filter(inJob).length;
      if (inside === frames.length) tracks.push(structuredClone(t));
      else if (inside > 0) crossing = true;
    }
    return {
      job,
      data: {
        version: data.version,
        tags: data.tags.filter((t) => inJob(t.frame)),
        shapes: data.shapes.filter((s) => inJob(s.frame)),
        tracks,
      },
    };
  });
  return { parts, crossing };
}

const sameTag = (a: TagRow, b: TagRow) => a.frame === b.frame && a.label_id === b.label_id;
const samePoints = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);
const sameShape = (a: ShapeRow, b: ShapeRow) =>
  a.frame === b.frame && a.label_id === b.label_id && a.type === b.type && samePoints(a.points, b.points);
const sameTrack = (a: TrackRow, b: TrackRow) =>
  a.label_id === b.label_id &&
  a.shapes.length === b.shapes.length &&
  a.shapes.every((s, i) => {
    const o = b.shapes[i];
    return o !== undefined && s.frame === o.frame && samePoints(s.points, o.points);
  });

/**
 * The jobs' data (in job order, each with its job) merged as the task's: what lies on frames a job shares
 * with the job before it (its first `overlap` frames) is kept only when nothing the same is there already.
 */
export function mergeJobs(
  parts: readonly { job: JobRec; data: LabeledData }[],
  overlap: number,
): LabeledData {
  const tags: TagRow[] = [];
  const shapes: ShapeRow[] = [];
  const tracks: TrackRow[] = [];
  let previous: JobRec | undefined;
  for (const { job, data } of parts) {
    const shared = (f: number) =>
      previous !== undefined && overlap > 0 && f >= job.start_frame && f <= previous.stop_frame;
    const from = { tags: tags.length, shapes: shapes.length, tracks: tracks.length };
    for (const t of data.tags)
      if (!shared(t.frame) || !tags.slice(0, from.tags).some((o) => sameTag(o, t))) tags.push(t);
    for (const s of data.shapes)
      if (!shared(s.frame) || !shapes.slice(0, from.shapes).some((o) => sameShape(o, s))) shapes.push(s);
    for (const t of data.tracks)
      if (!shared(t.frame) || !tracks.slice(0, from.tracks).some((o) => sameTrack(o, t))) tracks.push(t);
    previous = job;
  }
  return { version: 0, tags, shapes, tracks, intervals: NONE };
}
