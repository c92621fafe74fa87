/**
 * The ids a request gives (`id` of a tag, shape, element, track or keyframe) against those the instance
 * holds: the database's primary keys, one sequence per model, so an id given that another object has is
 * PostgreSQL's unique violation (CVAT's PATCH answers its text with 400, its PUT does not catch it: 500).
 */
import { fail, ok, type Result } from '../errors';
import type { AnnotationState } from '../state';
import type { DataIn, JobAnnotationsRec, ShapeRow, TrackRow } from './model';

type Kind = 'labeledimage' | 'labeledshape' | 'labeledtrack' | 'trackedshape';

/** The ids given in `data`, by model, in the order the database would insert them. */
function givenIds(data: DataIn): Map<Kind, number[]> {
  const out = new Map<Kind, number[]>();
  const add = (kind: Kind, id: number | null) => {
    if (id === null) return;
    const list = out.get(kind) ?? [];
    list.push(id);
    out.set(kind, list);
  };
  for (const t of data.tags) add('labeledimage', t.id);
  for (const s of data.shapes) add('labeledshape', s.id);
  for (const s of data.shapes) for (const e of s.elements ?? []) add('labeledshape', e.id);
  const tracks = (list: DataIn['tracks']) => {
    for (const t of list) add('labeledtrack', t.id);
    for (const t of list) for (const s of t.shapes) add('trackedshape', s.id);
    for (const t of list) tracks(t.elements ?? []);
  };
  tracks(data.tracks);
  return out;
}

function idsOfRecord(rec: JobAnnotationsRec, kind: Kind, into: Set<number>): void {
  if (kind === 'labeledimage') for (const t of rec.tags) into.add(t.id);
  const shapes = (list: readonly ShapeRow[]) => {
    for (const s of list) {
      into.add(s.id);
      shapes(s.elements ?? []);
    }
  };
  const tracks = (list: readonly TrackRow[]) => {
    for (const t of list) {
      if (kind === 'labeledtrack') into.add(t.id);
      else for (const s of t.shapes) into.add(s.id);
      tracks(t.elements ?? []);
    }
  };
  if (kind === 'labeledshape') shapes(rec.shapes);
  if (kind === 'labeledtrack' || kind === 'trackedshape') tracks(rec.tracks);
}

/**
 * The unique violation the ids given in `data` make, if any, with the rows of `replaced` (job id → its
 * rows as they will be when `data` is saved) read in place of the table's. Costs a pass over the
 * instance's annotations only when the request gives ids.
 */
export function checkGivenIds(
  state: AnnotationState,
  data: DataIn,
  replaced: ReadonlyMap<number, JobAnnotationsRec>,
): Result<true, { table: string; id: number }> {
  const given = givenIds(data);
  if (given.size === 0) return ok(true);
  for (const [kind, ids] of given) {
    const used = new Set<number>();
    for (const [jobId, rec] of state.annotations) if (!replaced.has(jobId)) idsOfRecord(rec, kind, used);
    for (const rec of replaced.values()) idsOfRecord(rec, kind, used);
    for (const id of ids) {
      if (used.has(id)) return fail({ table: `engine_${kind}`, id });
      used.add(id);
    }
  }
  return ok(true);
}

/** PostgreSQL's text of a unique violation, as `str(IntegrityError)` gives it. */
export const uniqueViolation = (v: { table: string; id: number }): string =>
  `duplicate key value violates unique constraint "${v.table}_pkey"\nDETAIL:  Key (id)=(${v.id}) already exists.\n`;
