/**
 * "Datumaro 1.0" (`formats/datumaro.py`): Datumaro's own reader, then `import_dm_annotations`. A bare
 * `.json` is read as the default subset's file; a zip's `annotations/<subset>.json` files are read.
 * Labels are the `label` categories (a sublabel under its `parent`); an item is matched by its image's
 * path, then its id, then `attr.frame`; its annotations are tags (`label`), boxes (`bbox` [x, y, w, h]),
 * polygons, polylines, points, ellipses (their box's corners), masks (COCO run lengths) and skeletons
 * (`x, y, visibility` a point, in the `points` category's order), with `attributes`, `group`, `z_order`.
 */
import { rleBitmap } from './coco';
import { type DmAnnotation, type DmDataset, type DmItem, importDmAnnotations } from './dm';
import { extOf, ImportInstance } from './instance';
import { attributeMap, get, type Json, list, num, parseJson } from './json';
import { depthOf, extract, isZip, missingFile } from './source-file';
import type { AnnotationImporter, ImportFile, ImportTarget } from './types';

/** The label categories' names, and each skeleton's points' category indices in order. */
function categories(json: Json) {
  const cats = get(json, 'categories');
  const labels = (get(get(cats, 'label'), 'labels') as Json[] | undefined) ?? [];
  const names = labels.map((l) => String(get(l, 'name')));
  const parents = labels.map((l) => String(get(l, 'parent') ?? ''));
  const points = new Map<number, number[]>();
  for (const p of (get(get(cats, 'points'), 'items') as Json[] | undefined) ?? []) {
    const owner = num(get(p, 'label_id'));
    const order = ((get(p, 'labels') as Json[] | undefined) ?? []).map((n) =>
      names.findIndex((x, i) => x === String(n) && parents[i] === names[owner]),
    );
    points.set(owner, order);
  }
  return { names, points };
}

function annotation(
  a: Json,
  cats: ReturnType<typeof categories>,
  size: [number, number],
): DmAnnotation | undefined {
  const type = String(get(a, 'type'));
  const labelId = get(a, 'label_id');
  const base = {
    label: labelId === undefined || labelId === null ? null : num(labelId),
    group: num(get(a, 'group') ?? null) || 0,
    z_order: num(get(a, 'z_order') ?? null) || 0,
    attributes: attributeMap(get(a, 'attributes')),
  };
  const pts = () => list(a, 'points').map(num);
  switch (type) {
    case 'label':
      return { ...base, type };
    case 'bbox': {
      const [x = 0, y = 0, w = 0, h = 0] = list(a, 'bbox').map(num);
      return { ...base, type, points: [x, y, x + w, y + h] };
    }
    case 'polygon':
    case 'polyline':
    case 'points':
    case 'ellipse':
      return { ...base, type, points: pts() };
    case 'mask': {
      const rle = get(a, 'rle');
      const [h = size[0], w = size[1]] = ((get(rle, 'size') as Json[] | undefined) ?? []).map(num);
      return { ...base, type, bitmap: rleBitmap(rle as Json, h, w) };
    }
    case 'skeleton': {
      const p = pts();
      const order = cats.points.get(base.label ?? -1) ?? [];
      const attrs = (get(a, 'points_attributes') as Json[] | undefined) ?? [];
      const elements: DmAnnotation[] = [];
      for (let i = 0; i * 3 < p.length; i++) {
        elements.push({
          type: 'points',
          label: order[i] ?? null,
          group: 0,
          z_order: 0,
          attributes: attributeMap(attrs[i]),
          points: [p[i * 3] as number, p[i * 3 + 1] as number],
          visibility: [p[i * 3 + 2] as number],
        });
      }
      return { ...base, type, elements };
    }
    default:
      return undefined;
  }
}

function fileItems(json: Json, ds: DmDataset): DmItem[] {
  const cats = categories(json);
  if (ds.labels.length === 0) ds.labels.push(...cats.names);
  return list(json, 'items').map((it) => {
    const image = get(it, 'image');
    const path = get(image, 'path');
    const [h = 0, w = 0] = ((get(image, 'size') as Json[] | undefined) ?? []).map(num);
    const annotations = ((get(it, 'annotations') as Json[] | undefined) ?? [])
      .map((a) => annotation(a, cats, [h, w]))
      .filter((a): a is DmAnnotation => a !== undefined);
    return {
      id: String(get(it, 'id')),
      ext: typeof path === 'string' ? extOf(path) : null,
      frame: get(get(it, 'attr'), 'frame'),
      annotations,
    };
  });
}

function readDatumaro(file: ImportFile, target: ImportTarget) {
  const inst = new ImportInstance(target);
  const ds: DmDataset = { format: 'datumaro', labels: [], items: [] };
  if (!isZip(file)) {
    ds.items = fileItems(parseJson(Buffer.from(file.bytes).toString('utf8'), 'annotations/default.json'), ds);
  } else {
    const files = extract(file);
    const found = files.paths.filter((p) => /(^|\/)annotations\/[^/]+\.json$/.test(p) && depthOf(p) <= 5);
    if (found.length === 0) throw missingFile('datumaro', 'annotations/*.json');
    for (const p of found) ds.items.push(...fileItems(parseJson(files.text(p), p), ds));
  }
  importDmAnnotations(ds, inst);
  return inst.out;
}

export const DATUMARO_IMPORTER: AnnotationImporter = {
  format: 'Datumaro 1.0',
  ext: 'JSON, ZIP',
  enabled: true,
  dimension: '2d',
  read: readDatumaro,
};
