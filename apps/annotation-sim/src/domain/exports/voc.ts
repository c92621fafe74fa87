/**
 * "PASCAL VOC 1.1": Datumaro's `voc` exporter as CVAT 2.73 runs it (`formats/pascal_voc.py`: ellipses
 * made masks first, `label_map="source"`). The label map is `background` then every label (sublabels
 * included), coloured by VOC's generated colormap in that order, no parts or actions. Each frame has
 * `Annotations/<item>.xml` (lxml's pretty print: folder, filename, source, size, segmented, an
 * `<object>` per visible box with its attributes); `ImageSets/Main/<subset>.txt` lists every item,
 * `ImageSets/Main/<label>_<subset>.txt` the items with tags (` 1` when the label is among them, `-1`
 * else); `ImageSets/Layout`, `Action` and `Segmentation` list the items without any annotation (and
 * Segmentation those with masks); a frame with masks (mask shapes, ellipses) has its class and
 * instance masks as PNG under `SegmentationClass/` and `SegmentationObject/`. Polygons, polylines,
 * points, cuboids and skeletons are not VOC objects.
 */

import { pythonFloatRepr } from '../python-json';
import { type AttrConvert, attributeConverter } from './coco';
import { escapeText } from './cvat-meta';
import { objectsByFrame } from './frame-shapes';
import { type Bitmap, cvatMaskBitmap, ellipseBitmap } from './masks';
import { rgbPng } from './png';
import { round2 } from './py-format';
import { datasetTasks, type ExportSource, type ExportTask, exportFrame, subsetOf } from './source';
import type { ZipEntry } from './zip';

/** VOC's `generate_colormap`: index bits spread over the colour channels, high bits first. */
function vocColor(index: number): [number, number, number] {
  const color: [number, number, number] = [0, 0, 0];
  let i = index;
  for (let j = 7; j >= 0; j--) {
    for (let c = 0; c < 3; c++) color[c] = (color[c] as number) | (((i >> c) & 1) << j);
    i >>= 3;
  }
  return color;
}

/** Python's `str()` of an attribute value as Datumaro holds it. */
function pyStr(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (v !== null && typeof v === 'object' && 'value' in v)
    return pythonFloatRepr((v as { value: number }).value);
  return String(v);
}

/** An element of lxml's pretty print: text inline, children indented two spaces a level. */
type Node = [string, string | Node[]];

function writeNode(out: string[], [tag, body]: Node, level: number): void {
  const pad = '  '.repeat(level);
  if (typeof body === 'string') {
    out.push(`${pad}<${tag}>${escapeText(body)}</${tag}>\n`);
    return;
  }
  out.push(`${pad}<${tag}>\n`);
  for (const child of body) writeNode(out, child, level + 1);
  out.push(`${pad}</${tag}>\n`);
}

const BUILTIN = new Set(['difficult', 'pose', 'truncated', 'occluded']);

/** One frame's `<annotation>` document: its boxes as objects. */
function annotationXml(
  item: string,
  filename: string,
  size: { width: number; height: number },
  boxes: { label: string; points: readonly number[]; attrs: Record<string, unknown> }[],
  segmented: boolean,
): string {
  const objects = boxes.map(({ label, points, attrs }): Node => {
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = points.map(round2);
    const w = x1 - x0;
    const h = y1 - y0;
    const int = (k: string) =>
      String(Number(attrs[k] === true ? 1 : attrs[k] === false ? 0 : (attrs[k] ?? 0)));
    const extra = Object.entries(attrs).filter(([k]) => !BUILTIN.has(k));
    const body: Node[] = [['name', label]];
    if ('pose' in attrs) body.push(['pose', pyStr(attrs.pose)]);
    body.push(
      ['truncated', int('truncated')],
      ['occluded', int('occluded')],
      ['difficult', int('difficult')],
      [
        'bndbox',
        [
          ['xmin', pythonFloatRepr(x0)],
          ['ymin', pythonFloatRepr(y0)],
          ['xmax', pythonFloatRepr(x0 + w)],
          ['ymax', pythonFloatRepr(y0 + h)],
        ],
      ],
    );
    if (extra.length > 0) {
      body.push([
        'attributes',
        extra.map(
          ([k, v]): Node => [
            'attribute',
            [
              ['name', k],
              ['value', pyStr(v)],
            ],
          ],
        ),
      ]);
    }
    return ['object', body];
  });
  const out: string[] = [];
  writeNode(
    out,
    [
      'annotation',
      [
        ['folder', item.includes('_') ? item.slice(0, item.indexOf('_')) : ''],
        ['filename', filename],
        [
          'source',
          [
            ['database', 'Unknown'],
            ['annotation', 'Unknown'],
            ['image', 'Unknown'],
          ],
        ],
        [
          'size',
          [
            ['width', String(size.width)],
            ['height', String(size.height)],
            ['depth', ''],
          ],
        ],
        ['segmented', segmented ? '1' : '0'],
        ...objects,
      ],
    ],
    0,
  );
  return out.join('');
}

/** A frame's masks painted in `z_order` order: its class mask (label indices) and instance mask. */
function segmentation(masks: { bitmap: Bitmap; classIndex: number }[], w: number, h: number) {
  const cls = new Uint16Array(w * h);
  const inst = new Uint16Array(w * h);
  masks.forEach((m, i) => {
    const { x0, y0, x1, y1 } = m.bitmap.box;
    for (let x = x0; x <= x1; x++) {
      for (let y = y0; y <= y1; y++) {
        const k = x * h + y;
        if (m.bitmap.bits[k] === 0) continue;
        cls[k] = m.classIndex;
        inst[k] = i + 1;
      }
    }
  });
  // The bitmaps are column-major; a PNG row is y.
  const colors: [number, number, number][] = [];
  const color = (v: number) => {
    colors[v] ??= vocColor(v);
    return colors[v];
  };
  const paint = (values: Uint16Array) => rgbPng(w, h, (x, y) => color(values[x * h + y] as number));
  return { classPng: paint(cls), instancePng: paint(inst) };
}

/** The items of one subset, what each holds, for the lists. */
interface ListState {
  all: string[];
  empty: string[];
  segmented: string[];
  tags: Map<string, Set<number>>;
}

/**
 * The files of a PASCAL VOC export (without the images), made as they are read.
 *
 * @example [...vocFiles(exportSource(state, 'task', 5)!)].map((e) => e.name)
 */
export function* vocFiles(src: ExportSource): Generator<ZipEntry> {
  const labels = src.allLabels;
  // The label map: background, then the labels; a label's class index is its place there.
  const classIndex = new Map(labels.map((l, i) => [l.id, i + 1]));
  const name = new Map(labels.map((l) => [l.id, l.name]));
  const attrsOf: AttrConvert = attributeConverter(labels);
  const subsets = new Map<string, ExportTask[]>();
  for (const et of datasetTasks(src))
    subsets.set(subsetOf(et.task), [...(subsets.get(subsetOf(et.task)) ?? []), et]);
  for (const [subset, tasks] of subsets) {
    const lists: ListState = { all: [], empty: [], segmented: [], tags: new Map() };
    for (const et of tasks) {
      const last = et.frames[et.frames.length - 1] ?? -1;
      const objects = objectsByFrame(et.annotations, last + 1);
      for (const frame of et.frames) {
        const f = exportFrame(et, frame);
        const item = f.name.replace(/\.[^./]*$/, '');
        const o = objects.get(frame);
        const shapes = o?.shapes ?? [];
        const boxes = shapes
          .filter((s) => s.type === 'rectangle')
          .map((s) => ({ label: name.get(s.label_id) ?? '', points: s.points, attrs: attrsOf(s) }));
        const masks = shapes
          .filter((s) => s.type === 'mask' || s.type === 'ellipse')
          .map((s) => ({
            bitmap:
              s.type === 'mask'
                ? cvatMaskBitmap(s.points, f.width, f.height)
                : ellipseBitmap(s.points, s.rotation, f.width, f.height),
            classIndex: classIndex.get(s.label_id) ?? 0,
          }));
        yield {
          name: `Annotations/${item}.xml`,
          data: annotationXml(item, f.name, f, boxes, masks.length > 0),
        };
        lists.all.push(item);
        for (const t of o?.tags ?? []) {
          lists.tags.set(item, (lists.tags.get(item) ?? new Set()).add(t.label_id));
        }
        if (masks.length > 0) {
          const seg = segmentation(masks, f.width, f.height);
          yield { name: `SegmentationClass/${item}.png`, data: seg.classPng };
          yield { name: `SegmentationObject/${item}.png`, data: seg.instancePng };
          lists.segmented.push(item);
        }
        // A 2D cuboid makes no Datumaro annotation: a frame with only cuboids counts as empty.
        const annotated = shapes.some((s) => s.type !== 'cuboid') || (o?.tags.length ?? 0) > 0;
        if (!annotated) lists.empty.push(item);
      }
    }
    yield* subsetLists(subset, lists, labels);
  }
  const map = ['background', ...labels.map((l) => l.name)].map((n, i) => `${n}:${vocColor(i).join(',')}::\n`);
  yield { name: 'labelmap.txt', data: `# label:color_rgb:parts:actions\n${map.join('')}` };
}

/** The `ImageSets` lists of a subset (a list with no item is not written). */
function* subsetLists(
  subset: string,
  lists: ListState,
  labels: ExportSource['allLabels'],
): Generator<ZipEntry> {
  const lines = (items: string[]) => items.map((i) => `${i}\n`).join('');
  yield { name: `ImageSets/Main/${subset}.txt`, data: lines(lists.all) };
  if (lists.tags.size > 0) {
    for (const l of [{ id: -1, name: 'background' }, ...labels]) {
      const text = [...lists.tags].map(([item, ids]) => `${item} ${ids.has(l.id) ? ' 1' : '-1'}\n`).join('');
      yield { name: `ImageSets/Main/${l.name}_${subset}.txt`, data: text };
    }
  }
  if (lists.empty.length > 0) {
    yield { name: `ImageSets/Layout/${subset}.txt`, data: lines(lists.empty) };
    yield { name: `ImageSets/Action/${subset}.txt`, data: lines(lists.empty) };
  }
  const segm = [...new Set([...lists.segmented, ...lists.empty])];
  const order = new Map(lists.all.map((item, i) => [item, i]));
  segm.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  if (segm.length > 0) yield { name: `ImageSets/Segmentation/${subset}.txt`, data: lines(segm) };
}
