/**
 * The `labels` of a project or task body, and a `PATCH /api/labels/{id}` body, read as CVAT's nested
 * `LabelSerializer(many=True)` reads them, with DRF's nested errors: a list of one dict per label (`{}`
 * for a good one), each label's `attributes` and `sublabels` likewise. The flat fields of each item are
 * checked by the walker of parse.ts with the schemas of `@sims/annotation-schema`.
 */
import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import { fail, ok, type Result } from '../domain/errors';
import type { AttributeInput, LabelInput } from '../domain/labels';
import { type FieldErrors, validateFields } from './parse';

type Outcome<T> = { ok: true; value: T } | { ok: false; errors: unknown };

const pyType = (v: unknown) =>
  v === null ? 'NoneType' : typeof v === 'string' ? 'str' : typeof v === 'number' ? 'int' : 'dict';

/** A `many=True` field: a list, each item read by `item`; the errors one entry per item. */
function many<T>(v: unknown, item: (x: unknown) => Outcome<T>): Outcome<T[]> {
  if (!Array.isArray(v))
    return {
      ok: false,
      errors: { non_field_errors: [`Expected a list of items but got type "${pyType(v)}".`] },
    };
  const out: T[] = [];
  const errors: unknown[] = [];
  let bad = false;
  for (const x of v) {
    const r = item(x);
    if (r.ok) {
      out.push(r.value);
      errors.push({});
    } else {
      bad = true;
      errors.push(r.errors);
    }
  }
  return bad ? { ok: false, errors } : { ok: true, value: out };
}

/** One attribute: a new one (no `id`) needs `name`, `mutable`, `input_type` and `values`. */
function attribute(v: unknown): Outcome<AttributeInput> {
  const withId = v !== null && typeof v === 'object' && (v as Record<string, unknown>).id !== undefined;
  const r = validateFields(v, requestSchemas.AttributeRequest(), withId);
  return r.ok ? { ok: true, value: r.value as AttributeInput } : r;
}

/**
 * One label (or a skeleton's point, `point`): its flat fields, then its attributes and points. A new
 * label (no `id`) needs a name; a deleted one needs its id (`Deleted label must have an ID`); `local` (a
 * label's own endpoint) refuses `deleted`.
 */
function label(v: unknown, point: boolean, local: boolean): Outcome<LabelInput> {
  const schema = point ? requestSchemas.SublabelRequest() : requestSchemas.PatchedLabelRequest();
  const r = validateFields(v, schema, true);
  if (!r.ok) return r;
  const f = r.value as Record<string, unknown>;
  const errors: FieldErrors = {};
  if (f.id === undefined && f.name === undefined && !local) errors.name = ['This field is required.'];
  const none: Outcome<never[]> = { ok: true, value: [] };
  const attributes = f.attributes === undefined ? none : many(f.attributes, attribute);
  if (!attributes.ok) errors.attributes = attributes.errors;
  const sublabels =
    point || f.sublabels === undefined ? none : many(f.sublabels, (x) => label(x, true, false));
  if (!sublabels.ok) errors.sublabels = sublabels.errors;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  if (f.deleted === true && local)
    return {
      ok: false,
      errors: {
        non_field_errors: [
          'Labels cannot be deleted by updating in this endpoint. Please use the DELETE method instead.',
        ],
      },
    };
  if (f.deleted === true && f.id === undefined)
    return { ok: false, errors: { non_field_errors: ['Deleted label must have an ID'] } };
  return {
    ok: true,
    value: {
      ...(f as Omit<LabelInput, 'attributes' | 'sublabels'>),
      attributes: (attributes as { value: AttributeInput[] }).value,
      sublabels: (sublabels as { value: LabelInput[] }).value,
    },
  };
}

/** A body's `labels` (absent: undefined), or the 400 of DRF's nested errors under `labels`. */
export function readLabels(v: unknown): Result<LabelInput[] | undefined> {
  if (v === undefined) return ok(undefined);
  const r = many(v, (x) => label(x, false, false));
  return r.ok ? ok(r.value) : fail({ code: 'INVALID', errors: { labels: r.errors } });
}

/** A `PATCH /api/labels/{id}` body, or its 400. */
export function readLabelPatch(v: unknown): Result<LabelInput> {
  const r = label(v, false, true);
  return r.ok ? ok(r.value) : fail({ code: 'INVALID', errors: r.errors as Record<string, unknown> });
}
