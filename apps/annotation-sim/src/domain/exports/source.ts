/**
 * What an export reads of the world: the project, task or job exported, its tasks with their jobs,
 * labels, frames and annotations. Annotations are read as `GET …/annotations` answers them (CVAT's
 * `JobAnnotation.init_from_db`: attributes completed with their defaults; a task's merged over its
 * annotation jobs), which is what CVAT's exporters start from (`TaskAnnotation.init_from_db`).
 */
import type { LabeledData } from '../annotations/model';
import { attributeDefaults, readRecord } from '../annotations/read';
import { jobRecord, labelsOfTask } from '../annotations/store';
import { mergeJobs } from '../annotations/task-split';
import { frameOf } from '../data-meta';
import { labelOwnerOfTask, labelsOfOwner, taskLabels, topLabelsOf } from '../label-read';
import type { FrameRec, JobRec, LabelRec, ProjectRec, TaskRec } from '../model';
import { jobsOfTask, tasksOfProject } from '../relations';
import type { AnnotationState } from '../state';

export type ExportTarget = 'project' | 'task' | 'job';

export type { LabelRec } from '../model';

/** One task of an export, with the frames it contributes (a job export: the job's frames). */
export interface ExportTask {
  task: TaskRec;
  /** Its jobs, by id (a job export: that job only). */
  jobs: JobRec[];
  frames: number[];
  /** Its annotations (a job export: the job's), frames numbered in the task. */
  annotations: LabeledData;
  /** A project export's frame names where CVAT renames a duplicate in the subset (`mangle_image_name`). */
  renamed?: Map<number, string>;
}

/** The exported resource and its tasks. */
export interface ExportSource {
  data: AnnotationState;
  target: ExportTarget;
  project: ProjectRec | undefined;
  job: JobRec | undefined;
  /** A task and job export: the one task; a project export: its tasks by id. */
  tasks: ExportTask[];
  /** The labels: the project's for a project or a task in one, else the task's own. */
  labels: LabelRec[];
  /** Those labels and their sublabels (a skeleton's points), in id order, as CVAT's meta lists them. */
  allLabels: LabelRec[];
}

const range = (start: number, stop: number) =>
  Array.from({ length: Math.max(0, stop - start + 1) }, (_, i) => start + i);

function taskJobs(data: AnnotationState, taskId: number): JobRec[] {
  return jobsOfTask(data, taskId).sort((a, b) => a.id - b.id);
}

/** One job's annotations as read (`readRecord` with the task's attribute defaults): `get_job_data`. */
export const readJob = (data: AnnotationState, task: TaskRec, job: JobRec) =>
  readRecord(jobRecord(data, job.id), attributeDefaults(labelsOfTask(data, task).values()));

/** A task's annotations: its annotation jobs' in id order, merged as `GET /api/tasks/{id}/annotations`. */
function taskAnnotations(data: AnnotationState, task: TaskRec, jobs: readonly JobRec[]): LabeledData {
  return mergeJobs(
    jobs.filter((j) => j.type === 'annotation').map((j) => ({ job: j, data: readJob(data, task, j) })),
    task.overlap ?? 0,
  );
}

function wholeTask(data: AnnotationState, task: TaskRec): ExportTask {
  const jobs = taskJobs(data, task.id);
  return { task, jobs, frames: range(0, task.size - 1), annotations: taskAnnotations(data, task, jobs) };
}

/** Frame `i` of an export's task: its name, width and height (data/meta's; a project's renamed). */
export function exportFrame(et: ExportTask, i: number): FrameRec {
  const f = frameOf(et.task, i);
  const name = et.renamed?.get(i);
  return name === undefined ? f : { ...f, name };
}

/**
 * `mangle_image_name` over a project's tasks in export order: the second `a.jpg` of a subset is
 * `a_1.jpg`, the third `a_2.jpg` (or `a_1_1.jpg`, … when that name is taken).
 */
function mangleNames(tasks: readonly ExportTask[]): void {
  const seen = new Map<string, number>();
  const count = (subset: string, stem: string) => seen.get(`${subset}\0${stem}`) ?? 0;
  for (const et of tasks) {
    const subset = subsetOf(et.task);
    for (const i of et.frames) {
      const name = frameOf(et.task, i).name;
      const dot = name.lastIndexOf('.');
      if (dot < 0) continue;
      const stem = name.slice(0, dot);
      const ext = name.slice(dot);
      const n = count(subset, stem);
      seen.set(`${subset}\0${stem}`, n + 1);
      if (n === 0) continue;
      let renamed = `${stem}_${n}`;
      for (let k = 1; count(subset, renamed) > 0; k++) renamed = `${stem}_${n}_${k}`;
      et.renamed ??= new Map();
      et.renamed.set(i, `${renamed}${ext}`);
    }
  }
}

/** The export source of a resource; undefined when it is gone (deleted before the worker ran). */
export function exportSource(
  data: AnnotationState,
  target: ExportTarget,
  id: number,
): ExportSource | undefined {
  const projectOf = (t: TaskRec) => (t.project_id === null ? undefined : data.projects.get(t.project_id));
  if (target === 'project') {
    const project = data.projects.get(id);
    if (!project) return undefined;
    const tasks = tasksOfProject(data, id).sort((a, b) => a.id - b.id);
    return {
      data,
      target,
      project,
      job: undefined,
      tasks: withMangledNames(tasks.map((t) => wholeTask(data, t))),
      labels: topLabelsOf(data, { project_id: project.id, task_id: null }),
      allLabels: labelsOfOwner(data, { project_id: project.id, task_id: null }),
    };
  }
  const job = target === 'job' ? data.jobs.get(id) : undefined;
  const task = data.tasks.get(job ? job.task_id : id);
  if (!task || (target === 'job' && !job)) return undefined;
  const project = projectOf(task);
  const exported = job
    ? {
        task,
        jobs: [job],
        frames: range(job.start_frame, job.stop_frame),
        annotations: readJob(data, task, job),
      }
    : wholeTask(data, task);
  const labels = taskLabels(data, task);
  const allLabels = labelsOfOwner(data, labelOwnerOfTask(task));
  return { data, target, project, job, tasks: [exported], labels, allLabels };
}

/** A user as CVAT's meta writes it: `{username, email}`, or none. */
export function userOf(
  data: AnnotationState,
  id: number | null,
): { username: string; email: string } | undefined {
  const u = id === null ? undefined : data.users.get(id);
  return u && { username: u.username, email: u.email };
}

/** `str(timezone.localtime(dt))` of a stored DRF date: `2026-01-01 00:00:00+00:00`. */
export function pythonDate(drf: string): string {
  return drf.replace('T', ' ').replace(/Z$/, '+00:00');
}

/** A task's subset as exports name it (`default` when it has none). */
export function subsetOf(task: TaskRec): string {
  return task.subset === '' ? 'default' : task.subset;
}

/** The tasks with CVAT's renamed duplicates (in the order a dataset export writes them). */
function withMangledNames(tasks: ExportTask[]): ExportTask[] {
  mangleNames(sortedForDataset(tasks));
  return tasks;
}

/** A project's tasks with data, by subset then id (`ProjectData._init_tasks`). */
const sortedForDataset = (tasks: readonly ExportTask[]) =>
  tasks
    .filter((et) => et.task.data_id !== null)
    .sort((a, b) =>
      a.task.subset < b.task.subset ? -1 : a.task.subset > b.task.subset ? 1 : a.task.id - b.task.id,
    );

/**
 * The tasks a dataset export writes: a project's with data, by subset then id (`ProjectData._init_tasks`);
 * a task's or job's one.
 */
export function datasetTasks(src: ExportSource): ExportTask[] {
  return src.target === 'project' ? sortedForDataset(src.tasks) : src.tasks;
}
