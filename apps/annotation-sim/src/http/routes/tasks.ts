import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type { PatchedTaskWriteRequest, TaskWriteRequest } from '@sims/annotation-schema/requests';
import type { TaskRec } from '../../domain/model';
import { mayCreate } from '../../domain/resource-rules';
import { taskRead } from '../../domain/serializers';
import { applyTaskPatch, createTask, deleteTask, taskCreation, taskPatch } from '../../domain/tasks';
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
import { handleCreateTaskData, handleTusHead, handleTusPatch } from './task-data';

const TASKS: ListSpec<TaskRec> = {
  kind: 'task',
  model: 'Task',
  map: (r) => r.state.tasks,
  serialize: (r, t) => taskRead(r.state, t),
  simpleFilters: simpleFiltersOf('/api/tasks'),
  // CVAT 2.73's search_fields: assignee, name, owner, project_name, subset, tracker_link.
  search: [
    (r, t) => username(r, t.assignee_id),
    (_, t) => t.name,
    (r, t) => username(r, t.owner_id),
    (r, t) => (t.project_id === null ? null : (r.state.projects.get(t.project_id)?.name ?? null)),
    (_, t) => t.subset,
    (_, t) => t.bug_tracker,
  ],
};

function handleListTasks(r: ApiRequest): Response {
  return listResources(r, TASKS);
}

function handleCreateTask(r: ApiRequest<TaskWriteRequest>): Response {
  const user = r.user();
  const context = r.orgContext();
  if (!context.ok) return refused(r, context);
  const ctx = context.value;
  const allowed = mayCreate(r.state, user, ctx);
  if (!allowed.ok) return refused(r, allowed);
  return createResource(
    r,
    TASKS,
    (body) => {
      const labels = readLabels(body.labels);
      return labels.ok ? taskCreation(r.state, user, ctx, { ...body, labels: labels.value }) : labels;
    },
    createTask,
  );
}

function handleRetrieveTask(r: ApiRequest): Response {
  return retrieveResource(r, TASKS);
}

function handleUpdateTask(r: ApiRequest<PatchedTaskWriteRequest>): Response {
  return updateResource(
    r,
    TASKS,
    (body) => {
      const labels = readLabels(body.labels);
      return labels.ok ? taskPatch(r.state, { ...body, labels: labels.value }) : labels;
    },
    applyTaskPatch,
  );
}

function handleDestroyTask(r: ApiRequest): Response {
  return destroyResource(r, TASKS, deleteTask);
}

const TASK = byId('tasks');

/** A TUS upload's URL: CVAT routes only file ids of its own form (`<user id>_<uuid>`); others are Django's 404. */
const TUS_FILE =
  '/api/tasks/:id/data/:file_id{[0-9]+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}}';

/** `/api/tasks`: CVAT's TaskViewSet (list, create, retrieve, partial update, destroy, data upload). */
export const taskRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/tasks', operation: 'tasks.list', handle: handleListTasks },
  withBody({
    method: 'post',
    path: '/api/tasks',
    operation: 'tasks.create',
    body: requestSchemas.TaskWriteRequest,
    handle: handleCreateTask,
  }),
  {
    method: 'get',
    path: '/api/tasks/:id',
    operation: 'tasks.retrieve',
    resource: TASK,
    handle: handleRetrieveTask,
  },
  withBody({
    method: 'patch',
    path: '/api/tasks/:id',
    operation: 'tasks.partial_update',
    resource: TASK,
    body: requestSchemas.PatchedTaskWriteRequest,
    handle: handleUpdateTask,
  }),
  {
    method: 'delete',
    path: '/api/tasks/:id',
    operation: 'tasks.destroy',
    resource: TASK,
    handle: handleDestroyTask,
  },
  withBody({
    method: 'post',
    path: ['/api/tasks/:id/data/', '/api/tasks/:id/data'],
    operation: 'tasks.create_data',
    resource: TASK,
    body: requestSchemas.DataRequest,
    handle: handleCreateTaskData,
  }),
  // TUS chunks of an upload (`HEAD` is served by the GET route, as the router routes it).
  {
    method: 'get',
    path: TUS_FILE,
    operation: 'tasks.append_data_chunk',
    resource: TASK,
    handle: handleTusHead,
  },
  {
    method: 'patch',
    path: TUS_FILE,
    operation: 'tasks.append_data_chunk',
    resource: TASK,
    handle: handleTusPatch,
  },
];
