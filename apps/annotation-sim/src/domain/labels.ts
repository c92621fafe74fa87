/**
 * Labels as CVAT's `LabelSerializer` changes them (`create_labels`, `update_labels`, `update_label`):
 * created with a project or task, then added, changed and deleted through the project's or task's PATCH
 * (`{labels: [...]}`: with `id` an update, without one a new label, `deleted: true` a deletion) and
 * through `/api/labels/{id}`. Every change of one request is one transaction, as CVAT's `atomic`: a
 * refusal half-way leaves the labels, the id counters and the changes as they were.
 */
import { fail, ok, type Result } from './errors';
import { labelColor } from './label-colors';
import { type LabelOwner, labelOwnerOfTask, labelsOfOwner, sublabelsOf, topLabelsOf } from './label-read';
import type { AttributeSpecRec, LabelRec, TaskRec } from './model';
import { emit, type MutationContext, type Rec, represent, stamp } from './mutation';
import { jobsOfTask, tasksOfProject } from './relations';
import { nextId } from './state';

/** An attribute of a label request as the edge checked it (`AttributeRequest`). */
export interface AttributeInput {
  id?: number;
  name?: string;
  mutable?: boolean;
  input_type?: string;
  default_value?: string;
  values?: string[];
  deleted?: boolean;
}

/** A label of a request as the edge checked it (`PatchedLabelRequest`, `SublabelRequest`). */
export interface LabelInput {
  id?: number;
  name?: string;
  color?: string;
  type?: string;
  svg?: string;
  deleted?: boolean;
  attributes: AttributeInput[];
  sublabels: LabelInput[];
}

const UNIQUE = 'All label names must be unique';

/** The labels' rows as one transaction changes them: what each changed id held before it. */
interface Tx {
  ctx: MutationContext;
  saved: Map<number, LabelRec | undefined>;
}

function put(tx: Tx, l: LabelRec): void {
  if (!tx.saved.has(l.id)) tx.saved.set(l.id, tx.ctx.state.labels.get(l.id));
  tx.ctx.state.labels.set(l.id, l);
}

function remove(tx: Tx, l: LabelRec): void {
  if (!tx.saved.has(l.id)) tx.saved.set(l.id, l);
  tx.ctx.state.labels.delete(l.id);
}

/** Runs `body` as one transaction: on a refusal, every label, counter and change it made is undone. */
function atomic<T>(ctx: MutationContext, body: (tx: Tx) => Result<T>): Result<T> {
  const seq = { ...ctx.state.seq };
  const changes = ctx.changes?.length ?? 0;
  const tx: Tx = { ctx, saved: new Map() };
  const result = body(tx);
  if (!result.ok) {
    for (const [id, was] of tx.saved) {
      if (was === undefined) ctx.state.labels.delete(id);
      else ctx.state.labels.set(id, was);
    }
    ctx.state.seq = seq;
    ctx.changes?.splice(changes);
  }
  return result;
}

/** The label's name is not another's of the same project or task and parent (CVAT's unique constraints). */
function nameIsFree(tx: Tx, l: LabelRec): boolean {
  return !labelsOfOwner(tx.ctx.state, l).some(
    (o) => o.id !== l.id && o.parent_id === l.parent_id && o.name === l.name,
  );
}

function save(tx: Tx, l: LabelRec, created: boolean, before?: LabelRec): Result<LabelRec> {
  if (!nameIsFree(tx, l)) return fail({ code: 'INVALID_LIST', messages: [UNIQUE] });
  const beforeRead = before ? represent(tx.ctx, 'label', before as unknown as Rec) : undefined;
  put(tx, l);
  if (created) emit(tx.ctx, 'create', 'label', l as unknown as Rec);
  else emit(tx.ctx, 'update', 'label', l as unknown as Rec, { before: beforeRead });
  return ok(l);
}

/** A new attribute spec (`AttributeSpec.objects.create`): values kept joined by new lines. */
const newAttribute = (tx: Tx, a: AttributeInput): AttributeSpecRec => ({
  id: nextId(tx.ctx.state, 'attributes'),
  name: a.name ?? '',
  mutable: a.mutable ?? false,
  input_type: a.input_type ?? '',
  default_value: a.default_value ?? '',
  values: (a.values ?? []).join('\n'),
});

/**
 * The skeleton's drawing with its points named by id: each `data-label-name="<name>"` of a point becomes
 * `data-label-id="<id>"`, as CVAT stores it.
 */
function skeletonSvg(tx: Tx, label: LabelRec, svg: string): string {
  let out = svg;
  for (const s of sublabelsOf(tx.ctx.state, label))
    out = out.replaceAll(`data-label-name="${s.name}"`, `data-label-id="${s.id}"`);
  return out;
}

/** `create_labels`: each label coloured among the ones this call made, then its points and attributes. */
function createAll(
  tx: Tx,
  owner: LabelOwner,
  specs: readonly LabelInput[],
  parent: LabelRec | null,
): Result<void> {
  const colors: string[] = [];
  for (const spec of specs) {
    const name = spec.name ?? '';
    const color = spec.color || labelColor(name, colors);
    colors.push(color);
    const label: LabelRec = {
      id: nextId(tx.ctx.state, 'labels'),
      name,
      color,
      type: spec.type ?? 'any',
      project_id: owner.project_id,
      task_id: owner.task_id,
      parent_id: parent?.id ?? null,
      svg: null,
      attributes: [],
    };
    const saved = save(tx, label, true);
    if (!saved.ok) return saved;
    const points = createAll(tx, owner, spec.sublabels, label);
    if (!points.ok) return points;
    const attributes = spec.attributes.map((a) => newAttribute(tx, a));
    const svg = label.type === 'skeleton' ? skeletonSvg(tx, label, spec.svg ?? '') : null;
    if (attributes.length > 0 || svg !== null) put(tx, { ...label, attributes, svg });
  }
  return ok(undefined);
}

/**
 * `validate_labels`: the names of the labels a request sends (but the deleted ones) are unique; the
 * sublabels are not checked here.
 */
export function labelNamesUnique(specs: readonly LabelInput[], of: 'project' | 'task'): Result<void> {
  const names = specs.filter((s) => !s.deleted && s.name !== undefined).map((s) => s.name);
  if (new Set(names).size !== names.length)
    return fail({ code: 'INVALID', errors: { labels: [`All label names must be unique for the ${of}`] } });
  return ok(undefined);
}

/** The labels of a new project or task (`create_labels`), in one transaction. */
export function createLabels(
  ctx: MutationContext,
  owner: LabelOwner,
  specs: readonly LabelInput[],
): Result<void> {
  return atomic(ctx, (tx) => createAll(tx, owner, specs, null));
}

/** `update_label`'s attributes: by id (404 when the label has none such), else by name, else new. */
function updateAttributes(
  tx: Tx,
  label: LabelRec,
  specs: readonly AttributeInput[],
): Result<AttributeSpecRec[]> {
  const attributes = [...label.attributes];
  for (const a of specs) {
    let at =
      a.id !== undefined
        ? attributes.findIndex((x) => x.id === a.id)
        : attributes.findIndex((x) => x.name === a.name);
    if (at < 0 && a.id !== undefined)
      return fail({ code: 'NOT_FOUND', detail: `Attribute with id #${a.id} does not exist` });
    if (at < 0) {
      attributes.push(newAttribute(tx, a));
      at = attributes.length - 1;
      if (!a.deleted) continue;
    }
    const was = attributes[at] as AttributeSpecRec;
    if (a.deleted) {
      attributes.splice(at, 1);
      continue;
    }
    attributes[at] = {
      ...was,
      name: a.name ?? was.name,
      default_value: a.default_value ?? was.default_value,
      mutable: a.mutable ?? was.mutable,
      input_type: a.input_type ?? was.input_type,
      values: a.values !== undefined ? a.values.join('\n') : was.values,
    };
  }
  return ok(attributes);
}

/**
 * `update_label`: a label with `id` (of this project or task, else 404) is renamed, retyped (never from or
 * to `skeleton`), recoloured (a label sent without a colour gets the one CVAT computes among its siblings)
 * or deleted; one without `id` is created. Then its attributes, and a skeleton's points and drawing.
 */
function updateOne(
  tx: Tx,
  owner: LabelOwner,
  spec: LabelInput,
  parent: LabelRec | null,
): Result<LabelRec | null> {
  const s = tx.ctx.state;
  let label: LabelRec;
  let before: LabelRec | undefined;
  if (spec.id !== undefined) {
    const found = s.labels.get(spec.id);
    if (!found || found.project_id !== owner.project_id || found.task_id !== owner.task_id)
      return fail({ code: 'NOT_FOUND', detail: `Not found label with id #${spec.id} to change` });
    before = found;
    const type = spec.type || found.type;
    label = {
      ...found,
      type: found.type === 'skeleton' || type === 'skeleton' ? found.type : type,
      name: spec.name || found.name,
    };
  } else {
    label = {
      id: nextId(s, 'labels'),
      name: spec.name ?? '',
      color: '',
      type: spec.type ?? 'any',
      project_id: owner.project_id,
      task_id: owner.task_id,
      parent_id: parent?.id ?? null,
      svg: null,
      attributes: [],
    };
  }
  if (spec.deleted && before) {
    deleteWithPoints(tx, before);
    return ok(null);
  }
  if (spec.color) label.color = spec.color;
  else {
    const others = labelsOfOwner(s, owner).filter((o) => o.id !== label.id);
    label.color = labelColor(
      label.name,
      others.map((o) => o.color),
    );
  }
  const attributes = updateAttributes(tx, label, spec.attributes);
  if (!attributes.ok) return attributes;
  label.attributes = attributes.value;
  const saved = save(tx, label, before === undefined, before);
  if (!saved.ok) return saved;
  for (const point of spec.sublabels) {
    const done = updateOne(tx, owner, point, label);
    if (!done.ok) return done;
  }
  if (label.type === 'skeleton' && (before === undefined || spec.svg !== undefined))
    put(tx, { ...label, svg: skeletonSvg(tx, label, spec.svg ?? '') });
  return ok(s.labels.get(label.id) ?? null);
}

/** Deletes a label and its points (a database cascade: each gets its `delete:label`). */
function deleteWithPoints(tx: Tx, label: LabelRec): void {
  for (const point of sublabelsOf(tx.ctx.state, label)) deleteWithPoints(tx, point);
  const snapshot = represent(tx.ctx, 'label', label as unknown as Rec);
  remove(tx, label);
  emit(tx.ctx, 'delete', 'label', label as unknown as Rec, { resource: snapshot });
}

/** `update_labels`: a project's or task's PATCH `labels`, in order, in one transaction. */
export function updateLabels(
  ctx: MutationContext,
  owner: LabelOwner,
  specs: readonly LabelInput[],
): Result<void> {
  return atomic(ctx, (tx) => {
    for (const spec of specs) {
      const done = updateOne(tx, owner, spec, null);
      if (!done.ok) return done;
    }
    return ok(undefined);
  });
}

/** `PATCH /api/labels/{id}`: the label updated as its owner's PATCH would, under its own parent. */
export function updateLabel(ctx: MutationContext, label: LabelRec, spec: LabelInput): Result<LabelRec> {
  const parent = label.parent_id === null ? null : (ctx.state.labels.get(label.parent_id) ?? null);
  const done = atomic(ctx, (tx) => updateOne(tx, label, { ...spec, id: label.id }, parent));
  if (!done.ok) return done;
  touchOwner(ctx, label, true);
  return ok(done.value as LabelRec);
}

/** `DELETE /api/labels/{id}`: the label and its points. */
export function deleteLabel(ctx: MutationContext, label: LabelRec): void {
  void atomic(ctx, (tx) => {
    deleteWithPoints(tx, label);
    return ok(undefined);
  });
  touchOwner(ctx, label, true);
}

/** Every label of a project or task being deleted (a cascade: a `delete:label` each, points first). */
export function deleteLabelsOf(ctx: MutationContext, owner: LabelOwner): void {
  void atomic(ctx, (tx) => {
    for (const label of topLabelsOf(ctx.state, owner)) deleteWithPoints(tx, label);
    return ok(undefined);
  });
}

/**
 * A label change touches its project or task, and their tasks' and jobs' `updated_date` follow (CVAT
 * issue 6871: all of them end with the project's or task's time). Queryset updates: no events. `self`:
 * the owner's own date too (a change through `/api/labels`; a project's or task's PATCH saves it itself).
 */
export function touchOwner(ctx: MutationContext, owner: LabelOwner, self: boolean): void {
  const s = ctx.state;
  const now = stamp(ctx);
  const touchTask = (t: TaskRec) => {
    t.updated_date = now;
    for (const j of jobsOfTask(s, t.id)) j.updated_date = now;
  };
  if (owner.project_id !== null) {
    const p = s.projects.get(owner.project_id);
    if (p && self) p.updated_date = now;
    for (const t of tasksOfProject(s, owner.project_id)) touchTask(t);
  } else if (owner.task_id !== null) {
    const t = s.tasks.get(owner.task_id);
    if (t) {
      const own = t.updated_date;
      touchTask(t);
      if (!self) t.updated_date = own;
    }
  }
}

/**
 * A task moving into a project: each of its own labels must be one of the project's by name (CVAT maps
 * them), then they are deleted (the task uses the project's from then on).
 */
export function taskLabelsMapTo(ctx: MutationContext, t: TaskRec, projectId: number): Result<void> {
  if (t.project_id !== null) return ok(undefined);
  const target = new Set(topLabelsOf(ctx.state, { project_id: projectId, task_id: null }).map((l) => l.name));
  for (const l of topLabelsOf(ctx.state, labelOwnerOfTask(t)))
    if (!target.has(l.name))
      return fail({
        code: 'INVALID_LIST',
        messages: [`Target project does not have label with name "${l.name}"`],
      });
  return ok(undefined);
}
