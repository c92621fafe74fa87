/**
 * "COCO 1.0": Datumaro's `coco_instances` layout as CVAT exports it: one
 * `annotations/instances_<subset>.json` a subset (a task or job: `default`, or the task's subset), keys
 * `licenses, info, categories, images, annotations`, compact JSON. Categories are the labels (ids from
 * 1), images the frames (ids from 1 in export order); the simulator keeps no annotations.
 */
import { FRAME_HEIGHT, FRAME_WIDTH, frameName } from './frames';
import { type ExportSource, subsetOf } from './source';

/** One subset's instances file: its path in the archive, the subset and the JSON text. */
export interface CocoFile {
  path: string;
  subset: string;
  json: string;
}

/**
 * The instances files of an export, one a subset in the order the subsets first appear.
 *
 * @example cocoInstances(exportSource(state, 'task', 5)!) // [{ path: 'annotations/instances_default.json', … }]
 */
export function cocoInstances(src: ExportSource): CocoFile[] {
  const subsets = new Map<string, string[]>();
  for (const et of src.tasks) {
    const subset = src.target === 'project' ? subsetOf(et.task) : 'default';
    const names = subsets.get(subset) ?? [];
    for (const frame of et.frames) {
      const name = frameName(frame);
      if (!names.includes(name)) names.push(name);
    }
    subsets.set(subset, names);
  }
  if (subsets.size === 0) subsets.set('default', []);
  const categories = src.labels.map((l, i) => ({ id: i + 1, name: l.name, supercategory: '' }));
  return [...subsets].map(([subset, names]) => ({
    path: `annotations/instances_${subset}.json`,
    subset,
    json: JSON.stringify({
      licenses: [{ name: '', id: 0, url: '' }],
      info: { contributor: '', date_created: '', description: '', url: '', version: '', year: '' },
      categories,
      images: names.map((file_name, i) => ({
        id: i + 1,
        width: FRAME_WIDTH,
        height: FRAME_HEIGHT,
        file_name,
        license: 0,
        flickr_url: '',
        coco_url: '',
        date_captured: 0,
      })),
      annotations: [],
    }),
  }));
}
