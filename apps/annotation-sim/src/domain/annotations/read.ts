/**
 * Annotations as CVAT reads them back (`JobAnnotation.init_from_db`): the stored rows, each object's
 * attributes completed with the default value of every spec of its label it does not give (`all` specs
 * for tags and shapes, `immutable` for tracks, `mutable` for keyframes, a keyframe taking its previous
 * keyframe's values first). Rows whose labels have no specs are answered as stored: a read is a straight
 * serialisation, no per-request copy.
 */
import type { LabelRec } from '../model';
import type {
  AttributeVal,
  JobAnnotationsRec,
  LabeledData,
  ShapeRow,
  TagRow,
  TrackedShapeRow,
  TrackRow,
} from './model';
import { NONE } from './model';

interface Defaults {
  all: readonly AttributeVal[];
  mutable: readonly AttributeVal[];
  immutable: readonly AttributeVal[];
}

/** The default attribute values of each label that has specs (none: the reads copy nothing). */
export function attributeDefaults(labels: Iterable<LabelRec>): Map<number, Defaults> {
  const out = new Map<number, Defaults>();
  for (const l of labels) {
    if (l.attributes.length === 0) continue;
    const val = (a: LabelRec['attributes'][number]) => ({ spec_id: a.id, value: a.default_value });
    out.set(l.id, {
      all: l.attributes.map(val),
      mutable: l.attributes.filter((a) => a.mutable).map(val),
      immutable: l.attributes.filter((a) => !a.mutable).map(val),
    });
  }
  return out;
}

/** `_extend_attributes`: `given`, then each default whose spec it lacks. */
function extend(given: readonly AttributeVal[], defaults: readonly AttributeVal[]): readonly AttributeVal[] {
  if (defaults.length === 0) return given;
  const have = new Set(given.map((a) => a.spec_id));
  const missing = defaults.filter((d) => !have.has(d.spec_id));
  return missing.length === 0 ? given : [...given, ...missing.map((d) => ({ ...d }))];
}

function readShape(s: ShapeRow, defaults: Map<number, Defaults>): ShapeRow {
  const d = defaults.get(s.label_id);
  const attributes = d ? extend(s.attributes, d.all) : s.attributes;
  const elements =
    s.elements && s.elements.length > 0 ? s.elements.map((e) => readShape(e, defaults)) : s.elements;
  return attributes === s.attributes && elements === s.elements
    ? s
    : { ...s, attributes, ...(elements ? { elements } : {}) };
}

function readTrack(t: TrackRow, defaults: Map<number, Defaults>): TrackRow {
  const d = defaults.get(t.label_id);
  const elements =
    t.elements && t.elements.length > 0 ? t.elements.map((e) => readTrack(e, defaults)) : t.elements;
  if (!d) return elements === t.elements ? t : { ...t, elements };
  let previous = d.mutable;
  const shapes = t.shapes.map((s): TrackedShapeRow => {
    const attributes = extend(s.attributes, previous);
    previous = attributes;
    return attributes === s.attributes ? s : { ...s, attributes };
  });
  return {
    ...t,
    attributes: extend(t.attributes, d.immutable),
    shapes,
    ...(elements ? { elements } : {}),
  };
}

/** A job's annotations as `GET /api/jobs/{id}/annotations` answers them. */
export function readRecord(rec: JobAnnotationsRec, defaults: Map<number, Defaults>): LabeledData {
  if (defaults.size === 0)
    return { version: 0, tags: rec.tags, shapes: rec.shapes, tracks: rec.tracks, intervals: NONE };
  const tag = (t: TagRow): TagRow => {
    const d = defaults.get(t.label_id);
    const attributes = d ? extend(t.attributes, d.all) : t.attributes;
    return attributes === t.attributes ? t : { ...t, attributes };
  };
  return {
    version: 0,
    tags: rec.tags.map(tag),
    shapes: rec.shapes.map((s) => readShape(s, defaults)),
    tracks: rec.tracks.map((t) => readTrack(t, defaults)),
    intervals: NONE,
  };
}
