import fc from 'fast-check';

/**
 * Random damage to a world snapshot's `state` for the import property test: wrong values at random
 * paths, parts dropped or replaced, rows broken, duplicated or pointing nowhere, fields added or dropped.
 * A mutation is drawn as plain numbers and resolved against the snapshot, so fast-check can shrink it.
 */

// biome-ignore lint/suspicious/noExplicitAny: snapshots are arbitrary JSON, walked and changed freely
type Json = any;
type Path = (string | number)[];

const KINDS = [
  'value',
  'dropPart',
  'replacePart',
  'breakRow',
  'dangle',
  'duplicate',
  'extraField',
  'dropField',
] as const;

export interface MutationPlan {
  kind: (typeof KINDS)[number];
  a: number;
  b: number;
  c: number;
  value: Json;
}

/** A reference field to point nowhere: rows of `at` (a path to an array of rows), `field` in each row. */
export interface ReferenceField {
  at: Path;
  field: Path;
}

const values = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -3, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constant({}),
  fc.constant([]),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
  fc.array(fc.integer(), { maxLength: 2 }),
);

/** The mutation plans fast-check draws. */
export const mutationPlans: fc.Arbitrary<MutationPlan> = fc.record({
  kind: fc.constantFrom(...KINDS),
  a: fc.nat(),
  b: fc.nat(),
  c: fc.nat(),
  value: values,
});

function get(root: Json, path: Path): Json {
  let cur = root;
  for (const key of path) cur = cur?.[key];
  return cur;
}

/** Every path under `root` (itself included) whose value satisfies `keep`, depth first. */
function pathsIn(root: Json, keep: (v: Json) => boolean, prefix: Path = [], out: Path[] = []): Path[] {
  if (keep(root)) out.push(prefix);
  if (root !== null && typeof root === 'object')
    for (const [k, v] of Object.entries(root))
      pathsIn(v, keep, [...prefix, Array.isArray(root) ? Number(k) : k], out);
  return out;
}

const isObject = (v: Json) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Applies `plan` to `state` (changed in place) and says what it did. `references` are the id fields
 * whose rows a `dangle` plan points at a missing record.
 */
export function applyMutation(
  state: Json,
  plan: MutationPlan,
  references: readonly ReferenceField[],
): string {
  const parts = Object.keys(state);
  if (parts.length === 0) return 'nothing to change';
  const part = parts[plan.a % parts.length] as string;
  const pick = <T>(list: T[], n: number) => list[n % list.length] as T;
  switch (plan.kind) {
    case 'value': {
      const path = [
        part,
        ...pick(
          pathsIn(state[part], () => true),
          plan.b,
        ),
      ];
      setAt(state, path, plan.value);
      return `${path.join('.')} = ${JSON.stringify(plan.value)}`;
    }
    case 'dropPart':
      delete state[part];
      return `${part} dropped`;
    case 'replacePart':
      state[part] = plan.value;
      return `${part} = ${JSON.stringify(plan.value)}`;
    case 'breakRow': {
      const arrays = pathsIn(state[part], (v) => Array.isArray(v) && v.length > 0);
      if (arrays.length === 0) return 'no rows';
      const at = [part, ...pick(arrays, plan.b)];
      const rows = get(state, at) as Json[];
      const i = plan.c % rows.length;
      const row = rows[i];
      const broken = [
        Array.isArray(row) ? [row[0]] : { ...row, ...plan.value },
        Array.isArray(row) ? [...row, plan.value] : [row],
        Array.isArray(row) ? row[1] : 'row',
        Array.isArray(row) ? [row[1], row[0]] : plan.value,
      ];
      rows[i] = pick(broken, plan.a + plan.c);
      return `${[...at, i].join('.')} broken`;
    }
    case 'dangle': {
      const filled = references.filter((r) => (get(state, r.at) as Json[] | undefined)?.length);
      if (filled.length === 0) return 'no references';
      const ref = pick(filled, plan.b);
      const rows = get(state, ref.at) as Json[];
      const i = plan.c % rows.length;
      setAt(rows[i], ref.field, 900_000 + plan.c);
      return `${[...ref.at, i, ...ref.field].join('.')} dangling`;
    }
    case 'duplicate': {
      const arrays = pathsIn(state[part], (v) => Array.isArray(v) && v.length > 0);
      if (arrays.length === 0) return 'no rows';
      const at = [part, ...pick(arrays, plan.b)];
      const rows = get(state, at) as Json[];
      rows.push(structuredClone(rows[plan.c % rows.length]));
      return `${at.join('.')} duplicated row`;
    }
    case 'extraField':
    case 'dropField': {
      const objects = pathsIn(state[part], isObject);
      if (objects.length === 0) return 'no objects';
      const at = [part, ...pick(objects, plan.b)];
      const target = get(state, at);
      if (plan.kind === 'extraField') {
        target.zz_unknown = plan.value;
        return `${at.join('.')}.zz_unknown added`;
      }
      const keys = Object.keys(target);
      if (keys.length === 0) return 'no fields';
      const key = pick(keys, plan.c);
      delete target[key];
      return `${[...at, key].join('.')} dropped`;
    }
  }
}

function setAt(root: Json, path: Path, value: Json): void {
  if (path.length === 0) return;
  const parent = get(root, path.slice(0, -1));
  if (parent !== null && typeof parent === 'object') parent[path[path.length - 1] as string] = value;
}
