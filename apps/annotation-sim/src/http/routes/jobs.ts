import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type { PatchedJobWriteRequest } from '@sims/annotation-schema/requests';
import { jobDeletion, jobPatch, updateJob } from '../../domain/jobs';
import type { JobRec } from '../../domain/model';
import { jobRead } from '../../domain/serializers';
import type { ApiRequest } from '../api';
import { byId, type RouteRow, refused, withBody } from '../route-table';
import { simpleFiltersOf } from './filter-terms';
import {
  type ListSpec,
  listResources,
  loadRecord,
  retrieveResource,
  updateResource,
  username,
} from './resource-support';

const JOBS: ListSpec<JobRec> = {
  kind: 'job',
  model: 'Job',
  map: (r) => r.state.jobs,
  serialize: (r, j) => jobRead(r.state, j),
  simpleFilters: simpleFiltersOf('/api/jobs'),
  // CVAT 2.73's search_fields: assignee, project_name, task_name.
  search: [
    (r, j) => username(r, j.assignee_id),
    (r, j) => {
      const projectId = r.state.tasks.get(j.task_id)?.project_id ?? null;
      return projectId === null ? null : (r.state.projects.get(projectId)?.name ?? null);
    },
    (r, j) => r.state.tasks.get(j.task_id)?.name,
  ],
};

function handleListJobs(r: ApiRequest): Response {
  return listResources(r, JOBS);
}

function handleRetrieveJob(r: ApiRequest): Response {
  return retrieveResource(r, JOBS);
}

function handleUpdateJob(r: ApiRequest<PatchedJobWriteRequest>): Response {
  return updateResource(r, JOBS, (body) => jobPatch(r.state, body), updateJob);
}

function handleDestroyJob(r: ApiRequest): Response {
  const j = loadRecord(r, 'job', r.state.jobs, 'Job', true);
  if (!j.ok) return refused(r, j);
  const deletion = jobDeletion(j.value);
  if (!deletion.ok) return refused(r, deletion);
  return deletion.value;
}

const JOB = byId('jobs');

/** `/api/jobs`: CVAT's JobViewSet (list, retrieve, partial update, destroy); jobs come with task data. */
export const jobRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/jobs', operation: 'jobs.list', handle: handleListJobs },
  {
    method: 'get',
    path: '/api/jobs/:id',
    operation: 'jobs.retrieve',
    resource: JOB,
    handle: handleRetrieveJob,
  },
  withBody({
    method: 'patch',
    path: '/api/jobs/:id',
    operation: 'jobs.partial_update',
    resource: JOB,
    body: requestSchemas.PatchedJobWriteRequest,
    handle: handleUpdateJob,
  }),
  {
    method: 'delete',
    path: '/api/jobs/:id',
    operation: 'jobs.destroy',
    resource: JOB,
    handle: handleDestroyJob,
  },
];
