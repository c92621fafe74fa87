import type { AnnotationState } from '../state';
import type { IdFilter } from './record';

/**
 * CVAT's `find_minimal_date_for_filter` (epoch ms), the default start of an export: the `created_date`
 * of the most specific of job, task, project; else the earliest of the organization and its projects
 * and tasks; else 0.
 *
 * @example minimalExportDate(state, { task_id: 3 }) // the task's created_date
 */
export function minimalExportDate(s: AnnotationState, ids: Partial<Record<IdFilter, number>>): number {
  const date = (d: string | undefined) => (d === undefined ? undefined : Date.parse(d));
  const specific =
    (ids.job_id !== undefined ? date(s.jobs.get(ids.job_id)?.created_date) : undefined) ??
    (ids.task_id !== undefined ? date(s.tasks.get(ids.task_id)?.created_date) : undefined) ??
    (ids.project_id !== undefined ? date(s.projects.get(ids.project_id)?.created_date) : undefined);
  if (specific !== undefined) return specific;
  if (ids.org_id !== undefined) {
    const times = [
      date(s.organizations.get(ids.org_id)?.created_date),
      ...[...s.projects.values()]
        .filter((p) => p.organization_id === ids.org_id)
        .map((p) => date(p.created_date)),
      ...[...s.tasks.values()]
        .filter((t) => t.organization_id === ids.org_id)
        .map((t) => date(t.created_date)),
    ].filter((t): t is number => t !== undefined);
    if (times.length > 0) return Math.min(...times);
  }
  return 0;
}
