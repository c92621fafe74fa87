/**
 * What an export reads of the world: the project, task or job exported, its tasks with their jobs,
 * labels and frames. The simulator keeps no annotations, so every export carries none.
 */
import { taskLabels, topLabelsOf } from '../label-read';
import type { JobRec, LabelRec, ProjectRec, TaskRec } from '../model';
import { jobsOfTask, tasksOfProject } from '../relations';
import type { AnnotationData } from '../state';

export type ExportTarget = 'project' | 'task' | 'job';

export type { LabelRec } from '../model';

/** One task of an export, with the frames it contributes (a job export: the job's frames). */
export interface ExportTask {
  task: TaskRec;
  /** Its jobs, by id (a job export: that job only). */
  jobs: JobRec[];
  frames: number[];
}

/** The exported resource and its tasks. */
export interface ExportSource {
  data: AnnotationData;
  target: ExportTarget;
  project: ProjectRec | undefined;
  job: JobRec | undefined;
  /** A task and job export: the one task; a project export: its tasks by id. */
  tasks: ExportTask[];
  /** The labels: the project's for a project or a task in one, else the task's own. */
  labels: LabelRec[];
}

const range = (start: number, stop: number) =>
  Array.from({ length: Math.max(0, stop - start + 1) }, (_, i) => start + i);

function taskJobs(data: AnnotationData, taskId: number): JobRec[] {
  return jobsOfTask(data, taskId).sort((a, b) => a.id - b.id);
}

function wholeTask(data: AnnotationData, task: TaskRec): ExportTask {
  return { task, jobs: taskJobs(data, task.id), frames: range(0, task.size - 1) };
}

/** The export source of a resource; undefined when it is gone (deleted before the worker ran). */
export function exportSource(
  data: AnnotationData,
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
      tasks: tasks.map((t) => wholeTask(data, t)),
      labels: topLabelsOf(data, { project_id: project.id, task_id: null }),
    };
  }
  const job = target === 'job' ? data.jobs.get(id) : undefined;
  const task = data.tasks.get(job ? job.task_id : id);
  if (!task || (target === 'job' && !job)) return undefined;
  const project = projectOf(task);
  const exported = job
    ? { task, jobs: [job], frames: range(job.start_frame, job.stop_frame) }
    : wholeTask(data, task);
  return { data, target, project, job, tasks: [exported], labels: taskLabels(data, task) };
}

/** A user as CVAT's meta writes it: `{username, email}`, or none. */
export function userOf(
  data: AnnotationData,
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
