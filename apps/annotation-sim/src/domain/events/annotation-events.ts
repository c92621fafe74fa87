import { isPlainObject } from '@sims/sim-core';
import { renderDrfJson } from '../python-json';
import type { EventRecord } from './record';
import { type EventsState, recordEvents } from './state';

/**
 * The server events of an annotation change, as CVAT 2.73's `handle_annotations_change`
 * (`cvat/apps/events/handlers.py`) logs them: `<action>:tags` one row, `<action>:shapes` and
 * `<action>:tracks` one row per shape type (`obj_name` the type, in `ShapeType`'s order), `count` the
 * objects of the row, a payload of their ids only (a track's with its keyframes' ids and the change of
 * its visible shapes, `TracksCounter`'s count). Intervals are not logged; an empty change logs nothing.
 */

type Annotation = Readonly<Record<string, unknown>>;

/** One annotation change of one job, as `dataset_manager/task.py` hands it to the handler. */
export interface AnnotationChange {
  /** `create`, `update` (PATCH ?action=update, logged before the change) or `delete`. */
  action: 'create' | 'update' | 'delete';
  /**
   * The objects of the change, as CVAT's LabeledData: created ones with their new ids, updated ones as
   * the request gave them, deleted ones as read before the deletion (PUT, DELETE) or as the request gave
   * them (PATCH ?action=delete).
   */
  annotations: {
    tags?: readonly Annotation[];
    shapes?: readonly Annotation[];
    tracks?: readonly Annotation[];
  };
  /** The job the change is made on: CVAT always logs per job, a task's change once per job. */
  jobId: number | null;
  taskId: number | null;
  projectId: number | null;
  /** The organization of the job's task (not of the request's context); null for sandbox tasks. */
  org?: { id: number; slug: string } | null;
  /** Who made the change; `requestId` is the request's `X-Request-Id`. */
  actor?: { id: number; username: string; email?: string | null; requestId?: string } | null;
  requestId?: string | null;
  /** The request's `User-Agent` header (`payload.request.user_agent`, null without one). */
  userAgent?: string | null;
  accessTokenId?: number | null;
  /** When the change happened (ISO string or epoch ms); default: `now`. */
  time?: string | number;
  /**
   * The job's segment `stop_frame`: a track visible after its last keyframe counts its frames up to it
   * (`TracksCounter`). Without it that tail counts nothing.
   */
  stopFrame?: number | null;
  /**
   * `update` only: the job's stored tracks before the change (CVAT reads those of the updated ids from
   * its database), as GET returns them. A track of the change not among them counts as no shapes.
   */
  storedTracks?: readonly Annotation[];
}

/** `ShapeType.choices()`: the order of the rows of one change. */
const SHAPE_TYPES = ['rectangle', 'polygon', 'polyline', 'points', 'ellipse', 'cuboid', 'mask', 'skeleton'];

const list = (v: unknown): readonly Annotation[] =>
  Array.isArray(v) ? (v.filter(isPlainObject) as Annotation[]) : [];

/** `filter_data`: only the id survives (`None` when the request gave none). */
const idOnly = (a: Annotation) => ({ id: a.id ?? null });

interface Keyframe {
  frame: number;
  outside: boolean;
}

/**
 * A track's keyframes as `TracksCounter` loads them, sorted by frame, one per frame (the last given
 * wins). A skeleton's are its elements' frames, outside only when every element is; a track with
 * neither shapes nor elements is not loaded (null).
 */
function keyframesOf(track: Annotation): Keyframe[] | null {
  const shapes = list(track.shapes);
  const elements = list(track.elements);
  if (shapes.length === 0 && elements.length === 0) return null;
  const byFrame = new Map<number, Keyframe>();
  if (elements.length > 0 || shapes[0]?.type === 'skeleton') {
    for (const element of elements)
      for (const s of list(element.shapes)) {
        const frame = Number(s.frame);
        const k = byFrame.get(frame) ?? { frame, outside: true };
        if (!s.outside) k.outside = false;
        byFrame.set(frame, k);
      }
  } else {
    for (const s of shapes) byFrame.set(Number(s.frame), { frame: Number(s.frame), outside: !!s.outside });
  }
  return [...byFrame.values()].sort((a, b) => a.frame - b.frame);
}

/** `count_track_shapes`: manual keyframes not outside, plus the frames interpolated after each. */
function visibleShapes(keyframes: readonly Keyframe[] | undefined, stopFrame: number | null): number {
  const first = keyframes?.[0];
  if (!keyframes || !first) return 0;
  let prev = first;
  let visible = prev.outside ? 0 : 1;
  for (let i = 1; i < keyframes.length; i++) {
    const k = keyframes[i] as Keyframe;
    if (!prev.outside) visible += k.frame - prev.frame - 1;
    if (!k.outside) visible += 1;
    prev = k;
  }
  if (!prev.outside && stopFrame !== null && prev.frame < stopFrame) visible += stopFrame - prev.frame;
  return visible;
}

/** Tracks by id, as a counter holds them (a later track of the same id replaces an earlier one). */
function countedById(tracks: readonly Annotation[]): Map<unknown, Keyframe[]> {
  const byId = new Map<unknown, Keyframe[]>();
  for (const t of tracks) {
    const k = keyframesOf(t);
    if (k) byId.set(t.id ?? null, k);
  }
  return byId;
}

/** Groups by type in `ShapeType`'s order (a type outside it, which CVAT's serializer refuses, last). */
function byType<T>(
  items: readonly Annotation[],
  typeOf: (a: Annotation) => unknown,
  map: (a: Annotation) => T,
) {
  const groups = new Map<string, T[]>(SHAPE_TYPES.map((t) => [t, []]));
  for (const a of items) {
    const type = String(typeOf(a));
    const group = groups.get(type) ?? [];
    group.push(map(a));
    groups.set(type, group);
  }
  return [...groups].filter(([, g]) => g.length > 0);
}

/**
 * The rows CVAT logs for one annotation change of one job: tags, then shapes by type, then tracks by
 * type (a track's type is its first keyframe's; one without keyframes is left out, where CVAT's handler
 * fails). `update` rows carry each track's stored visible shapes less the new ones, CVAT's sign.
 *
 * @example annotationEventRecords({ action: 'create', annotations: created, jobId: 7, taskId: 3, projectId: null, actor }, clock.now())
 */
export function annotationEventRecords(change: AnnotationChange, now: number): EventRecord[] {
  const { action, annotations } = change;
  const stopFrame = change.stopFrame ?? null;
  const requestTail = `"request":${renderDrfJson({
    id: change.requestId ?? change.actor?.requestId ?? null,
    user_agent: change.userAgent ?? null,
  })}}`;
  const base = {
    obj_id: null,
    obj_val: null,
    source: 'server',
    timestamp: typeof change.time === 'string' ? Date.parse(change.time) : (change.time ?? now),
    duration: 0,
    project_id: change.projectId,
    task_id: change.taskId,
    job_id: change.jobId,
    user_id: change.actor?.id ?? null,
    user_name: change.actor?.username ?? null,
    // `user_email` is `email or None`.
    user_email: change.actor?.email || null,
    org_id: change.org?.id ?? null,
    org_slug: change.org?.slug ?? null,
  };
  const row = (kind: string, objName: string | null, items: readonly unknown[]): EventRecord => ({
    scope: `${action}:${kind}`,
    obj_name: objName,
    ...base,
    count: items.length,
    // `{**payload, "request": …}`, rendered by DRF's JSONRenderer.
    payload: `{${renderDrfJson(kind)}:${renderDrfJson(items)},${requestTail}`,
    access_token_id: change.accessTokenId ?? null,
  });

  const rows: EventRecord[] = [];
  const tags = list(annotations.tags);
  if (tags.length > 0) rows.push(row('tags', null, tags.map(idOnly)));
  for (const [type, shapes] of byType(list(annotations.shapes), (s) => s.type, idOnly))
    rows.push(row('shapes', type, shapes));

  const tracks = list(annotations.tracks).filter((t) => list(t.shapes).length > 0);
  const inChange = tracks.length > 0 ? countedById(list(annotations.tracks)) : new Map();
  const stored = action === 'update' && tracks.length > 0 ? countedById(list(change.storedTracks)) : null;
  const trackData = (t: Annotation) => {
    const own = visibleShapes(inChange.get(t.id ?? null), stopFrame);
    const diff =
      action === 'create'
        ? own
        : action === 'delete'
          ? -own
          : visibleShapes(stored?.get(t.id ?? null), stopFrame) - own;
    return { id: t.id ?? null, visible_shapes_count_diff: diff, shapes: list(t.shapes).map(idOnly) };
  };
  for (const [type, data] of byType(tracks, (t) => list(t.shapes)[0]?.type, trackData))
    rows.push(row('tracks', type, data));
  return rows;
}

/**
 * Logs an annotation change as server events, within the store's bounds (dropped while it is
 * disconnected, as CVAT's logger without a handler drops them).
 *
 * @example recordAnnotationChange(eventsOf(state), { action: 'delete', annotations: removed, jobId: 7, taskId: 3, projectId: 1 }, clock.now())
 */
export function recordAnnotationChange(events: EventsState, change: AnnotationChange, now: number): void {
  recordEvents(events, annotationEventRecords(change, now));
}
