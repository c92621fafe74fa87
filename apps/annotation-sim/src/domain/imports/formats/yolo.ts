/**
 * "YOLO 1.1" and "Ultralytics YOLO Detection 1.0" (`formats/yolo.py`, `_import_common`): the archive
 * unpacked, Datumaro's `yolo` or `yolo_ultralytics_detection` reader, then `import_dm_annotations`. The
 * labels are `obj.names`' lines (YOLO 1.1) or `data.yaml`'s `names` (Ultralytics); the items are the
 * images each subset's list names; an item's label file (`obj_<subset>_data/<item>.txt`,
 * `labels/<subset>/<item>.txt`) holds a box a line: a label index, then the centre, width and height
 * over the frame's size (the target's, as CVAT passes `image_info`). Boxes only: nothing else is read.
 */
import { type DmAnnotation, type DmDataset, type DmItem, importDmAnnotations } from './dm';
import { extOf, ImportInstance, stripExt } from './instance';
import { pyFloat, pyInt } from './py';
import { depthOf, type Extracted, extract, isZip, missingFile } from './source-file';
import { type AnnotationImporter, ImportError, type ImportFile, type ImportTarget } from './types';

type Flavour = 'yolo' | 'yolo_ultralytics_detection';

/** `key = value` lines of `obj.data`. */
function config(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) out.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return out;
}

/** A YAML scalar as PyYAML reads a plain or quoted one. */
const scalar = (s: string) => {
  const t = s.trim();
  if (t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  if (t.startsWith('"') && t.endsWith('"')) return JSON.parse(t) as string;
  return t;
};

/** `data.yaml` as the exporter writes it: `names` (a map by index or a list), `path`, the subsets. */
function dataYaml(text: string): { names: string[]; subsets: Map<string, string> } {
  const names: string[] = [];
  const subsets = new Map<string, string>();
  let inNames = false;
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const nested = /^\s+(-\s*(.*)|(\d+)\s*:\s*(.*))$/.exec(line);
    if (inNames && nested) {
      if (nested[2] !== undefined) names.push(scalar(nested[2]));
      else names[Number(nested[3])] = scalar(nested[4] ?? '');
      continue;
    }
    inNames = false;
    const m = /^([^:\s][^:]*):\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = scalar(m[1] as string);
    const value = (m[2] as string).trim();
    if (key === 'names') {
      inNames = true;
      if (value.startsWith('['))
        names.push(
          ...value
            .slice(1, -1)
            .split(',')
            .filter((s) => s.trim() !== '')
            .map(scalar),
        );
      else if (value.startsWith('{') && value !== '{}') {
        for (const kv of value.slice(1, -1).split(','))
          names[Number(kv.split(':')[0])] = scalar(kv.split(':')[1] ?? '');
      }
    } else if (key !== 'path') subsets.set(key, scalar(value));
  }
  return { names, subsets };
}

/** The boxes of a label file over a `w`×`h` image (Datumaro's `_parse_annotations`). */
function boxes(text: string, labels: readonly string[], w: number, h: number): DmAnnotation[] {
  const out: DmAnnotation[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const parts = line.split(/\s+/);
    if (parts.length !== 5) {
      throw new ImportError(
        'datumaro.components.errors.InvalidAnnotationError',
        `Unexpected field count ${parts.length} in the bbox description. Expected 5 fields (label, xc, yc, w, h).`,
      );
    }
    const [id, xc, yc, bw, bh] = parts as [string, string, string, string, string];
    const label = pyInt(id);
    if (label < 0 || label >= labels.length) {
      throw new ImportError('datumaro.components.errors.UndeclaredLabelError', `Undeclared label '${label}'`);
    }
    const fw = pyFloat(bw);
    const fh = pyFloat(bh);
    const x = pyFloat(xc) - fw * 0.5;
    const y = pyFloat(yc) - fh * 0.5;
    const [px, py, pw, ph] = [x * w, y * h, fw * w, fh * h];
    out.push({
      type: 'bbox',
      label,
      group: 0,
      z_order: 0,
      attributes: new Map(),
      points: [px, py, px + pw, py + ph],
    });
  }
  return out;
}

/** The subsets' lists: `obj.data`'s or `data.yaml`'s, each a list file of image paths under `data/`. */
function subsetLists(
  files: Extracted,
  flavour: Flavour,
  root: string,
): { labels: string[]; lists: Map<string, string> } {
  if (flavour === 'yolo') {
    const cfg = config(files.text(`${root}obj.data`));
    const namesPath = (cfg.get('names') ?? 'data/obj.names').replace(/^data\//, '');
    const labels = files
      .text(`${root}${namesPath}`)
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const lists = new Map<string, string>();
    for (const [k, v] of cfg)
      if (!['classes', 'names', 'backup'].includes(k)) lists.set(k, v.replace(/^data\//, ''));
    return { labels, lists };
  }
  const y = dataYaml(files.text(`${root}data.yaml`));
  return { labels: y.names, lists: y.subsets };
}

function readYolo(flavour: Flavour, file: ImportFile, target: ImportTarget) {
  if (!isZip(file)) throw new ImportError('shutil.ReadError', `${file.name} is not a zip file`);
  const files = extract(file);
  const meta = flavour === 'yolo' ? 'obj.data' : 'data.yaml';
  const metaPath = files.paths.find((p) => (p === meta || p.endsWith(`/${meta}`)) && depthOf(p) <= 4);
  if (metaPath === undefined) throw missingFile(flavour, meta);
  const root = metaPath.slice(0, metaPath.length - meta.length);
  const { labels, lists } = subsetLists(files, flavour, root);
  const inst = new ImportInstance(target);
  const ds: DmDataset = { format: flavour, labels, items: [] };
  const have = new Set(files.paths);
  const pending: { item: DmItem; labelFile: string }[] = [];
  for (const [subset, list] of lists) {
    if (!have.has(`${root}${list}`)) continue;
    for (const raw of files.text(`${root}${list}`).split('\n')) {
      const path = raw.trim().replace(/^data\//, '');
      if (path === '') continue;
      const folder = flavour === 'yolo' ? `obj_${subset}_data/` : `images/${subset}/`;
      const rel = path.startsWith(folder) ? path.slice(folder.length) : path;
      const labelFile =
        flavour === 'yolo' ? `${root}${stripExt(path)}.txt` : `${root}labels/${subset}/${stripExt(rel)}.txt`;
      pending.push({ item: { id: stripExt(rel), ext: extOf(rel), annotations: [] }, labelFile });
    }
  }
  ds.items = pending.map((p) => p.item);
  for (const { item, labelFile } of pending) {
    if (!have.has(labelFile)) continue;
    const text = files.text(labelFile);
    if (text.trim() === '') continue;
    const frame = inst.matchFrame(item.id + (item.ext ?? ''), null) ?? inst.matchFrame(item.id, null, false);
    const info = frame === undefined ? undefined : inst.frameInfo.get(frame);
    if (!info) {
      throw new ImportError(
        'datumaro.components.errors.DatasetImportError',
        `Can't find image info for '${item.id}'`,
      );
    }
    item.annotations = boxes(text, labels, info.width, info.height);
  }
  importDmAnnotations(ds, inst);
  return inst.out;
}

export const YOLO_IMPORTER: AnnotationImporter = {
  format: 'YOLO 1.1',
  ext: 'ZIP',
  enabled: true,
  dimension: '2d',
  read: (file, target) => readYolo('yolo', file, target),
};

export const ULTRALYTICS_DETECTION_IMPORTER: AnnotationImporter = {
  format: 'Ultralytics YOLO Detection 1.0',
  ext: 'ZIP',
  enabled: true,
  dimension: '2d',
  read: (file, target) => readYolo('yolo_ultralytics_detection', file, target),
};
