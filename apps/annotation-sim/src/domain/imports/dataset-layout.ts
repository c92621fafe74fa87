/**
 * Where a dataset archive keeps its subsets, images and label names, by import format: what CVAT 2.73's
 * `load_dataset_data` (`dataset_manager/bindings.py`) reads of the Datumaro dataset before any
 * annotation is imported. Each subset becomes a task named after it; its frames are the subset's images,
 * named by their path under the subset's image folder (`data_root`, the common root of the items'
 * media); the label names are the dataset's categories (the labels a label-less project is given).
 * The annotations themselves are the format's importer's (`imports/formats/`).
 *
 * Chosen: a subset's items are its image files (Datumaro lists the items its annotation files name and
 * drops those without an image, so an image no annotation file lists becomes a frame here).
 */
import type { ZipReader } from './zip-read';

/** One image of a subset: its member in the archive and the frame name it is given. */
interface DatasetImage {
  member: string;
  name: string;
}

/** One subset: its name, its images (by frame name) and every member of the archive that is its own. */
export interface DatasetSubset {
  name: string;
  images: DatasetImage[];
  members: string[];
}

/** What a layout finds: the subsets in Datumaro's order, members every subset shares, label names. */
export interface DatasetFound {
  subsets: DatasetSubset[];
  shared: string[];
  labels: string[];
  /**
   * A shared member as one subset's task reads it (Datumaro matches items by subset and id; the
   * importers match frames by name only): the items of other subsets left out. None: as it is.
   */
  narrow?: (member: string, subset: string, bytes: Buffer) => Uint8Array;
}

type Layout = (zip: ZipReader) => DatasetFound;

/** `CvatPath.MEDIA_EXTS`, and the image extensions Datumaro's `find_images` takes for the other formats. */
const CVAT_EXTS = /\.(jpe?g|png)$/i;
const IMAGE_EXTS = /\.(jpe?g|jpe|png|bmp|gif|tiff?|webp|jp2|pbm|pgm|ppm|pxm|pnm|dib|ras|exr|sr)$/i;

const text = (zip: ZipReader, name: string) => zip.read(name).toString('utf8');
const unique = (names: Iterable<string>) => [...new Set(names)];
const byName = (a: DatasetImage, b: DatasetImage) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The images under `folder` (any depth), named by their path below it. */
function imagesUnder(names: readonly string[], folder: string, exts = IMAGE_EXTS): DatasetImage[] {
  return names
    .filter((n) => n.startsWith(folder) && !n.endsWith('/') && exts.test(n))
    .map((member) => ({ member, name: member.slice(folder.length) }))
    .sort(byName);
}

function parseJson(zip: ZipReader, name: string): unknown {
  try {
    return JSON.parse(text(zip, name));
  } catch {
    return undefined;
  }
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const xmlText = (s: string) => s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => XML_ENTITIES[e] ?? '');

/**
 * CVAT 1.1 (`formats/cvat.py` `CvatExtractor`): the subsets of `<meta>`'s `<subsets>` (one a line; none:
 * `default`), each one's images `images/<subset>/*.*` (only `images/*.*` for a lone `default` with no
 * folder of its own), one level deep, `.jpg`, `.jpeg` and `.png`; the labels of the meta.
 */
const cvat: Layout = (zip) => {
  const names = zip.names();
  const xml =
    names.find((n) => n === 'annotations.xml') ?? names.find((n) => !n.includes('/') && n.endsWith('.xml'));
  if (xml === undefined) return { subsets: [], shared: [], labels: [] };
  const doc = text(zip, xml);
  const meta = doc.slice(0, Math.max(0, doc.indexOf('</meta>')));
  const listed = /<subsets>([^<]*)<\/subsets>/.exec(meta)?.[1];
  const subsetNames = listed ? xmlText(listed).split('\n') : ['default'];
  const oneLevel = (folder: string) =>
    imagesUnder(names, folder, CVAT_EXTS).filter((i) => !i.name.includes('/'));
  const flat =
    subsetNames.length === 1 &&
    subsetNames[0] === 'default' &&
    !names.some((n) => n.startsWith('images/default/'));
  const subsets = subsetNames.map((name) => {
    const images = oneLevel(flat ? 'images/' : `images/${name}/`);
    return { name, images, members: images.map((i) => i.member) };
  });
  const labels = [...meta.matchAll(/<label>\s*<name>([^<]*)<\/name>/g)].map((m) => xmlText(m[1] ?? ''));
  return { subsets, shared: [xml], labels: unique(labels), narrow: listed ? cvatSubsetOf : undefined };
};

/**
 * A project's CVAT XML with only the `<image>` and `<track>` elements of `subset` (their `subset`
 * attribute; a project's tracks number their frames within their subset, as its task will).
 */
function cvatSubsetOf(_member: string, subset: string, bytes: Buffer): Uint8Array {
  const doc = bytes
    .toString('utf8')
    .replace(
      /[ \t]*<(image|track)\b([^>]*?)(\/>|>[\s\S]*?<\/\1>)\n?/g,
      (all, _tag: string, attrs: string) => {
        const own = /\bsubset="([^"]*)"/.exec(attrs)?.[1];
        return own === undefined || xmlText(own) === subset ? all : '';
      },
    );
  return Buffer.from(doc, 'utf8');
}

/** COCO (`instances_`, `person_keypoints_`): `annotations/<task>_<subset>.json`, images under `images/<subset>/`. */
const coco =
  (task: string): Layout =>
  (zip) => {
    const names = zip.names();
    const pattern = new RegExp(`^annotations/${task}_(.+)\\.json$`);
    const files = names.filter((n) => pattern.test(n)).sort();
    const labels: string[] = [];
    const subsets = files.map((file) => {
      const name = pattern.exec(file)?.[1] ?? '';
      const doc = parseJson(zip, file) as { categories?: { name?: unknown }[] } | undefined;
      for (const c of Array.isArray(doc?.categories) ? doc.categories : []) {
        if (typeof c?.name === 'string') labels.push(c.name);
      }
      const images = imagesUnder(names, `images/${name}/`);
      return { name, images, members: [file, ...images.map((i) => i.member)] };
    });
    return { subsets, shared: [], labels: unique(labels) };
  };

/** Datumaro 1.0: `annotations/<subset>.json` with the categories, images under `images/<subset>/`. */
const datumaro: Layout = (zip) => {
  const names = zip.names();
  const files = names.filter((n) => /^annotations\/[^/]+\.json$/.test(n)).sort();
  const labels: string[] = [];
  const subsets = files.map((file) => {
    const name = file.slice('annotations/'.length, -'.json'.length);
    const doc = parseJson(zip, file) as { categories?: { label?: { labels?: { name?: unknown }[] } } };
    for (const l of doc?.categories?.label?.labels ?? [])
      if (typeof l?.name === 'string') labels.push(l.name);
    const images = imagesUnder(names, `images/${name}/`);
    return { name, images, members: [file, ...images.map((i) => i.member)] };
  });
  return { subsets, shared: [], labels: unique(labels) };
};

/** YOLO 1.1: the subsets `obj.data` names (`train = data/train.txt`), images in `obj_<subset>_data/`, `obj.names`. */
const yolo: Layout = (zip) => {
  const names = zip.names();
  if (!names.includes('obj.data')) return { subsets: [], shared: [], labels: [] };
  const keys = text(zip, 'obj.data')
    .split('\n')
    .map((line) => line.split('=')[0]?.trim() ?? '')
    .filter((k) => k !== '' && !['classes', 'names', 'backup'].includes(k));
  const subsets = keys.map((name) => {
    const folder = `obj_${name}_data/`;
    const images = imagesUnder(names, folder);
    const own = names.filter((n) => n.startsWith(folder) || n === `${name}.txt`);
    return { name, images, members: own };
  });
  const labels = names.includes('obj.names')
    ? text(zip, 'obj.names')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '')
    : [];
  return { subsets, shared: ['obj.data', 'obj.names'].filter((n) => names.includes(n)), labels };
};

/** Ultralytics YOLO: `data.yaml` (its `names`), images in `images/<subset>/`, labels in `labels/<subset>/`. */
const ultralytics: Layout = (zip) => {
  const names = zip.names();
  if (!names.includes('data.yaml')) return { subsets: [], shared: [], labels: [] };
  const yaml = text(zip, 'data.yaml');
  const subsetNames = unique(
    names.map((n) => /^images\/([^/]+)\//.exec(n)?.[1]).filter((s): s is string => s !== undefined),
  ).sort();
  const subsets = subsetNames.map((name) => {
    const images = imagesUnder(names, `images/${name}/`);
    const own = names.filter(
      (n) => n.startsWith(`images/${name}/`) || n.startsWith(`labels/${name}/`) || n === `${name}.txt`,
    );
    return { name, images, members: own };
  });
  const block = /^names:\s*\n((?:[ \t]+.*\n?)*)/m.exec(yaml)?.[1] ?? '';
  const labels = [...block.matchAll(/^[ \t]+\d+:\s*(.*?)\s*$/gm)].map((m) => unquote(m[1] ?? ''));
  return { subsets, shared: ['data.yaml'], labels };
};

/** A YAML scalar as `yaml.dump` writes a name: plain, or single-quoted with `''` for a quote. */
const unquote = (s: string) =>
  s.startsWith("'") && s.endsWith("'") ? s.slice(1, -1).replace(/''/g, "'") : s;

/**
 * PASCAL VOC 1.1: the subsets of `ImageSets/Main/<subset>.txt` (a list with no `_`; `<label>_<subset>.txt`
 * are a label's lists), each item's image `JPEGImages/<id>.<ext>`, the labels of `labelmap.txt`.
 */
const voc: Layout = (zip) => {
  const names = zip.names();
  const lists = names.filter((n) => /^ImageSets\/Main\/[^/_]+\.txt$/.test(n)).sort();
  const jpegs = imagesUnder(names, 'JPEGImages/');
  const byId = new Map(jpegs.map((i) => [i.name.replace(/\.[^./]*$/, ''), i]));
  const subsets = lists.map((list) => {
    const name = list.slice('ImageSets/Main/'.length, -'.txt'.length);
    const ids = text(zip, list)
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[0] ?? '')
      .filter((id) => id !== '');
    const images = ids.map((id) => byId.get(id)).filter((i): i is DatasetImage => i !== undefined);
    const own = names.filter(
      (n) => n.startsWith('ImageSets/') && (n.endsWith(`/${name}.txt`) || n.endsWith(`_${name}.txt`)),
    );
    const itemFiles = ids.flatMap((id) =>
      ['Annotations/', 'SegmentationClass/', 'SegmentationObject/'].flatMap((dir) =>
        names.filter((n) => n.startsWith(`${dir}${id}.`)),
      ),
    );
    return {
      name,
      images: images.sort(byName),
      members: [...own, ...itemFiles, ...images.map((i) => i.member)],
    };
  });
  const labels = names.includes('labelmap.txt')
    ? text(zip, 'labelmap.txt')
        .split('\n')
        .filter((l) => l.trim() !== '' && !l.startsWith('#'))
        .map((l) => l.split(':')[0] ?? '')
    : [];
  return { subsets, shared: names.filter((n) => n === 'labelmap.txt'), labels };
};

/** The layouts by import format (CVAT's importer display names). */
const LAYOUTS: Readonly<Record<string, Layout>> = {
  'CVAT 1.1': cvat,
  'COCO 1.0': coco('instances'),
  'COCO Keypoints 1.0': coco('person_keypoints'),
  'Datumaro 1.0': datumaro,
  'YOLO 1.1': yolo,
  'Ultralytics YOLO Detection 1.0': ultralytics,
  'PASCAL VOC 1.1': voc,
};

/** The import formats whose dataset layout is known (a project's dataset import of another is refused). */
export const DATASET_IMPORT_FORMATS = Object.keys(LAYOUTS);

/** What the archive holds in `format`'s layout; undefined for a format without one. */
export function datasetLayout(format: string, zip: ZipReader): DatasetFound | undefined {
  return Object.hasOwn(LAYOUTS, format) ? LAYOUTS[format]?.(zip) : undefined;
}
