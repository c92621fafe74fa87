/**
 * What a snapshot import checks of `state.annotations` beyond its shape: each row under its job's id,
 * each object's id once per model across the instance (the database's primary keys), and the model's id
 * counter (`seq.labeledshape`, …) past every id in use, so the next object never takes one.
 */
import { joinPath, SimInputError } from '@sims/sim-core';
import type { JobAnnotationsRec, ShapeRow, TrackRow } from './model';
import { ANNOTATION_SEQ } from './model';

type Path = (string | number)[];

function refuse(path: Path, message: string): never {
  throw new SimInputError(`${joinPath(path)}: ${message}`, path);
}

/** Throws SimInputError at the first problem of the annotations rows of a snapshot. */
export function checkAnnotationsSnapshot(
  rows: readonly [number, JobAnnotationsRec][],
  seq: Readonly<Record<string, number>>,
): void {
  const seen = new Map<string, Map<number, string>>();
  const use = (counter: string, id: number, path: Path): void => {
    const ids = seen.get(counter) ?? new Map<number, string>();
    seen.set(counter, ids);
    const first = ids.get(id);
    if (first !== undefined) refuse([...path, 'id'], `${counter} ${id} is there twice (also ${first})`);
    ids.set(id, joinPath(path));
  };
  const shapes = (list: readonly ShapeRow[], path: Path): void => {
    list.forEach((s, i) => {
      use(ANNOTATION_SEQ.shape, s.id, [...path, i]);
      shapes(s.elements ?? [], [...path, i, 'elements']);
    });
  };
  const tracks = (list: readonly TrackRow[], path: Path): void => {
    list.forEach((t, i) => {
      use(ANNOTATION_SEQ.track, t.id, [...path, i]);
      t.shapes.forEach((s, j) => {
        use(ANNOTATION_SEQ.trackedShape, s.id, [...path, i, 'shapes', j]);
      });
      tracks(t.elements ?? [], [...path, i, 'elements']);
    });
  };
  rows.forEach(([key, rec], i) => {
    const at: Path = ['state', 'annotations', i, 1];
    if (rec.job_id !== key) refuse([...at, 'job_id'], `${rec.job_id} is not its row's key ${key}`);
    rec.tags.forEach((t, j) => {
      use(ANNOTATION_SEQ.tag, t.id, [...at, 'tags', j]);
    });
    shapes(rec.shapes, [...at, 'shapes']);
    tracks(rec.tracks, [...at, 'tracks']);
  });
  for (const [counter, ids] of seen) {
    const largest = Math.max(...ids.keys());
    if (largest > (seq[counter] ?? 0))
      refuse(
        ['state', 'seq', counter],
        `${seq[counter] ?? 'none'}, below ${largest}, the largest id in state.annotations (the next one would reuse an id)`,
      );
  }
}
