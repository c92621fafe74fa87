/**
 * "CVAT for video 1.1": `annotations.xml` as CVAT 2.73's `dump_as_cvat_interpolation` writes it: the
 * same head and meta as CVAT for images, then every track as `<track id label source [task_id subset]
 * [group_id]>` (ids from 0 in export order) holding its shape on each frame it has one (its keyframes,
 * outside ones included, the frames between interpolated, and after the last keyframe unless it is
 * outside) with `frame`, `keyframe`, `outside`, `occluded`, its geometry and `z_order`, then every
 * labeled shape as a track of its own: a keyframe on its frame and, unless that is the last frame, an
 * outside keyframe on the next. A skeleton's track writes its points' shapes inside each of its own.
 * Tags are not written (the format has none).
 */
import type { ShapeRow, TrackRow } from '../annotations/model';
import { attrs, xmlHead } from './cvat-meta';
import { ELEMENT, geometry, specNames, type Writer, writeAttributes } from './cvat-shapes';
import { type FrameShape, interpolated, type TrackFrameShape } from './frame-shapes';
import { datasetTasks, type ExportSource, type ExportTask, subsetOf } from './source';

/** A track as the writer sees it: its label, group, source and its shapes and elements' shapes. */
interface VideoTrack {
  label_id: number;
  group: number | null;
  source: string;
  shapes: TrackFrameShape[];
  elements: { label_id: number; shapes: TrackFrameShape[] }[];
}

/** A track's shapes (`_export_track`): interpolated over `0 … end-1`, the track's attributes appended. */
function videoTrack(t: TrackRow, end: number): VideoTrack {
  const shapes = (x: TrackRow) =>
    interpolated(x, end).map((s) => ({ ...s, attributes: [...s.attributes, ...x.attributes] }));
  return {
    label_id: t.label_id,
    group: t.group,
    source: t.source,
    shapes: shapes(t),
    elements: (t.elements ?? []).map((e) => ({ label_id: e.label_id, shapes: shapes(e) })),
  };
}

/** A shape as the track CVAT makes of it: its keyframe, and an outside one a frame later (before `stop`). */
function shapeTrack(s: ShapeRow, stop: number): VideoTrack {
  const keys = (x: ShapeRow, outsideKey: boolean): TrackFrameShape[] => {
    const key = { ...x, id: 0, keyframe: true, outside: outsideKey };
    return x.frame + 1 < stop ? [key, { ...key, frame: x.frame + 1, outside: true }] : [key];
  };
  return {
    label_id: s.label_id,
    group: s.group,
    source: s.source,
    shapes: keys(s, false),
    elements: (s.elements ?? []).map((e) => ({ label_id: e.label_id, shapes: keys(e, e.outside) })),
  };
}

const asFrameShape = (s: TrackFrameShape, labelId: number): FrameShape => ({
  ...s,
  label_id: labelId,
  group: null,
  source: '',
  elements: [],
});

/**
 * `dump_shape`: a track's shape, `elements` its skeleton's points' tracks; a point's shape (no
 * `elements`) has its `label` instead of `frame`, and no `z_order`.
 */
function writeShape(
  w: Writer,
  s: TrackFrameShape,
  labelId: number,
  offset: number,
  elements: { label_id: number; shapes: TrackFrameShape[] }[] | undefined,
  level: number,
): void {
  const pad = '  '.repeat(level);
  const topLevel = elements !== undefined;
  const head: [string, string][] = topLevel
    ? [['frame', String(offset + s.frame)]]
    : [['label', w.label(labelId)]];
  head.push(['keyframe', s.keyframe ? '1' : '0']);
  if (s.type !== 'skeleton')
    head.push(['outside', s.outside ? '1' : '0'], ['occluded', s.occluded ? '1' : '0']);
  head.push(...geometry(asFrameShape(s, labelId)));
  if (topLevel) head.push(['z_order', String(s.z_order)]);
  if (s.type === 'skeleton') {
    const points = (elements ?? []).flatMap((e) =>
      e.shapes.filter((p) => p.frame === s.frame).map((p) => ({ p, label: e.label_id })),
    );
    // A skeleton's shape is written only on frames its points have shapes.
    if (points.length === 0) return;
    w.out.push(`\n${pad}<skeleton${attrs(head)}>`);
    for (const { p, label } of points) writeShape(w, p, label, offset, undefined, level + 1);
    writeAttributes(w, labelId, s.attributes, `${pad}  `);
    w.out.push(`\n${pad}</skeleton>`);
    return;
  }
  const tag = ELEMENT[s.type] ?? 'points';
  w.out.push(`\n${pad}<${tag}${attrs(head)}>`);
  writeAttributes(w, labelId, s.attributes, `${pad}  `);
  w.out.push(`\n${pad}</${tag}>`);
}

/** `dump_track`: one `<track>` (a project's with its task's id and subset). */
function writeTrack(w: Writer, id: number, t: VideoTrack, et: ExportTask, project: boolean, offset: number) {
  const head: [string, string][] = [
    ['id', String(id)],
    ['label', w.label(t.label_id)],
    ['source', t.source],
  ];
  if (project) head.push(['task_id', String(et.task.id)], ['subset', subsetOf(et.task)]);
  if (t.group) head.push(['group_id', String(t.group)]);
  w.out.push(`\n  <track${attrs(head)}>`);
  for (const s of t.shapes) writeShape(w, s, t.label_id, offset, t.elements, 2);
  w.out.push('\n  </track>');
}

/**
 * The `annotations.xml` of a "CVAT for video 1.1" export made at `dumpedAt`, in pieces (a track each).
 *
 * @example [...cvatForVideoXml(exportSource(state, 'task', 5)!, Date.now(), 'http://localhost')].join('')
 */
export function* cvatForVideoXml(src: ExportSource, dumpedAt: number, baseUrl: string): Generator<string> {
  yield xmlHead(src, dumpedAt, baseUrl);
  const names = new Map(src.allLabels.map((l) => [l.id, l.name]));
  const w: Writer = { out: [], label: (id) => names.get(id) ?? '', spec: specNames(src.allLabels) };
  const project = src.target === 'project';
  const tasks = project ? datasetTasks(src) : src.tasks;
  // Frame numbers of a project's tasks continue within each subset (`_task_frame_offsets`).
  const offsets = new Map<ExportTask, number>();
  const next = new Map<string, number>();
  for (const et of tasks) {
    const subset = subsetOf(et.task);
    offsets.set(et, project ? (next.get(subset) ?? 0) : 0);
    next.set(subset, (next.get(subset) ?? 0) + et.task.size);
  }
  let id = 0;
  const flush = () => {
    const text = w.out.join('');
    w.out = [];
    return text;
  };
  for (const et of tasks) {
    const end = (et.frames[et.frames.length - 1] ?? -1) + 1;
    for (const t of et.annotations.tracks) {
      writeTrack(w, id++, videoTrack(t, end), et, project, offsets.get(et) ?? 0);
      yield flush();
    }
  }
  for (const et of tasks) {
    const stop = et.frames[et.frames.length - 1] ?? 0;
    for (const s of et.annotations.shapes) {
      writeTrack(w, id++, shapeTrack(s, stop), et, project, offsets.get(et) ?? 0);
      yield flush();
    }
  }
  yield '\n</annotations>\n';
}
