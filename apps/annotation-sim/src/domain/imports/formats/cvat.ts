/**
 * "CVAT 1.1" (`formats/cvat.py`, `_import` and `load_anno`): one importer for the files both CVAT XML
 * exporters write. A bare `.xml` is read as is; a zip is extracted and, once Datumaro's `cvat` detector
 * finds an `.xml` in it, every `.xml` in it is read. An `<image>` is matched to a frame by its name
 * without extension, else by its `id` (`match_dm_item`); its shapes and tags are added to that frame. A
 * `<track>` keeps its keyframes only (the frames between are interpolated again by CVAT), a track of
 * masks becomes its first mask as a shape. Everything read is `source` "file".
 */
import {
  CVAT_IMPORT_ERROR,
  extOf,
  ImportInstance,
  type NamedAttribute,
  type NamedShape,
  type NamedTrack,
  type NamedTrackedShape,
  stripExt,
} from './instance';
import { castInt, fixed2, pyFloat, pyInt, req } from './py';
import { depthOf, extract, isZip, missingFile } from './source-file';
import { type AnnotationImporter, ImportError, type ImportFile, type ImportTarget } from './types';
import { type XmlElement, xmlEvents } from './xml';

const SUPPORTED = new Set(['box', 'ellipse', 'polygon', 'polyline', 'points', 'cuboid', 'skeleton', 'mask']);

const CUBOID = ['xtl1', 'ytl1', 'xbl1', 'ybl1', 'xtr1', 'ytr1', 'xbr1', 'ybr1'];
const CUBOID_KEYS = [...CUBOID, ...CUBOID.map((n) => n.replace('1', '2'))];

/** The points of a shape element (box, ellipse, cuboid, mask, or `points="x,y;x,y"`). */
function points(el: XmlElement): number[] {
  const a = el.attrib;
  const f = (k: string) => pyFloat(req(a, k));
  switch (el.tag) {
    case 'box':
      return [f('xtl'), f('ytl'), f('xbr'), f('ybr')];
    case 'ellipse':
      return [f('cx'), f('cy'), fixed2(f('cx') + f('rx')), fixed2(f('cy') - f('ry'))];
    case 'cuboid':
      return CUBOID_KEYS.map(f);
    case 'mask': {
      const left = pyInt(req(a, 'left'));
      const top = pyInt(req(a, 'top'));
      const rle = req(a, 'rle')
        .split(',')
        .map((v) => pyInt(v));
      return [...rle, left, top, left + pyInt(req(a, 'width')) - 1, top + pyInt(req(a, 'height')) - 1];
    }
    case 'skeleton':
      return [];
    default:
      return req(a, 'points')
        .split(';')
        .flatMap((pair) => pair.split(',').map(pyFloat));
  }
}

const shapeType = (tag: string) => (tag === 'box' ? 'rectangle' : tag);

/** An `<image>`'s frame: its name's frame, else its `id` (`match_dm_item`), else CVAT's refusal. */
function imageFrame(inst: ImportInstance, el: XmlElement): number {
  const name = req(el.attrib, 'name');
  const id = stripExt(name);
  let frame = inst.matchFrame(id + extOf(name));
  frame ??= inst.matchFrame(id, null, false);
  frame ??= castInt(el.attrib.id);
  if (frame === undefined || !inst.frameInfo.has(frame)) {
    throw new ImportError(CVAT_IMPORT_ERROR, `Could not match item id: '${id}' with any task frame`);
  }
  return frame;
}

interface Open {
  track?: { label: string; group: number; shapes: NamedTrackedShape[]; elements: Map<string, NamedTrack> };
  frame?: number;
  /** The shape being read; a track's skeleton keeps its `frame` for its points' keyframes. */
  shape?: { tag: string; attributes: NamedAttribute[]; elements: NamedShape[]; frame?: number };
  element?: { attributes: NamedAttribute[] };
  tag?: { label: string; group: number; attributes: NamedAttribute[] };
}

/** `load_anno`: one XML text read into `inst`. */
function loadAnno(text: string, inst: ImportInstance): void {
  const o: Open = {};
  let root = true;
  for (const { ev, el } of xmlEvents(text)) {
    if (root) {
      root = false; // `next(context)`: the root's start is skipped
      continue;
    }
    if (ev === 'start') start(inst, o, el);
    else end(inst, o, el);
  }
}

function start(inst: ImportInstance, o: Open, el: XmlElement): void {
  if (el.tag === 'track') {
    const group = pyInt(el.attrib.group_id ?? '0');
    o.track = { label: req(el.attrib, 'label'), group, shapes: [], elements: new Map() };
  } else if (el.tag === 'image') {
    o.frame = imageFrame(inst, el);
  } else if (SUPPORTED.has(el.tag) && (o.track || o.frame !== undefined)) {
    if (o.shape?.tag === 'skeleton') {
      o.element = { attributes: [] };
      const label = req(el.attrib, 'label');
      if (o.track && !o.track.elements.has(label)) {
        o.track.elements.set(label, { label, group: 0, source: 'file', shapes: [] });
      }
    } else {
      o.shape = { tag: el.tag, attributes: [], elements: [] };
      if (o.track && el.tag === 'skeleton') o.shape.frame = pyInt(req(el.attrib, 'frame'));
    }
  } else if (el.tag === 'tag' && o.frame !== undefined) {
    o.tag = { label: req(el.attrib, 'label'), group: pyInt(el.attrib.group_id ?? '0'), attributes: [] };
  }
}

function end(inst: ImportInstance, o: Open, el: XmlElement): void {
  const a = el.attrib;
  const holder = o.element ?? o.shape ?? o.tag;
  if (el.tag === 'attribute' && holder) holder.attributes.push({ name: req(a, 'name'), value: el.text });
  if (SUPPORTED.has(el.tag) && o.shape?.tag === 'skeleton' && el.tag !== 'skeleton' && o.element) {
    endElement(o, el, o.element.attributes);
    o.element = undefined;
  } else if (SUPPORTED.has(el.tag) && o.shape) {
    endShape(inst, o, el);
    o.shape = undefined;
  } else if (el.tag === 'track' && o.track) {
    endTrack(inst, o.track);
    o.track = undefined;
  } else if (el.tag === 'image') {
    o.frame = undefined;
  } else if (el.tag === 'tag' && o.tag && o.frame !== undefined) {
    inst.addTag({ ...o.tag, frame: o.frame, source: 'file' });
    o.tag = undefined;
  }
}

/** A skeleton's point closed: a shape of the skeleton, or a keyframe of the track's element. */
function endElement(o: Open, el: XmlElement, attributes: NamedAttribute[]): void {
  const a = el.attrib;
  const label = req(a, 'label');
  const occluded = req(a, 'occluded') === '1';
  const outside = req(a, 'outside') === '1';
  const pts = points(el);
  if (!o.track) {
    const frame = o.frame as number;
    o.shape?.elements.push({
      type: shapeType(el.tag),
      frame,
      label,
      points: pts,
      occluded,
      outside,
      attributes,
      source: 'file',
    });
    return;
  }
  if (req(a, 'keyframe') !== '1') return;
  o.track.elements.get(label)?.shapes.push({
    type: shapeType(el.tag),
    frame: o.shape?.frame ?? 0,
    points: pts,
    occluded,
    outside,
    keyframe: true,
    attributes,
  });
}

function endShape(inst: ImportInstance, o: Open, el: XmlElement): void {
  const a = el.attrib;
  const shape = o.shape as NonNullable<Open['shape']>;
  const common = {
    type: shapeType(el.tag),
    points: points(el),
    occluded: (a.occluded ?? '0') === '1',
    z_order: pyInt(a.z_order ?? '0'),
    rotation: pyFloat(a.rotation ?? '0'),
    attributes: shape.attributes,
  };
  if (o.track) {
    if (req(a, 'keyframe') !== '1') return;
    o.track.shapes.push({
      ...common,
      frame: pyInt(req(a, 'frame')),
      outside: (a.outside ?? '0') === '1',
      keyframe: true,
    });
    return;
  }
  inst.addShape({
    ...common,
    frame: o.frame as number,
    label: req(a, 'label'),
    group: pyInt(a.group_id ?? '0'),
    source: 'file',
    outside: false,
    elements: shape.elements,
  });
}

function endTrack(inst: ImportInstance, t: NonNullable<Open['track']>): void {
  const first = t.shapes[0];
  if (!first) throw new ImportError('IndexError', 'list index out of range');
  if (first.type === 'mask') {
    // Mask tracks are not supported: the first keyframe becomes a shape.
    const { keyframe: _k, outside: _o, ...mask } = first;
    inst.addShape({ ...mask, label: t.label, group: 0, source: 'file' });
    return;
  }
  inst.addTrack({
    label: t.label,
    group: t.group,
    source: 'file',
    shapes: t.shapes,
    elements: [...t.elements.values()],
  });
}

/** `_import`: a bare XML read as is, else every `.xml` of the archive once the detector finds one. */
function readCvat(file: ImportFile, target: ImportTarget) {
  const inst = new ImportInstance(target);
  if (!isZip(file)) {
    loadAnno(Buffer.from(file.bytes).toString('utf8'), inst);
    return inst.out;
  }
  const files = extract(file);
  const xmls = files.paths.filter((p) => p.endsWith('.xml'));
  if (!xmls.some((p) => depthOf(p) <= 4)) throw missingFile('cvat', '*.xml');
  for (const p of xmls) loadAnno(files.text(p), inst);
  return inst.out;
}

export const CVAT_IMPORTER: AnnotationImporter = {
  format: 'CVAT 1.1',
  ext: 'XML, ZIP',
  enabled: true,
  dimension: '2d',
  read: readCvat,
};
