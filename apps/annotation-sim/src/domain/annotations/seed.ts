/**
 * A seeded task's annotations (`tasks[i].annotations` of a seed): tags and shapes naming their label and
 * attributes by name, on the task's frames, stored in the jobs whose frames hold them as a
 * `PATCH ?action=create` of the task would store them (CVAT's ids, its checks).
 */
import * as z from 'zod';
import { fail, ok, type Result } from '../errors';
import { labelOwnerOfTask, labelsOfOwner } from '../label-read';
import type { JobRec, LabelRec, TaskRec } from '../model';
import type { MutationContext } from '../mutation';
import type { DataIn, ShapeIn, TagIn } from './model';
import { applyWrite, checkWrite, labelsOfTask } from './store';
import { splitByJob } from './task-split';

const SHAPE_TYPES = ['rectangle', 'polygon', 'polyline', 'points', 'ellipse', 'cuboid', 'mask'] as const;

/** The seed shape of a task's annotations (labels and attributes by name). */
export const seedAnnotationsSchema = () => {
  const common = {
    label: z.string().min(1),
    frame: z.int().min(0),
    group: z.int().min(0).default(0),
    source: z.string().min(1).default('manual'),
    /** Attribute values by the attribute's name. */
    attributes: z.record(z.string(), z.string()).default({}),
  };
  return z
    .object({
      tags: z.array(z.object(common).strict()).default([]),
      shapes: z
        .array(
          z
            .object({
              ...common,
              type: z.enum(SHAPE_TYPES).default('rectangle'),
              points: z.array(z.number()).default([]),
              occluded: z.boolean().default(false),
              outside: z.boolean().default(false),
              z_order: z.int().default(0),
              rotation: z.number().min(0).max(360).default(0),
              score: z.number().min(0).max(1).default(1),
            })
            .strict(),
        )
        .default([]),
    })
    .strict();
};

type SeedAnnotations = z.output<ReturnType<typeof seedAnnotationsSchema>>;
type Path = (string | number)[];
type Problem = { message: string; path: Path };

/** The label of `name` among the task's top-level labels and its attributes' spec ids, or the problem. */
function resolve(
  labels: readonly LabelRec[],
  item: { label: string; attributes: Record<string, string> },
  path: Path,
): Result<{ label_id: number; attributes: { spec_id: number; value: string }[] }, Problem> {
  const label = labels.find((l) => l.name === item.label && l.parent_id === null);
  if (!label)
    return fail({ message: `no label "${item.label}" in the task's labels`, path: [...path, 'label'] });
  const attributes: { spec_id: number; value: string }[] = [];
  for (const [name, value] of Object.entries(item.attributes)) {
    const spec = label.attributes.find((a) => a.name === name);
    if (!spec)
      return fail({
        message: `label "${label.name}" has no attribute "${name}"`,
        path: [...path, 'attributes', name],
      });
    attributes.push({ spec_id: spec.id, value });
  }
  return ok({ label_id: label.id, attributes });
}

/** Stores a seeded task's annotations in its jobs, or answers the first problem at its seed path. */
export function seedTaskAnnotations(
  ctx: MutationContext,
  task: TaskRec,
  jobs: readonly JobRec[],
  input: SeedAnnotations | undefined,
  path: Path,
): Result<void, Problem> {
  if (!input || (input.tags.length === 0 && input.shapes.length === 0)) return ok(undefined);
  const labels = labelsOfOwner(ctx.state, labelOwnerOfTask(task));
  const tags: TagIn[] = [];
  const shapes: ShapeIn[] = [];
  for (const [kind, list] of [
    ['tags', input.tags],
    ['shapes', input.shapes],
  ] as const) {
    for (const [i, item] of list.entries()) {
      const at = [...path, kind, i];
      if (item.frame >= task.size)
        return fail({
          message: `frame ${item.frame} is not a frame of the task (it has ${task.size})`,
          path: [...at, 'frame'],
        });
      const r = resolve(labels, item, at);
      if (!r.ok) return r;
      const common = { id: null, group: item.group, source: item.source, frame: item.frame, ...r.value };
      if (kind === 'tags') tags.push(common);
      else {
        const s = item as SeedAnnotations['shapes'][number];
        shapes.push({
          type: s.type,
          occluded: s.occluded,
          outside: s.outside,
          z_order: s.z_order,
          rotation: s.rotation,
          points: s.points,
          ...common,
          score: s.score,
        });
      }
    }
  }
  const data: DataIn = { version: 0, tags, shapes, tracks: [] };
  const { parts } = splitByJob(jobs, data);
  const checked = checkWrite(ctx.state, labelsOfTask(ctx.state, task), parts, 'create');
  if (!checked.ok) return fail({ message: JSON.stringify(checked.error), path });
  for (const part of parts) applyWrite(ctx, part, 'create');
  return ok(undefined);
}
