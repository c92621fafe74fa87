/** The task, labels and shapes the annotation tests share (test/annotations*.test.ts). */
import type { SeedInput } from '../../src/domain/seed';
import type { CliHarness } from './cli-harness';
import { TEAM } from './harness';

const LABELS: NonNullable<SeedInput['tasks']>[number]['labels'] = [
  {
    name: 'car',
    attributes: [
      {
        name: 'model',
        input_type: 'select',
        mutable: false,
        values: ['mazda', 'volvo'],
        default_value: 'mazda',
      },
      { name: 'parked', input_type: 'checkbox', mutable: true, values: ['false'], default_value: 'false' },
    ],
  },
  { name: 'person' },
  {
    name: 's1',
    type: 'skeleton',
    sublabels: [
      { name: '1', type: 'points' },
      { name: '2', type: 'points' },
    ],
  },
];

/** Seeds `h` with a task of 20 frames in two jobs (0-9, 10-19); its labels by name, its jobs. */
export async function taskWithJobs(h: CliHarness, overlap: number | null = null) {
  const seeded = await h.seed({
    ...TEAM,
    tasks: [{ name: 'T', owner: 'alice', size: 20, segment_size: 10, overlap, labels: LABELS }],
  });
  const task = seeded.tasks.T as { id: number; jobs: number[] };
  const labels = await h.get(`/api/labels?task_id=${task.id}`, { as: 'alice' });
  const byName = new Map<string, { id: number; attributes: { id: number }[]; sublabels: { id: number }[] }>(
    labels.body.results.map((l: { name: string }) => [l.name, l]),
  );
  const label = (n: string) => byName.get(n) as NonNullable<ReturnType<typeof byName.get>>;
  return { task, jobs: task.jobs, label };
}

export const box = (label_id: number, frame: number, extra: Record<string, unknown> = {}) => ({
  type: 'rectangle',
  occluded: false,
  points: [223.39453125, 226.0751953125, 513.7663269042969, 377.9619903564453],
  frame,
  label_id,
  ...extra,
});

/** The shape of annotations.json's boxes, as CVAT answers a stored one. */
export const stored = (
  id: number,
  label_id: number,
  frame: number,
  attributes: unknown[] = [],
  extra = {},
) => ({
  type: 'rectangle',
  occluded: false,
  outside: false,
  z_order: 0,
  rotation: 0,
  points: [223.39453125, 226.0751953125, 513.7663269042969, 377.9619903564453],
  id,
  label_id,
  group: 0,
  source: 'manual',
  frame,
  attributes,
  score: 1,
  elements: [],
  ...extra,
});
