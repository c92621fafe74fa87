import type { JobAnnotationsRec } from '../domain/annotations/model';
import type { EventQuery } from '../domain/events/record';
import type { EventStore } from '../domain/events/store';
import type { AnnotationData } from '../domain/state';

/**
 * The control plane's view of a world's annotations (`GET /_sim/annotations`), for the dashboard: per job
 * what it holds, counted by label and type, and the newest annotation events of the event log.
 */

/** How many objects of one label and one type a job holds (a tag's type is `tag`). */
export interface AnnotationCountView {
  label_id: number;
  /** The label's name; null when no label of that id is left. */
  label: string | null;
  /** `tag`, or a shape type (a track's is its first keyframe's). */
  type: string;
  count: number;
}

/** One job's annotations summary: top-level objects (a skeleton's elements are not counted apart). */
export interface JobAnnotationsView {
  job_id: number;
  task_id: number;
  task_name: string;
  tags: number;
  shapes: number;
  tracks: number;
  /** By label id, then type in CVAT's order (`tag` first). */
  by_label: AnnotationCountView[];
}

/** An annotation event of the event log (scope `create|update|delete:tags|shapes|tracks`). */
export interface AnnotationEventView {
  /** ISO 8601, UTC. */
  timestamp: string;
  scope: string;
  /** The shape type of a shapes or tracks row; null for tags. */
  obj_name: string | null;
  /** The objects the row stands for. */
  count: number | null;
  job_id: number | null;
  task_id: number | null;
  /** The user's name, as the row has it. */
  user: string | null;
}

/** `GET /_sim/annotations`. */
export interface AnnotationsControlView {
  /** Jobs with annotations (or the one `?job_id=` names), by id, at most `?limit=`. */
  jobs: JobAnnotationsView[];
  /** How many jobs the list had before the limit. */
  job_count: number;
  /** The newest annotation events first, at most `?events_limit=`. */
  events: AnnotationEventView[];
  /** How many annotation events the log holds (of the job, with `?job_id=`). */
  event_count: number;
}

export const DEFAULT_ANNOTATION_JOBS = 50;
export const DEFAULT_ANNOTATION_EVENTS = 50;

/** The order types are listed in: tags, then CVAT's `ShapeType` order; anything else after, by name. */
const TYPE_ORDER = [
  'tag',
  'rectangle',
  'polygon',
  'polyline',
  'points',
  'ellipse',
  'cuboid',
  'mask',
  'skeleton',
];
const typeRank = (t: string) => {
  const i = TYPE_ORDER.indexOf(t);
  return i < 0 ? TYPE_ORDER.length : i;
};

/** Whether a stored record holds anything (a PATCH that deleted everything leaves an empty one). */
const holdsAny = (r: JobAnnotationsRec) => r.tags.length > 0 || r.shapes.length > 0 || r.tracks.length > 0;

/**
 * One job's counts in one pass over its rows, no row copied: by label id, then by type (a Map each, so
 * a job of 100,000 shapes costs 100,000 lookups and a few entries).
 */
export function jobAnnotationsView(data: AnnotationData, jobId: number): JobAnnotationsView | undefined {
  const job = data.jobs.get(jobId);
  if (!job) return undefined;
  const rec = data.annotations.get(jobId);
  const counts = new Map<number, Map<string, number>>();
  const add = (labelId: number, type: string) => {
    let byType = counts.get(labelId);
    if (!byType) {
      byType = new Map();
      counts.set(labelId, byType);
    }
    byType.set(type, (byType.get(type) ?? 0) + 1);
  };
  if (rec) {
    for (const t of rec.tags) add(t.label_id, 'tag');
    for (const s of rec.shapes) add(s.label_id, s.type);
    // A track without keyframes is not stored (CVAT drops it before saving); a skeleton's type is on its
    // keyframes too.
    for (const t of rec.tracks) add(t.label_id, t.shapes[0]?.type ?? 'skeleton');
  }
  const by_label: AnnotationCountView[] = [];
  for (const [label_id, byType] of [...counts].sort((a, b) => a[0] - b[0])) {
    const label = data.labels.get(label_id)?.name ?? null;
    const types = [...byType].sort((a, b) => typeRank(a[0]) - typeRank(b[0]) || (a[0] < b[0] ? -1 : 1));
    for (const [type, count] of types) by_label.push({ label_id, label, type, count });
  }
  const task = data.tasks.get(job.task_id);
  return {
    job_id: job.id,
    task_id: job.task_id,
    task_name: task?.name ?? '',
    tags: rec?.tags.length ?? 0,
    shapes: rec?.shapes.length ?? 0,
    tracks: rec?.tracks.length ?? 0,
    by_label,
  };
}

/** The jobs that hold annotations (and still exist), by id, the first `limit`; and how many there are. */
export function annotatedJobsView(
  data: AnnotationData,
  limit: number,
): { jobs: JobAnnotationsView[]; job_count: number } {
  const ids: number[] = [];
  for (const [id, rec] of data.annotations) if (holdsAny(rec) && data.jobs.has(id)) ids.push(id);
  ids.sort((a, b) => a - b);
  const jobs = ids.slice(0, limit).map((id) => jobAnnotationsView(data, id) as JobAnnotationsView);
  return { jobs, job_count: ids.length };
}

// ---- the event log: annotation rows found by their stored CSV line, no row decoded but those shown ----

const ascii = (s: string) => Uint8Array.from(s, (ch) => ch.charCodeAt(0));
const ACTIONS = ['create', 'update', 'delete'].map(ascii);
/** The kinds with the comma that ends the scope field. */
const KINDS = ['tags,', 'shapes,', 'tracks,'].map(ascii);
const COLON = 0x3a;

/** Whether `line` holds `prefix` from `at`. */
function hasAt(line: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (line.length < at + prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (line[at + k] !== prefix[k]) return false;
  return true;
}

/**
 * Whether a stored CSV line's scope is `(create|update|delete):(tags|shapes|tracks)`. Scope is the line's
 * first field, written as Python's csv writes it (quoted only with a quote, comma or line break): a line
 * starting `create:tags,` has exactly that scope, and a line of that scope starts so.
 */
function isAnnotationLine(line: Uint8Array): boolean {
  if (line[6] !== COLON) return false;
  if (!ACTIONS.some((a) => hasAt(line, 0, a))) return false;
  return KINDS.some((k) => hasAt(line, 7, k));
}

/** Every row the log holds (the export's filter: server and client rows), of one job when given. */
const allRows = (jobId: number | undefined): EventQuery => ({
  from: Number.NEGATIVE_INFINITY,
  to: Number.POSITIVE_INFINITY,
  ids: jobId === undefined ? {} : { job_id: jobId },
});

/**
 * The newest `limit` annotation events (newest first) and how many the log holds: one pass of the
 * store's scan (timestamp order) keeping the last `limit` row numbers in a ring; only those are read.
 */
export function annotationEventsView(
  store: EventStore,
  limit: number,
  jobId?: number,
): { events: AnnotationEventView[]; event_count: number } {
  const ring = new Array<number>(Math.min(limit, store.length));
  let seen = 0;
  for (const i of store.scan(allRows(jobId))) {
    if (!isAnnotationLine(store.line(i))) continue;
    if (ring.length > 0) ring[seen % ring.length] = i;
    seen++;
  }
  const events: AnnotationEventView[] = [];
  for (let k = 1; k <= Math.min(seen, ring.length); k++) {
    const r = store.row(ring[(seen - k) % ring.length] as number);
    events.push({
      timestamp: new Date(r.timestamp).toISOString(),
      scope: r.scope,
      obj_name: r.obj_name,
      count: r.count,
      job_id: r.job_id,
      task_id: r.task_id,
      user: r.user_name,
    });
  }
  return { events, event_count: seen };
}
