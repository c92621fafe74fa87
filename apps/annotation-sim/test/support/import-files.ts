/** What the annotation import tests share (test/annotation-import*.test.ts): the task, shapes, the form. */
import type { SeedInput } from '../../src/domain/seed';
import { TEAM } from './harness';

/** Org acme (TEAM) with task "road": 6 frames, jobs of frames 0-2 and 3-5, labels car and person. */
export const ROAD: SeedInput = {
  ...TEAM,
  tasks: [
    {
      name: 'road',
      owner: 'alice',
      org: 'acme',
      size: 6,
      segment_size: 3,
      labels: [{ name: 'car' }, { name: 'person' }],
    },
  ],
};

/** A shape as a `PUT …/annotations` body gives it, drawn by hand. */
export const drawn = (labelId: number, frame: number, type: string, points: number[]) => ({
  type,
  frame,
  label_id: labelId,
  points,
  occluded: false,
  z_order: 0,
  rotation: 0,
  group: 0,
  source: 'manual',
  attributes: [],
});

/** A multipart body with one file part `field` (`annotation_file`, as CVAT's SDK sends the file). */
export function fileForm(bytes: Uint8Array, field = 'annotation_file'): { body: Uint8Array; type: string } {
  const b = 'annotations-boundary-7';
  const body = Buffer.concat([
    Buffer.from(
      `--${b}\r\nContent-Disposition: form-data; name="${field}"; filename="annotations.zip"\r\n` +
        'Content-Type: application/zip\r\n\r\n',
    ),
    Buffer.from(bytes),
    Buffer.from(`\r\n--${b}--\r\n`),
  ]);
  return { body: new Uint8Array(body), type: `multipart/form-data; boundary=${b}` };
}
