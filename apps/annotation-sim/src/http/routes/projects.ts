import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type { PatchedProjectWriteRequest, ProjectWriteRequest } from '@sims/annotation-schema/requests';
import type { ProjectRec } from '../../domain/model';
import {
  applyProjectPatch,
  createProject,
  deleteProject,
  projectCreation,
  projectPatch,
} from '../../domain/projects';
import { mayCreate } from '../../domain/resource-rules';
import { projectRead } from '../../domain/serializers';
import type { ApiRequest } from '../api';
import { readLabels } from '../label-input';
import { byId, type RouteRow, refused, withBody } from '../route-table';
import { simpleFiltersOf } from './filter-terms';
import {
  createResource,
  destroyResource,
  type ListSpec,
  listResources,
  retrieveResource,
  updateResource,
  username,
} from './resource-support';

const PROJECTS: ListSpec<ProjectRec> = {
  kind: 'project',
  model: 'Project',
  map: (r) => r.state.projects,
  serialize: (r, p) => projectRead(r.state, p),
  simpleFilters: simpleFiltersOf('/api/projects'),
  // CVAT 2.73's search_fields: assignee, name, owner.
  search: [(r, p) => username(r, p.assignee_id), (_, p) => p.name, (r, p) => username(r, p.owner_id)],
};

function handleListProjects(r: ApiRequest): Response {
  return listResources(r, PROJECTS);
}

function handleCreateProject(r: ApiRequest<ProjectWriteRequest>): Response {
  const user = r.user();
  const context = r.orgContext();
  if (!context.ok) return refused(r, context);
  const ctx = context.value;
  const allowed = mayCreate(r.state, user, ctx);
  if (!allowed.ok) return refused(r, allowed);
  return createResource(
    r,
    PROJECTS,
    (body) => {
      const labels = readLabels(body.labels);
      return labels.ok ? projectCreation(r.state, user, ctx, { ...body, labels: labels.value }) : labels;
    },
    createProject,
  );
}

function handleRetrieveProject(r: ApiRequest): Response {
  return retrieveResource(r, PROJECTS);
}

function handleUpdateProject(r: ApiRequest<PatchedProjectWriteRequest>): Response {
  return updateResource(
    r,
    PROJECTS,
    (body) => {
      const labels = readLabels(body.labels);
      return labels.ok ? projectPatch(r.state, r.user(), { ...body, labels: labels.value }) : labels;
    },
    applyProjectPatch,
  );
}

function handleDestroyProject(r: ApiRequest): Response {
  return destroyResource(r, PROJECTS, deleteProject);
}

const PROJECT = byId('projects');

/** `/api/projects`: CVAT's ProjectViewSet (list, create, retrieve, partial update, destroy). */
export const projectRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/projects', operation: 'projects.list', handle: handleListProjects },
  withBody({
    method: 'post',
    path: '/api/projects',
    operation: 'projects.create',
    body: requestSchemas.ProjectWriteRequest,
    handle: handleCreateProject,
  }),
  {
    method: 'get',
    path: '/api/projects/:id',
    operation: 'projects.retrieve',
    resource: PROJECT,
    handle: handleRetrieveProject,
  },
  withBody({
    method: 'patch',
    path: '/api/projects/:id',
    operation: 'projects.partial_update',
    resource: PROJECT,
    body: requestSchemas.PatchedProjectWriteRequest,
    handle: handleUpdateProject,
  }),
  {
    method: 'delete',
    path: '/api/projects/:id',
    operation: 'projects.destroy',
    resource: PROJECT,
    handle: handleDestroyProject,
  },
];
