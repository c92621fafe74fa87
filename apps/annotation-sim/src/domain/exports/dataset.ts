/**
 * Dataset and annotations exports: the formats the simulator writes, the archive of each (annotations,
 * and with `save_images` the frames as placeholder images), and CVAT's default download names.
 */
import { cocoInstances } from './coco';
import { cvatForVideoXml } from './cvat-video';
import { cvatForImagesXml } from './cvat-xml';
import { placeholderJpeg } from './frames';
import { datasetTasks, type ExportSource, type ExportTarget, exportFrame, subsetOf } from './source';
import { type ZipEntry, zipArchive } from './zip';

/**
 * The export formats the simulator writes, by CVAT's display name; any other is refused as unknown
 * (`/api/server/annotation/formats` lists these exporters only).
 */
export const EXPORT_FORMATS = ['CVAT for images 1.1', 'CVAT for video 1.1', 'COCO 1.0'] as const;

type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function isExportFormat(name: string | undefined): name is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(name ?? '');
}

/** The frames an export's images are: their path in the archive under `images/`. */
function imageEntries(src: ExportSource, bySubset: boolean): ZipEntry[] {
  const out: ZipEntry[] = [];
  const seen = new Set<string>();
  for (const et of datasetTasks(src)) {
    const folder = bySubset ? `images/${subsetOf(et.task)}/` : 'images/';
    for (const frame of et.frames) {
      const name = `${folder}${exportFrame(et, frame).name}`;
      if (seen.has(name)) continue;
      seen.add(name);
      out.push({ name, data: placeholderJpeg() });
    }
  }
  return out;
}

/**
 * The archive of a dataset (`saveImages`) or annotations export in `format`, made at `at`.
 * "CVAT for images 1.1" and "CVAT for video 1.1": `annotations.xml`, images under `images/` (a
 * project's under `images/<subset>/`); "COCO 1.0": `annotations/instances_<subset>.json`, images under
 * `images/<subset>/`.
 */
export function datasetArchive(
  src: ExportSource,
  format: string,
  saveImages: boolean,
  at: number,
  baseUrl: string,
): Uint8Array {
  const entries: ZipEntry[] = [];
  if (format === 'COCO 1.0') {
    for (const f of cocoInstances(src)) entries.push({ name: f.path, data: f.json });
  } else {
    const xml = format === 'CVAT for video 1.1' ? cvatForVideoXml : cvatForImagesXml;
    entries.push({ name: 'annotations.xml', data: xml(src, at, baseUrl) });
  }
  if (saveImages) entries.push(...imageEntries(src, format === 'COCO 1.0' || src.target === 'project'));
  return zipArchive(entries, at);
}

/** `%Y_%m_%d_%H_%M_%S` of a stored DRF date. */
const fileTimestamp = (drf: string) => drf.slice(0, 19).replace(/[-T:]/g, '_');

/**
 * CVAT's default name of a dataset or annotations export: `<target>_<id>_<dataset|annotations>_<the
 * resource's updated_date>_<format>.zip`, lowercased (`task_5_dataset_2026_01_01_00_00_00_coco 1.0.zip`).
 */
export function datasetFileName(
  target: ExportTarget,
  id: number,
  updatedDate: string,
  format: string,
  saveImages: boolean,
): string {
  const kind = saveImages ? 'dataset' : 'annotations';
  return `${target}_${id}_${kind}_${fileTimestamp(updatedDate)}_${format}.zip`.toLowerCase();
}

/** CVAT's default name of a backup: `<target>_<name>_backup_<updated_date>.zip`, lowercased. */
export function backupFileName(target: ExportTarget, name: string, updatedDate: string): string {
  return `${target}_${name}_backup_${fileTimestamp(updatedDate)}.zip`.toLowerCase();
}
