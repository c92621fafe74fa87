/**
 * The annotation importers the simulator reads, in the order CVAT 2.73's formats list shows its
 * importers (the order `formats/registry.py` imports the format modules): the requests' workers and
 * `/api/server/annotation/formats` take them from here. CVAT has one importer, "CVAT 1.1", for the files
 * of both its XML exporters (CVAT for images 1.1, CVAT for video 1.1).
 */
import { COCO_IMPORTER, COCO_KEYPOINTS_IMPORTER } from './coco';
import { CVAT_IMPORTER } from './cvat';
import { DATUMARO_IMPORTER } from './datumaro';
import type { AnnotationImporter } from './types';
import { VOC_IMPORTER } from './voc';
import { ULTRALYTICS_DETECTION_IMPORTER, YOLO_IMPORTER } from './yolo';

export const IMPORTERS: readonly AnnotationImporter[] = [
  COCO_IMPORTER,
  COCO_KEYPOINTS_IMPORTER,
  CVAT_IMPORTER,
  DATUMARO_IMPORTER,
  VOC_IMPORTER,
  YOLO_IMPORTER,
  ULTRALYTICS_DETECTION_IMPORTER,
];

/** The importer of a format's display name (`COCO 1.0`), if the simulator reads it. */
export const importerFor = (format: string): AnnotationImporter | undefined =>
  IMPORTERS.find((i) => i.format === format);
