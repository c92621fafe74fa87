/**
 * `LabeledDataSerializer` (CVAT 2.73's engine/serializers.py) over a request body, with DRF's errors in
 * its shapes: a dict per field, a list per nested list (`{"shapes": [{}, {"points": {…}}]}`), defaults
 * filled in. CVAT's own quirks are kept: `points` (`OptimizedFloatListField`) takes only JSON numbers and
 * reports the others by index with the text DRF makes of a nested ValidationError; an attribute's
 * `value` is Python's `str()` of what was sent (null is `None`), and an attribute that is not an object
 * with a `value` is an exception in CVAT's `to_internal_value` (Django's 500).
 */

import type { DataIn, ShapeIn, TagIn, TrackIn } from '../../domain/annotations/model';
import { fail, ok, type Result } from '../../domain/errors';
import { pythonStr } from '../../domain/python-json';
import { drfBoolean } from '../parse';

type Out = { value: unknown } | { error: unknown };
type Obj = Record<string, unknown>;
/** A field: what it makes of a present value; `absent` is its default (or its required error). */
interface Field {
  check: (v: unknown) => Out;
  absent: Out | 'skip';
  nullable?: boolean;
}

/** An exception CVAT does not catch: the edge answers Django's 500. */
class Unhandled extends Error {}

const REQUIRED = { error: ['This field is required.'] };
const pyType = (v: unknown) =>
  v === null
    ? 'NoneType'
    : Array.isArray(v)
      ? 'list'
      : typeof v === 'string'
        ? 'str'
        : typeof v === 'boolean'
          ? 'bool'
          : typeof v === 'number'
            ? Number.isInteger(v)
              ? 'int'
              : 'float'
            : 'dict';

function integer(min?: number) {
  return (v: unknown): Out => {
    let n: number;
    if (typeof v === 'number' && Number.isInteger(v)) n = v;
    else if (typeof v === 'string' && v.length <= 1000 && /^\s*[-+]?\d+(\.0*)?\s*$/.test(v))
      n = Number.parseInt(v, 10);
    else return { error: ['A valid integer is required.'] };
    if (min !== undefined && n < min)
      return { error: [`Ensure this value is greater than or equal to ${min}.`] };
    return { value: n };
  };
}

function float(min?: number, max?: number) {
  return (v: unknown): Out => {
    let n: number;
    if (typeof v === 'number') n = v;
    else if (typeof v === 'boolean') n = v ? 1 : 0;
    else if (typeof v === 'string' && v.length <= 1000 && v.trim() !== '' && !Number.isNaN(Number(v.trim())))
      n = Number(v.trim());
    else return { error: ['A valid number is required.'] };
    if (max !== undefined && n > max)
      return { error: [`Ensure this value is less than or equal to ${max}.`] };
    if (min !== undefined && n < min)
      return { error: [`Ensure this value is greater than or equal to ${min}.`] };
    return { value: n };
  };
}

const boolean = (v: unknown): Out => {
  const b = drfBoolean(v);
  return b === undefined ? { error: ['Must be a valid boolean.'] } : { value: b };
};

const SHAPE_TYPES = ['rectangle', 'polygon', 'polyline', 'points', 'ellipse', 'cuboid', 'mask', 'skeleton'];
const shapeType = (v: unknown): Out =>
  (typeof v === 'string' || typeof v === 'number') && SHAPE_TYPES.includes(String(v))
    ? { value: String(v) }
    : { error: [`"${pythonStr(v)}" is not a valid choice.`] };

/** `CharField(default='manual')`: not blank, whitespace trimmed, numbers as their text. */
const source = (v: unknown): Out => {
  if (typeof v !== 'string' && typeof v !== 'number') return { error: ['Not a valid string.'] };
  const s = String(v).trim();
  return s === '' ? { error: ['This field may not be blank.'] } : { value: s };
};

/** `OptimizedFloatListField`: JSON numbers only, each other item reported by its index. */
const points = (v: unknown): Out => {
  if (typeof v === 'number' || typeof v === 'boolean')
    throw new Unhandled(`TypeError: '${pyType(v)}' object is not iterable`);
  const items = typeof v === 'string' ? [...v] : Array.isArray(v) ? v : Object.keys(v as Obj);
  const errors: Record<string, string> = {};
  items.forEach((x, i) => {
    if (typeof x !== 'number')
      errors[i] = "[ErrorDetail(string='Value must be a float or an integer', code='invalid')]";
  });
  return Object.keys(errors).length > 0 ? { error: errors } : { value: items };
};

/** `AttributeValSerializer`: `value` made text by `str()` first (CVAT's own `to_internal_value`). */
const attributeVal = (v: unknown): Out => {
  if (v === null) return { error: ['This field may not be null.'] };
  if (typeof v !== 'object' || Array.isArray(v))
    throw new Unhandled(`TypeError: '${pyType(v)}' object does not support item assignment`);
  if (!Object.hasOwn(v, 'value')) throw new Unhandled("KeyError: 'value'");
  const value = pythonStr((v as Obj).value).trim();
  const spec = Object.hasOwn(v, 'spec_id') ? integer()((v as Obj).spec_id) : REQUIRED;
  const errors: Obj = {};
  if ('error' in spec) errors.spec_id = spec.error;
  if (value.length > 4096) errors.value = ['Ensure this field has no more than 4096 characters.'];
  return Object.keys(errors).length > 0
    ? { error: errors }
    : { value: { spec_id: (spec as { value: number }).value, value } };
};

/** A nested `many=True` serializer: a list of items, the errors a list with `{}` for good items. */
function list(item: (v: unknown) => Out) {
  return (v: unknown): Out => {
    if (!Array.isArray(v))
      return { error: { non_field_errors: [`Expected a list of items but got type "${pyType(v)}".`] } };
    const values: unknown[] = [];
    const errors: unknown[] = [];
    let bad = false;
    for (const x of v) {
      const r = x === null ? { error: ['This field may not be null.'] } : item(x);
      if ('error' in r) {
        bad = true;
        errors.push(r.error);
      } else {
        values.push(r.value);
        errors.push({});
      }
    }
    return bad ? { error: errors } : { value: values };
  };
}

/** A serializer's fields over an object, in declaration order. */
function object(fields: Record<string, Field>) {
  return (v: unknown): Out => {
    if (v === null || typeof v !== 'object' || Array.isArray(v))
      return { error: { non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyType(v)}.`] } };
    const input = v as Obj;
    const value: Obj = {};
    const errors: Obj = {};
    for (const [name, f] of Object.entries(fields)) {
      let r: Out | 'skip';
      if (!Object.hasOwn(input, name)) r = f.absent;
      else if (input[name] === null)
        r = f.nullable ? { value: null } : { error: ['This field may not be null.'] };
      else r = f.check(input[name]);
      if (r === 'skip') continue;
      if ('error' in r) errors[name] = r.error;
      else value[name] = r.value;
    }
    return Object.keys(errors).length > 0 ? { error: errors } : { value };
  };
}

const req = (check: Field['check']): Field => ({ check, absent: REQUIRED });
const def = (check: Field['check'], value: unknown, nullable = false): Field => ({
  check,
  absent: { value },
  nullable,
});

const SHAPE: Record<string, Field> = {
  type: req(shapeType),
  occluded: def(boolean, false),
  outside: def(boolean, false),
  z_order: def(integer(), 0),
  rotation: def(float(0, 360), 0),
  points: { check: points, absent: { value: [] } },
};
const ANNOTATION: Record<string, Field> = {
  id: def(integer(), null, true),
  label_id: req(integer(0)),
  group: def(integer(0), 0, true),
  source: def(source, 'manual'),
  frame: req(integer(0)),
  attributes: def(list(attributeVal), []),
};
const subShape = object({ ...SHAPE, ...ANNOTATION, score: def(float(0, 1), 1) });
const shape = object({
  ...SHAPE,
  ...ANNOTATION,
  score: def(float(0, 1), 1),
  elements: { check: list(subShape), absent: 'skip' },
});
const trackedShape = object({
  ...SHAPE,
  attributes: def(list(attributeVal), []),
  id: def(integer(), null, true),
  frame: req(integer(0)),
});
const subTrack = object({ ...ANNOTATION, shapes: req(list(trackedShape)) });
const track = object({
  ...ANNOTATION,
  shapes: req(list(trackedShape)),
  elements: { check: list(subTrack), absent: 'skip' },
});
const tag = object(ANNOTATION);
const labeledData = object({
  version: def(integer(), 0),
  tags: def(list(tag), []),
  shapes: def(list(shape), []),
  tracks: def(list(track), []),
  intervals: def(
    list((x) => ({ value: x })),
    [],
  ),
});

/** What the body is to the view: CVAT's data, or why not (a DRF 400, Django's 500, intervals given). */
export type LabeledDataBody = Result<DataIn> | { ok: false; intervals: true };

/** `LabeledDataSerializer(data=request.data).is_valid(raise_exception=True)`, its validated data. */
export function readLabeledData(body: unknown): LabeledDataBody {
  let r: Out;
  try {
    r = labeledData(body);
  } catch (err) {
    if (err instanceof Unhandled) return fail({ code: 'SERVER_ERROR', reason: err.message });
    throw err;
  }
  if ('error' in r) return fail({ code: 'INVALID', errors: r.error as Obj });
  const v = r.value as DataIn & { intervals: unknown[] };
  if (v.intervals.length > 0) return { ok: false, intervals: true };
  return ok({
    version: v.version,
    tags: v.tags as TagIn[],
    shapes: v.shapes as ShapeIn[],
    tracks: v.tracks as TrackIn[],
  });
}
