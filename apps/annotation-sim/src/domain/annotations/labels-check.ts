/**
 * What CVAT's `JobAnnotation` checks of annotations against the task's labels, in its order (tags, then
 * shapes level by level, then tracks level by level), with its texts: a `label_id` not among the task's
 * labels (sublabels included), a `spec_id` not of the object's label (`all` specs for tags and shapes,
 * `immutable` ones for tracks, `mutable` ones for a track's keyframes). Nothing else: CVAT checks no
 * frame range, no point count and no attribute value here.
 */

import { fail, ok, type Result } from '../errors';
import { attributeSpec } from '../label-read';
import type { LabelRec } from '../model';
import type { AttributeVal, DataIn, ShapeIn, TrackIn } from './model';

type SpecKind = 'all' | 'mutable' | 'immutable';

/** `ValidationError("label_id `5` is invalid")` as DRF renders a bare one: `["…"]`. */
const badLabel = (id: number) =>
  fail({ code: 'INVALID_LIST' as const, messages: [`label_id \`${id}\` is invalid`] });
const badSpec = (id: number) =>
  fail({ code: 'INVALID_LIST' as const, messages: [`spec_id \`${id}\` is invalid`] });

function checkAttributes(label: LabelRec, attributes: readonly AttributeVal[], kind: SpecKind): Result<true> {
  for (const a of attributes) {
    const spec = attributeSpec(label, a.spec_id);
    if (spec === undefined || (kind === 'mutable' && !spec.mutable) || (kind === 'immutable' && spec.mutable))
      return badSpec(a.spec_id);
  }
  return ok(true);
}

function checkShapes(labels: Map<number, LabelRec>, shapes: readonly ShapeIn[]): Result<true> {
  for (const s of shapes) {
    const label = labels.get(s.label_id);
    if (label === undefined) return badLabel(s.label_id);
    const attrs = checkAttributes(label, s.attributes, 'all');
    if (!attrs.ok) return attrs;
  }
  for (const s of shapes) {
    if (s.elements === undefined) continue;
    const elements = checkShapes(labels, s.elements);
    if (!elements.ok) return elements;
  }
  return ok(true);
}

function checkTracks(labels: Map<number, LabelRec>, tracks: readonly TrackIn[]): Result<true> {
  for (const t of tracks) {
    const label = labels.get(t.label_id);
    if (label === undefined) return badLabel(t.label_id);
    const attrs = checkAttributes(label, t.attributes, 'immutable');
    if (!attrs.ok) return attrs;
    for (const s of t.shapes) {
      const shapeAttrs = checkAttributes(label, s.attributes, 'mutable');
      if (!shapeAttrs.ok) return shapeAttrs;
    }
  }
  for (const t of tracks) {
    if (t.elements === undefined) continue;
    const elements = checkTracks(labels, t.elements);
    if (!elements.ok) return elements;
  }
  return ok(true);
}

/** The first label or attribute spec of `data` the task does not have, as CVAT reports it. */
export function checkLabels(labels: Map<number, LabelRec>, data: DataIn): Result<true> {
  for (const t of data.tags) {
    const label = labels.get(t.label_id);
    if (label === undefined) return badLabel(t.label_id);
    const attrs = checkAttributes(label, t.attributes, 'all');
    if (!attrs.ok) return attrs;
  }
  const shapes = checkShapes(labels, data.shapes);
  return shapes.ok ? checkTracks(labels, data.tracks) : shapes;
}
