/**
 * "YOLO 1.1" and "Ultralytics YOLO Detection 1.0": Datumaro's `yolo` and `yolo_ultralytics_detection`
 * exporters as CVAT 2.73 runs them (`formats/yolo.py`). A subset without a name (or `default`) is
 * `train`. Each item (frame) has a label file named as its image without the extension, one line a
 * visible, unrotated box: the index of its label among the top-level labels, then the box's centre,
 * width and height over the image's (`"%.6f"`). Other shapes and tags are not written.
 *
 * - YOLO 1.1: `obj.names` (every label, sublabels included, a line each), `obj.data` (`classes`, each
 *   subset's list, `names`, `backup`), `<subset>.txt` (each image as `data/obj_<subset>_data/<name>`),
 *   `obj_<subset>_data/<item>.txt` for every item, empty ones included; images beside them.
 * - Ultralytics YOLO Detection 1.0: `data.yaml` (`yaml.dump`, keys sorted: `names` by index, `path: .`,
 *   each subset's list), `<subset>.txt` (`data/images/<subset>/<name>`), `labels/<subset>/<item>.txt`
 *   only for items with a box; images under `images/<subset>/`.
 */

import { objectsByFrame } from './frame-shapes';
import { pyFixed, round2 } from './py-format';
import { datasetTasks, type ExportSource, type ExportTask, exportFrame, subsetOf } from './source';
import type { ZipEntry } from './zip';

export type YoloFlavour = 'yolo' | 'ultralytics';

/** `_resolve_subsets`: the default subset is `train`. */
export const yoloSubset = (et: ExportTask) => {
  const s = subsetOf(et.task);
  return s === 'default' ? 'train' : s;
};

/** Where a subset's images go. */
export const yoloImageFolder = (flavour: YoloFlavour, subset: string) =>
  flavour === 'yolo' ? `obj_${subset}_data/` : `images/${subset}/`;

/** `_make_yolo_bbox` of a box's corners on a `w`×`h` image. */
function yoloLine(index: number, points: readonly number[], w: number, h: number): string {
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = points.map(round2);
  const values = [(x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h];
  return `${index} ${values.map((v) => pyFixed(v, 6)).join(' ')}\n`;
}

/** A YAML scalar as PyYAML's `dump` writes a string: plain when it can be, else single-quoted. */
function yamlScalar(s: string): string {
  const plain =
    /^[A-Za-z_/][\w ./-]*$/.test(s) &&
    !s.endsWith(' ') &&
    !/^(y|n|yes|no|true|false|on|off|null|~)$/i.test(s);
  return plain ? s : `'${s.replace(/'/g, "''")}'`;
}

/** The tasks by subset, in the order the subsets first appear. */
function bySubset(src: ExportSource): Map<string, ExportTask[]> {
  const out = new Map<string, ExportTask[]>();
  for (const et of datasetTasks(src)) out.set(yoloSubset(et), [...(out.get(yoloSubset(et)) ?? []), et]);
  return out;
}

/**
 * The annotation files of a YOLO export (without the images), made as they are read.
 *
 * @example [...yoloFiles(exportSource(state, 'task', 5)!, 'yolo')].map((e) => e.name)
 */
export function* yoloFiles(src: ExportSource, flavour: YoloFlavour): Generator<ZipEntry> {
  const top = src.allLabels.filter((l) => l.parent_id === null);
  const index = new Map(top.map((l, i) => [l.id, i]));
  const subsets = bySubset(src);
  for (const [subset, tasks] of subsets) {
    const paths: string[] = [];
    for (const et of tasks) {
      const last = et.frames[et.frames.length - 1] ?? -1;
      const objects = objectsByFrame(et.annotations, last + 1);
      for (const frame of et.frames) {
        const f = exportFrame(et, frame);
        paths.push(`data/${yoloImageFolder(flavour, subset)}${f.name}`);
        const lines = (objects.get(frame)?.shapes ?? [])
          .filter((s) => s.type === 'rectangle' && s.rotation % 360 <= 0.00001 && index.has(s.label_id))
          .map((s) => yoloLine(index.get(s.label_id) as number, s.points, f.width, f.height))
          .join('');
        const item = f.name.replace(/\.[^./]*$/, '');
        if (flavour === 'yolo') yield { name: `obj_${subset}_data/${item}.txt`, data: lines };
        else if (lines !== '') yield { name: `labels/${subset}/${item}.txt`, data: lines };
      }
    }
    yield { name: `${subset}.txt`, data: paths.map((p) => `${p}\n`).join('') };
  }
  const lists = [...subsets.keys()];
  if (flavour === 'yolo') {
    yield { name: 'obj.names', data: src.allLabels.map((l) => `${l.name}\n`).join('') };
    const data = [
      `classes = ${src.allLabels.length}`,
      ...lists.map((s) => `${s} = data/${s}.txt`),
      'names = data/obj.names',
      'backup = backup/',
    ];
    yield { name: 'obj.data', data: data.map((l) => `${l}\n`).join('') };
    return;
  }
  // `yaml.dump` sorts the keys: `names` (by index), `path`, each subset's list.
  const names =
    top.length === 0
      ? 'names: {}\n'
      : `names:\n${top.map((l, i) => `  ${i}: ${yamlScalar(l.name)}\n`).join('')}`;
  const keys: [string, string][] = [
    ['names', names],
    ['path', 'path: .\n'],
    ...lists.map((s): [string, string] => [s, `${yamlScalar(s)}: ${yamlScalar(`${s}.txt`)}\n`]),
  ];
  keys.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  yield { name: 'data.yaml', data: keys.map(([, text]) => text).join('') };
}
