import * as z from 'zod';

/**
 * A job's annotations in a snapshot (`state.annotations`: `[job id, record]` rows), strict as the other
 * records are: the rows of annotations/model.ts, so what is imported is what is exported.
 */
export function jobAnnotationsSnapshot() {
  const id = z.int().min(1);
  const frame = z.int().min(0);
  const attributes = z.array(z.object({ spec_id: z.int(), value: z.string() }).strict());
  const common = {
    id,
    label_id: z.int().min(0),
    group: z.int().min(0).nullable(),
    source: z.string(),
    frame,
    attributes,
  };
  const shapeFields = {
    type: z.enum(['rectangle', 'polygon', 'polyline', 'points', 'ellipse', 'cuboid', 'mask', 'skeleton']),
    occluded: z.boolean(),
    outside: z.boolean(),
    z_order: z.int(),
    rotation: z.number().min(0).max(360),
    points: z.array(z.number()),
  };
  const element = z.object({ ...shapeFields, ...common, score: z.number() }).strict();
  const shape = element.extend({ elements: z.array(element) }).strict();
  const keyframe = z.object({ ...shapeFields, attributes, id, frame }).strict();
  const elementTrack = z.object({ ...common, shapes: z.array(keyframe) }).strict();
  const track = elementTrack.extend({ elements: z.array(elementTrack) }).strict();
  return z
    .object({
      job_id: id,
      tags: z.array(z.object(common).strict()),
      shapes: z.array(shape),
      tracks: z.array(track),
    })
    .strict();
}
