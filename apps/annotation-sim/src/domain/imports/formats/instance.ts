/**
 * What CVAT's importers write into: `InstanceLabelData`/`CommonData` of `bindings.py` for a task or a
 * job (`TaskData`, `JobData`). Labels are found by name (a sublabel under its parent), attributes by
 * name among the label's specs, frames by file name without extension (`match_frame`), and each object
 * added (`add_tag`, `add_shape`, `add_track`) is resolved to ids as `_import_tag`, `_import_shape` and
 * `_import_track` do, its frame checked against the target's (`rel_frame_id`).
 */
import type { AttributeVal, ShapeIn, TagIn, TrackedShapeIn, TrackIn } from '../../annotations/model';
import type { FrameRec, LabelRec } from '../../model';
import { ImportError, type ImportedAnnotations, type ImportTarget } from './types';

/** `InstanceLabelData.Attribute`: a name and its value as text. */
export interface NamedAttribute {
  name: string;
  value: string;
}

/** `CommonData.LabeledShape` before its names are resolved. */
export interface NamedShape {
  type: string;
  frame: number;
  label: string;
  points: number[];
  occluded: boolean;
  attributes: NamedAttribute[];
  source: string;
  rotation?: number;
  group?: number;
  z_order?: number;
  elements?: NamedShape[];
  outside?: boolean;
  score?: number;
}

/** `CommonData.TrackedShape` before its names are resolved. */
export interface NamedTrackedShape {
  type: string;
  frame: number;
  points: number[];
  occluded: boolean;
  outside: boolean;
  keyframe: boolean;
  attributes: NamedAttribute[];
  rotation?: number;
  z_order?: number;
}

/** `CommonData.Track` before its names are resolved. */
export interface NamedTrack {
  label: string;
  group: number;
  source: string;
  shapes: NamedTrackedShape[];
  elements?: NamedTrack[];
}

/** `CommonData.Tag` before its names are resolved. */
export interface NamedTag {
  frame: number;
  label: string;
  attributes: NamedAttribute[];
  source: string;
  group?: number;
}

/** CVAT's importer exceptions, by the class `traceback.format_exception_only` names. */
export const CVAT_IMPORT_ERROR = 'cvat.apps.dataset_manager.bindings.CvatImportError';
const valueError = (message: string) => new ImportError('ValueError', message);

/** `osp.splitext(path)[0]`: the extension is the last dot's, not a leading dot of the base name. */
export function stripExt(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1) return path;
  // A run of leading dots in the base name is not an extension's dot.
  const base = path.slice(slash + 1);
  if (/^\.+$/.test(base.slice(0, dot - slash - 1))) return path;
  return path.slice(0, dot);
}

/** `osp.splitext(path)[1]`. */
export const extOf = (path: string) => path.slice(stripExt(path).length);

/** `str(value)` of a checkbox value CVAT accepts, or the assertion error's empty text. */
function checkboxValue(value: string, spec: { default_value: string }, label: string): string {
  if (value === spec.default_value) return value;
  const lower = value.toLowerCase();
  if (lower !== 'true' && lower !== 'false') {
    throw new ImportError('Exception', `Failed to convert attribute '${label}'='${lower}': `);
  }
  return lower;
}

/** The target as CVAT's importer sees it, and the annotations added so far. */
export class ImportInstance {
  readonly out: ImportedAnnotations = { tags: [], shapes: [], tracks: [] };
  /** `frame_info`: the frames by number. */
  readonly frameInfo = new Map<number, FrameRec>();
  /** `_frame_mapping`: a frame's path without extension to its number. */
  private readonly frameMapping = new Map<string, number>();
  private readonly labels: readonly LabelRec[];
  /** The target's last frame (`stop_frame` of its meta), for closing tracks. */
  readonly stopFrame: number;

  constructor(target: ImportTarget) {
    this.labels = [...target.labels].sort((a, b) => a.id - b.id);
    for (const f of target.frames) {
      this.frameInfo.set(f.index, f.frame);
      this.frameMapping.set(stripExt(f.frame.name), f.index);
    }
    // A loop, not `Math.max(...)`: a task of 200,000 frames is more arguments than a call takes.
    let stop = 0;
    for (const f of target.frames) if (f.index > stop) stop = f.index;
    this.stopFrame = stop;
  }

  /** `_get_label_id`: the label of that name under `parentId` (top labels under none). */
  labelId(name: string, parentId: number | null = null): LabelRec {
    const l = this.labels.find((x) => x.name === name && x.parent_id === parentId);
    if (!l) throw valueError(`Label '${name}' is not registered for this task`);
    return l;
  }

  /** Every label in id order: the top ones and sublabels (Datumaro's categories are made from them). */
  allLabels(): readonly LabelRec[] {
    return this.labels;
  }

  /** `rel_frame_id`: a frame of the target, else CVAT's ValueError. */
  relFrame(frame: number): number {
    if (!this.frameInfo.has(frame)) throw valueError(`Unknown frame ${frame}`);
    return frame;
  }

  /**
   * `match_frame`: the frame whose path without extension is `path` (without its extension when
   * `hasExt`), else under `rootHint`. A match of frame 0 counts as none for the hint's retry, as CVAT's
   * `if not match` has it.
   */
  matchFrame(path: string, rootHint?: string | null, hasExt = true): number | undefined {
    let p = hasExt ? stripExt(path) : path;
    let match = this.frameMapping.get(p);
    if (!match && rootHint && !p.startsWith(rootHint)) {
      p = `${rootHint}/${p}`;
      match = this.frameMapping.get(p);
    }
    return match;
  }

  /** `match_frame_fuzzy`: the first frame whose path ends with `path`'s parts. */
  matchFrameFuzzy(path: string, hasExt = true): number | undefined {
    const parts = (hasExt ? stripExt(path) : path).split('/').filter((s) => s !== '');
    for (const [p, v] of this.frameMapping) {
      const own = p.split('/').filter((s) => s !== '');
      if (own.length >= parts.length && own.slice(own.length - parts.length).join('/') === parts.join('/')) {
        return v;
      }
    }
    return undefined;
  }

  /**
   * `_import_attribute` over the attributes whose name is a spec of the label (of the mutable or
   * immutable ones only, when `which` says): others are dropped, as without soft attribute import.
   */
  attributes(label: LabelRec, list: readonly NamedAttribute[], which?: boolean): AttributeVal[] {
    const out: AttributeVal[] = [];
    for (const a of list) {
      const spec = label.attributes.find(
        (s) => s.name === a.name && (which === undefined || s.mutable === which),
      );
      if (!spec) continue;
      const value = spec.input_type === 'checkbox' ? checkboxValue(a.value, spec, label.name) : a.value;
      out.push({ spec_id: spec.id, value });
    }
    return out;
  }

  private tag(t: NamedTag): TagIn {
    const label = this.labelId(t.label);
    return {
      id: null,
      label_id: label.id,
      group: t.group ?? 0,
      source: t.source,
      frame: this.relFrame(t.frame),
      attributes: this.attributes(label, t.attributes),
    };
  }

  private shape(s: NamedShape, parent: number | null): ShapeIn {
    const label = this.labelId(s.label, parent);
    const out: ShapeIn = {
      id: null,
      label_id: label.id,
      group: s.group ?? 0,
      source: s.source,
      frame: this.relFrame(s.frame),
      attributes: this.attributes(label, s.attributes),
      type: s.type,
      occluded: s.occluded,
      outside: s.outside ?? false,
      z_order: s.z_order ?? 0,
      rotation: s.rotation ?? 0,
      points: s.points,
      score: s.score ?? 1,
    };
    const elements = (s.elements ?? []).map((e) => this.shape(e, label.id));
    if (elements.length > 0) out.elements = elements;
    return out;
  }

  private track(t: NamedTrack, parent: number | null): TrackIn {
    const label = this.labelId(t.label, parent);
    const frames = t.shapes.map((s) => s.frame);
    if (frames.length === 0) throw valueError('min() arg is an empty sequence');
    const start = this.relFrame(frames.reduce((a, b) => Math.min(a, b)));
    const elements = (t.elements ?? []).map((e) => this.track(e, label.id));
    // The track's attributes are the immutable ones of its last shape (`_import_track` sets them anew
    // for each shape); each shape keeps its mutable ones.
    let attributes: AttributeVal[] = [];
    const shapes: TrackedShapeIn[] = t.shapes.map((s) => {
      attributes = this.attributes(label, s.attributes, false);
      return {
        type: s.type,
        occluded: s.occluded,
        outside: s.outside,
        z_order: s.z_order ?? 0,
        rotation: s.rotation ?? 0,
        points: s.points,
        id: null,
        frame: this.relFrame(s.frame),
        attributes: this.attributes(label, s.attributes, true),
      };
    });
    const out: TrackIn = {
      id: null,
      label_id: label.id,
      group: t.group,
      source: t.source,
      frame: start,
      attributes,
      shapes,
    };
    if (elements.length > 0) out.elements = elements;
    return out;
  }

  addTag(t: NamedTag): void {
    this.out.tags.push(this.tag(t));
  }

  addShape(s: NamedShape): void {
    this.out.shapes.push(this.shape(s, null));
  }

  addTrack(t: NamedTrack): void {
    this.out.tracks.push(this.track(t, null));
  }
}
