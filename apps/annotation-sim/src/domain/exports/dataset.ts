/**
 * Dataset and annotations exports: the formats the simulator writes, the archive of each (annotations,
 * and with `save_images` the frames as placeholder images), and CVAT's default download names.
 */
import { cocoFiles, INSTANCES } from './coco';
import { keypointsTask } from './coco-keypoints';
import { cvatForVideoXml } from './cvat-video';
import { cvatForImagesXml } from './cvat-xml';
import { datumaroFiles } from './datumaro';
import { placeholderJpeg } from './frames';
import {
  datasetTasks,
  type ExportSource,
  type ExportTarget,
  type ExportTask,
  exportFrame,
  subsetOf,
} from './source';
import { vocFiles } from './voc';
import { yoloFiles, yoloImageFolder, yoloSubset } from './yolo';
import { type ZipEntry, zipArchive } from './zip';

/** What a format writes: its annotation files, and where an export's images go. */
interface FormatWriter {
  files(src: ExportSource, at: number, baseUrl: string): Iterable<ZipEntry>;
  /** The folder (ending in `/`) of a task's images. */
  imageFolder(src: ExportSource, et: ExportTask): string;
}

/** CVAT's XML formats: a task's or job's images under `images/`, a project's under `images/<subset>/`. */
const xmlImages = (src: ExportSource, et: ExportTask) =>
  src.target === 'project' ? `images/${subsetOf(et.task)}/` : 'images/';

const WRITERS = {
  'CVAT for images 1.1': {
    files: (src, at, baseUrl) => [{ name: 'annotations.xml', data: cvatForImagesXml(src, at, baseUrl) }],
    imageFolder: xmlImages,
  },
  'CVAT for video 1.1': {
    files: (src, at, baseUrl) => [{ name: 'annotations.xml', data: cvatForVideoXml(src, at, baseUrl) }],
    imageFolder: xmlImages,
  },
  'COCO 1.0': {
    files: (src) => cocoFiles(src, INSTANCES).map((f) => ({ name: f.path, data: f.json })),
    imageFolder: (_src, et) => `images/${subsetOf(et.task)}/`,
  },
  'YOLO 1.1': {
    files: (src) => yoloFiles(src, 'yolo'),
    imageFolder: (_src, et) => yoloImageFolder('yolo', yoloSubset(et)),
  },
  'Ultralytics YOLO Detection 1.0': {
    files: (src) => yoloFiles(src, 'ultralytics'),
    imageFolder: (_src, et) => yoloImageFolder('ultralytics', yoloSubset(et)),
  },
  'PASCAL VOC 1.1': { files: vocFiles, imageFolder: () => 'JPEGImages/' },
  'COCO Keypoints 1.0': {
    files: (src) => cocoFiles(src, keypointsTask(src.allLabels)).map((f) => ({ name: f.path, data: f.json })),
    imageFolder: (_src, et) => `images/${subsetOf(et.task)}/`,
  },
  'Datumaro 1.0': { files: datumaroFiles, imageFolder: (_src, et) => `images/${subsetOf(et.task)}/` },
} satisfies Record<string, FormatWriter>;

type ExportFormat = keyof typeof WRITERS;

/**
 * The export formats the simulator writes, by CVAT's display name; any other is refused as unknown
 * (`/api/server/annotation/formats` lists these exporters only).
 */
export const EXPORT_FORMATS = Object.keys(WRITERS) as ExportFormat[];

export function isExportFormat(name: string | undefined): name is ExportFormat {
  return Object.hasOwn(WRITERS, name ?? '');
}

/** The frames an export's images are, each once: their path in the archive. */
function* imageEntries(src: ExportSource, writer: FormatWriter): Generator<ZipEntry> {
  const seen = new Set<string>();
  for (const et of datasetTasks(src)) {
    const folder = writer.imageFolder(src, et);
    for (const frame of et.frames) {
      const name = `${folder}${exportFrame(et, frame).name}`;
      if (seen.has(name)) continue;
      seen.add(name);
      yield { name, data: placeholderJpeg() };
    }
  }
}

/**
 * The archive of a dataset (`saveImages`) or annotations export in `format` (one of
 * {@link EXPORT_FORMATS}), made at `at`: the format's files, then with `saveImages` the images.
 */
export function datasetArchive(
  src: ExportSource,
  format: string,
  saveImages: boolean,
  at: number,
  baseUrl: string,
): Uint8Array {
  const writer: FormatWriter = WRITERS[isExportFormat(format) ? format : 'CVAT for images 1.1'];
  function* entries() {
    yield* writer.files(src, at, baseUrl);
    if (saveImages) yield* imageEntries(src, writer);
  }
  return zipArchive(entries(), at);
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
