/**
 * "PASCAL VOC 1.1" (`formats/pascal_voc.py`): the archive unpacked (a flat one's `.xml` files taken as
 * `Annotations/`, listed as the `train` subset), Datumaro's `voc` reader, then `import_dm_annotations`.
 * The labels are `labelmap.txt`'s (the target's when the archive has none); each subset's items are
 * `ImageSets/Main/<subset>.txt`'s lines; an item's `Annotations/<item>.xml` objects are boxes with
 * `difficult`, `truncated`, `occluded` (the shape's), `pose` and `<attributes>`; the classification
 * lists (`ImageSets/Main/<label>_<subset>.txt`, ` 1`) are tags; the segmentation PNGs are masks.
 */
import { type Bitmap, emptyBitmap } from '../../exports/masks';
import { type DmAnnotation, type DmDataset, type DmItem, importDmAnnotations } from './dm';
import { ImportInstance, stripExt } from './instance';
import { readPng } from './png-read';
import { pyFloat } from './py';
import { type Extracted, extract, isZip, missingFile } from './source-file';
import { type AnnotationImporter, ImportError, type ImportFile, type ImportTarget } from './types';
import { child, type XmlElement, xmlTree } from './xml';

const ERRORS = 'datumaro.components.errors';

/** VOC's `generate_colormap`: index bits spread over the colour channels, high bits first. */
function vocColor(index: number): number {
  const c = [0, 0, 0];
  let i = index;
  for (let j = 7; j >= 0; j--) {
    for (let ch = 0; ch < 3; ch++) c[ch] = (c[ch] as number) | (((i >> ch) & 1) << j);
    i >>= 3;
  }
  return ((c[0] as number) << 16) | ((c[1] as number) << 8) | (c[2] as number);
}

/** The instance masks' colours to instance ids (VOC's colormap of 256). */
const INSTANCE_IDS = new Map(Array.from({ length: 256 }, (_, i) => [vocColor(i), i]));

/** `labelmap.txt`: `name:color:parts:actions` lines, `#` comments; a label without a colour takes VOC's. */
function labelMap(text: string): { names: string[]; classOf: Map<number, number> } {
  const rows = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.split(':'));
  const classOf = new Map<number, number>();
  rows.forEach((r, i) => {
    const rgb = (r[1] ?? '').split(',').map(Number);
    const color =
      rgb.length === 3 && rgb.every((v) => Number.isInteger(v))
        ? (rgb[0] as number) * 65536 + (rgb[1] as number) * 256 + (rgb[2] as number)
        : vocColor(i);
    classOf.set(color, i);
  });
  return { names: rows.map((r) => r[0] as string), classOf };
}

/**
 * An item's masks (`VocSegmentationExtractor`): each instance of `SegmentationObject/` (id 0, the
 * background, left out) a mask of the class `SegmentationClass/` has under it (the greatest, as
 * `CompiledMask.get_instance_labels` keeps), its group the instance id; with the class mask alone, a
 * mask a class.
 */
function masks(
  files: Extracted,
  have: ReadonlySet<string>,
  id: string,
  classOf: Map<number, number>,
): DmAnnotation[] {
  const clsPath = `SegmentationClass/${id}.png`;
  const instPath = `SegmentationObject/${id}.png`;
  const cls = have.has(clsPath) ? readPng(files.bytes(clsPath), clsPath) : undefined;
  const inst = have.has(instPath) ? readPng(files.bytes(instPath), instPath) : undefined;
  const img = inst ?? cls;
  if (!img) return [];
  const found = new Map<number, { bitmap: Bitmap; label: number }>();
  for (let y = 0; y < img.h; y++) {
    for (let x = 0; x < img.w; x++) {
      const classId = cls ? (classOf.get(cls.at(x, y)) ?? 0) : 0;
      const key = inst ? (INSTANCE_IDS.get(inst.at(x, y)) ?? 0) : classId;
      if (inst && key === 0) continue;
      let m = found.get(key);
      if (!m) {
        m = { bitmap: emptyBitmap(img.w, img.h), label: classId };
        m.bitmap.box = { x0: 0, y0: 0, x1: img.w - 1, y1: img.h - 1 };
        found.set(key, m);
      }
      m.bitmap.bits[x * img.h + y] = 1;
      if (classId > m.label) m.label = classId;
    }
  }
  return [...found]
    .sort(([a], [b]) => a - b)
    .map(([key, m]) => ({
      type: 'mask',
      label: m.label,
      group: inst ? key : 0,
      z_order: 0,
      attributes: new Map(),
      bitmap: m.bitmap,
    }));
}

const field = (el: XmlElement, path: string): string => {
  let at: XmlElement | undefined = el;
  for (const p of path.split('/')) at = at && child(at, p);
  if (!at) throw new ImportError(`${ERRORS}.MissingFieldError`, `Missing annotation field '${path}'`);
  return at.text;
};

function boolField(el: XmlElement, key: string): boolean {
  const e = child(el, key);
  if (!e) return false;
  if (e.text !== '0' && e.text !== '1') {
    throw new ImportError(`${ERRORS}.InvalidFieldError`, `Invalid annotation field '${key}' value`);
  }
  return e.text === '1';
}

/** An annotation file's objects as boxes (`_parse_annotations`). */
function objects(root: XmlElement, labels: readonly string[]): DmAnnotation[] {
  const out: DmAnnotation[] = [];
  let id = 0;
  for (const obj of root.children.filter((c) => c.tag === 'object')) {
    id++;
    const name = field(obj, 'name');
    const label = labels.indexOf(name);
    if (label < 0) throw new ImportError(`${ERRORS}.UndeclaredLabelError`, `Undeclared label '${name}'`);
    const [x0, y0, x1, y1] = ['xmin', 'ymin', 'xmax', 'ymax'].map((k) =>
      pyFloat(field(obj, `bndbox/${k}`)),
    ) as [number, number, number, number];
    const attributes = new Map<string, unknown>();
    for (const k of ['difficult', 'truncated', 'occluded']) attributes.set(k, boolField(obj, k));
    const pose = child(obj, 'pose');
    if (pose) attributes.set('pose', pose.text);
    const extra = child(obj, 'attributes');
    for (const a of extra?.children.filter((c) => c.tag === 'attribute') ?? []) {
      attributes.set(field(a, 'name'), field(a, 'value'));
    }
    const [w, h] = [x1 - x0, y1 - y0];
    out.push({ type: 'bbox', label, group: id, z_order: 0, attributes, points: [x0, y0, x0 + w, y0 + h] });
  }
  return out;
}

/** The subsets' item lists (`ImageSets/Main/<subset>.txt`, names without `_`). */
function subsets(files: Extracted, root: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const dir = `${root}ImageSets/Main/`;
  for (const p of files.paths) {
    if (!p.startsWith(dir) || !p.endsWith('.txt')) continue;
    const name = p.slice(dir.length, -4);
    if (name.includes('_') || name.includes('/')) continue;
    const items = files
      .text(p)
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[0] ?? '')
      .filter((l) => l !== '');
    out.set(name, items);
  }
  return out;
}

/** The classification lists of a subset: each item's labels marked ` 1`, in the label map's order. */
function classified(files: Extracted, have: ReadonlySet<string>, labels: readonly string[], subset: string) {
  const out = new Map<string, number[]>();
  labels.forEach((name, index) => {
    const list = `ImageSets/Main/${name}_${subset}.txt`;
    if (!have.has(list)) return;
    for (const line of files.text(list).split('\n')) {
      const [item, flag] = line.trim().split(/\s+/);
      if (item && flag === '1' && !(out.get(item) ?? []).includes(index))
        out.set(item, [...(out.get(item) ?? []), index]);
    }
  });
  return out;
}

function readVoc(file: ImportFile, target: ImportTarget) {
  if (!isZip(file)) throw new ImportError('shutil.ReadError', `${file.name} is not a zip file`);
  const files = extract(file);
  const inst = new ImportInstance(target);
  const have = new Set(files.paths);
  let lists: Map<string, string[]>;
  let annoDir = 'Annotations/';
  if (files.paths.some((p) => p.startsWith('Annotations/'))) {
    lists = subsets(files, '');
  } else {
    // A flat archive: every `.xml` is an annotation file of the `train` subset.
    const xmls = files.paths.filter((p) => p.endsWith('.xml'));
    lists = new Map([['train', xmls.map((p) => stripExt(p.slice(p.lastIndexOf('/') + 1)))]]);
    annoDir = '';
    if (xmls.length === 0) throw missingFile('voc', 'ImageSets/Main/**/*.txt');
  }
  if (lists.size === 0 && annoDir !== '') throw missingFile('voc', 'ImageSets/Main/**/*.txt');
  // `_import` writes the target's labels as the label map when the archive has none.
  const map = labelMap(
    have.has('labelmap.txt')
      ? files.text('labelmap.txt')
      : inst
          .allLabels()
          .filter((l) => l.parent_id === null)
          .map((l) => `${l.name}:::`)
          .join('\n'),
  );
  const labels = map.names;
  const ds: DmDataset = { format: 'voc', labels, items: [] };
  const annoPath = (id: string) =>
    annoDir === ''
      ? (files.paths.find((p) => p.endsWith('.xml') && stripExt(p.slice(p.lastIndexOf('/') + 1)) === id) ??
        '')
      : `${annoDir}${id}.xml`;
  for (const [subset, ids] of lists) {
    const tagged = classified(files, have, labels, subset);
    for (const id of ids) {
      const item: DmItem = { id, ext: '.jpg', annotations: [] };
      for (const index of tagged.get(id) ?? []) {
        item.annotations.push({ type: 'label', label: index, group: 0, z_order: 0, attributes: new Map() });
      }
      const path = annoPath(id);
      if (have.has(path) || annoDir === '') {
        const root = xmlTree(files.text(path));
        const filename = child(root, 'filename')?.text;
        if (filename) item.ext = filename.slice(stripExt(filename).length) || null;
        item.annotations.push(...objects(root, labels));
      }
      item.annotations.push(...masks(files, have, id, map.classOf));
      ds.items.push(item);
    }
  }
  importDmAnnotations(ds, inst);
  return inst.out;
}

export const VOC_IMPORTER: AnnotationImporter = {
  format: 'PASCAL VOC 1.1',
  ext: 'ZIP',
  enabled: true,
  dimension: '2d',
  read: readVoc,
};
