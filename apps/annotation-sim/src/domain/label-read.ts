/**
 * Labels as they are read: which labels a project, task or job has (a task in a project has none of its
 * own: it uses the project's), a label's attribute specs by id, and CVAT's `LabelSerializer`
 * representation. What annotations import to check a `label_id` or an attribute `spec_id`.
 */
import { rowsOf } from './child-table';
import type { AttributeSpecRec, JobRec, LabelRec, TaskRec } from './model';
import type { AnnotationData } from './state';
import { PARENT } from './state-tables';

/** Whose labels: a project's or a task's (the other id null). */
export interface LabelOwner {
  project_id: number | null;
  task_id: number | null;
}

const ownerKey = (o: LabelOwner) => PARENT.labels(o as LabelRec);

/** Every label of a project or task, sublabels included, in id order. */
export const labelsOfOwner = (data: AnnotationData, owner: LabelOwner): LabelRec[] =>
  rowsOf(data.labels, PARENT.labels, ownerKey(owner)).sort((a, b) => a.id - b.id);

/** The labels of a project or task without the sublabels (a skeleton's points), in id order. */
export const topLabelsOf = (data: AnnotationData, owner: LabelOwner): LabelRec[] =>
  labelsOfOwner(data, owner).filter((l) => l.parent_id === null);

/** A skeleton's points, in id order. */
export const sublabelsOf = (data: AnnotationData, label: LabelRec): LabelRec[] =>
  labelsOfOwner(data, label).filter((l) => l.parent_id === label.id);

/** Whose labels a task uses: its project's when it is in one (`Task.get_labels`), else its own. */
export const labelOwnerOfTask = (t: TaskRec): LabelOwner =>
  t.project_id !== null ? { project_id: t.project_id, task_id: null } : { project_id: null, task_id: t.id };

/** The labels a task uses (its project's when it is in one), without sublabels. */
export const taskLabels = (data: AnnotationData, t: TaskRec): LabelRec[] =>
  topLabelsOf(data, labelOwnerOfTask(t));

/** The labels a job uses: its task's (`Job.get_labels`), without sublabels; none for an unknown task. */
export function jobLabels(data: AnnotationData, j: JobRec): LabelRec[] {
  const t = data.tasks.get(j.task_id);
  return t ? taskLabels(data, t) : [];
}

/**
 * The labels a task's annotations may name by id (`label_id`): its labels and their sublabels, by id.
 */
export function labelsById(data: AnnotationData, t: TaskRec): Map<number, LabelRec> {
  return new Map(labelsOfOwner(data, labelOwnerOfTask(t)).map((l) => [l.id, l]));
}

/** An attribute spec of a label by id (`spec_id`), if the label has it. */
export const attributeSpec = (label: LabelRec, specId: number): AttributeSpecRec | undefined =>
  label.attributes.find((a) => a.id === specId);

/** `AttributeSerializer`: `values` split on new lines as CVAT's model keeps them joined. */
const attributeRead = (a: AttributeSpecRec) => ({
  id: a.id,
  name: a.name,
  mutable: a.mutable,
  input_type: a.input_type,
  default_value: a.default_value,
  values: a.values.split('\n'),
});

/** `SublabelSerializer`: a skeleton's point inside its label. */
const sublabelRead = (l: LabelRec) => ({
  id: l.id,
  name: l.name,
  color: l.color,
  attributes: l.attributes.map(attributeRead),
  type: l.type,
  has_parent: l.parent_id !== null,
});

/**
 * `LabelSerializer` (`GET /api/labels/{id}`): `svg` for skeletons only, `project_id` or `task_id`
 * whichever is set (CVAT drops the empty one), the sublabels inside.
 */
export function labelRead(data: AnnotationData, l: LabelRec): Record<string, unknown> {
  return {
    id: l.id,
    name: l.name,
    color: l.color,
    attributes: l.attributes.map(attributeRead),
    type: l.type,
    ...(l.type === 'skeleton' ? { svg: l.svg ?? '' } : {}),
    sublabels: sublabelsOf(data, l).map(sublabelRead),
    ...(l.project_id !== null ? { project_id: l.project_id } : {}),
    ...(l.task_id !== null ? { task_id: l.task_id } : {}),
    parent_id: l.parent_id,
    has_parent: l.parent_id !== null,
  };
}
