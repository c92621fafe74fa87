/**
 * A dataset imported into a project as CVAT 2.73's `ProjectViewSet.dataset` takes it (`POST
 * /api/projects/{id}/dataset?format=…`, `DatasetImporter` in `engine/background.py`): the project read
 * for `import:dataset` (`projects.rego`: the rules of `update:desc`), then UploadMixin's dispatch (one
 * multipart request with the archive as `dataset_file`, or a TUS upload into the project's temporary
 * directory finished with `?filename=<file_id>`), the source and the format checked, and a 202
 * `{"rq_id"}` of an `import:dataset` request (`action=import&target=project&target_id=<id>&subresource=dataset`)
 * whose worker makes the new tasks (`domain/imports/dataset-import.ts`). An import of the project still
 * queued or running is 409 with its rq_id. The view logs the `import:dataset` server event.
 */
import { isAdmin, roleIn } from '../../domain/access';
import { denied, fail, type Result } from '../../domain/errors';
import { DATASET_IMPORT_FORMATS } from '../../domain/imports/dataset-layout';
import { importerFor } from '../../domain/imports/formats/index';
import type { ProjectRec } from '../../domain/model';
import { mayExport } from '../../domain/requests/export-rules';
import { enqueueRequest, statusOf } from '../../domain/requests/lifecycle';
import { formatRequestId } from '../../domain/requests/model';
import { requestsOf } from '../../domain/requests/state';
import type { ApiRequest } from '../api';
import { requestPlan } from '../request-plan';
import { cvatJson } from '../respond';
import { byId, type RouteRow, refused } from '../route-table';
import {
  checkUploaded,
  cloudSourceRefused,
  convMaskToPoly,
  dispatchUpload,
  goneExportApi,
  goneProcessStatus,
  handleTusHead,
  handleTusPatch,
  importSource,
  logDatasetImport,
  multipartFile,
  takeUploaded,
} from './import-upload';

/** The project's temporary directory (`get_tmp_dirname`), where its TUS uploads go. */
const uploadDir = (id: number) => `project/${id}`;

/** The formats a project's dataset import reads: an importer the simulator has, with a known layout. */
const readable = (format: string) =>
  importerFor(format) !== undefined && DATASET_IMPORT_FORMATS.includes(format);

/** `DatasetImporter.enqueue_job`: source, format, file, then the job (or the 409 of one under way). */
function finishUpload(r: ApiRequest, project: ProjectRec): Response {
  const source = importSource(r);
  if (source instanceof Response) return source;
  const conv = convMaskToPoly(r);
  if (conv instanceof Response) return conv;
  const dir = uploadDir(project.id);
  if (!source.cloud && source.filename) {
    const uploaded = checkUploaded(r, dir, source.filename);
    if (uploaded instanceof Response) return uploaded;
  }
  const format = r.query('format') ?? '';
  if (!readable(format)) return cvatJson(r.c, [`Unknown input format '${format}'`], 400);
  // The simulator has no cloud storages: FIDELITY.md lists this refusal.
  if (source.cloud) return cloudSourceRefused(r, 'Datasets', 'dataset import');
  let file: { name: string; bytes: Buffer };
  if (source.filename) file = { name: source.filename, bytes: takeUploaded(r, dir, source.filename) };
  else {
    const sent = multipartFile(r, 'dataset_file');
    if (sent instanceof Response) return sent;
    // `DatasetFileSerializer.validate_dataset_file`.
    if (!sent.name.endsWith('.zip') || sent.name.slice(0, -4).split('/').pop() === '') {
      return cvatJson(r.c, { dataset_file: ['Dataset file should be zip archive'] }, 400);
    }
    file = sent;
  }
  const id = formatRequestId({
    action: 'import',
    target: 'project',
    target_id: project.id,
    subresource: 'dataset',
  });
  const rs = requestsOf(r.state);
  const now = statusOf(rs, id, r.now);
  if (now === 'queued' || now === 'started') return cvatJson(r.c, { rq_id: id }, 409);
  const user = r.user();
  enqueueRequest(
    rs,
    r.world,
    {
      id,
      operation: {
        type: 'import:dataset',
        target: 'project',
        project_id: project.id,
        task_id: null,
        job_id: null,
        org_id: project.organization_id,
        // The operation's format is the request id's, and an `ImportRequestId` is rendered without one.
        format: null,
        lightweight: null,
      },
      owner: { id: user.id, username: user.username, email: user.email },
      httpRequestId: r.sim.requestId,
      baseUrl: r.state.baseUrl,
      work: {
        kind: 'import:dataset',
        projectId: project.id,
        format,
        convMaskToPoly: conv,
        fileName: file.name,
        file: file.bytes.toString('base64'),
      },
    },
    requestPlan(r, rs, rs.settings.taskCreationMs),
  );
  logDatasetImport(r, format, {
    projectId: project.id,
    taskId: null,
    jobId: null,
    orgId: project.organization_id,
  });
  return cvatJson(r.c, { rq_id: id }, 202);
}

/**
 * `import:dataset` of a project (`projects.rego`, the rules of `update:desc`): an admin; in the sandbox
 * its staff (owner, assignee); in its organization a maintainer or owner with privilege user, or its
 * staff who is a member. The project exists (404), then DRF's 403.
 */
function projectForImport(r: ApiRequest): Result<ProjectRec> {
  const found = r.record(r.state.projects, 'Project');
  if (!found.ok) return found;
  const p = found.value;
  const user = r.user();
  const staff = p.owner_id === user.id || p.assignee_id === user.id;
  if (isAdmin(user)) return found;
  if (p.organization_id === null) return staff ? found : fail(denied());
  const role = roleIn(r.state, user.id, p.organization_id);
  const orgStaff = role === 'maintainer' || role === 'owner';
  return (user.privilege === 'user' && orgStaff) || (staff && role !== null) ? found : fail(denied());
}

/** `POST /api/projects/{id}/dataset`: the project for `import:dataset`, then UploadMixin's dispatch. */
function importDatasetRoute(r: ApiRequest): Response {
  const project = projectForImport(r);
  if (!project.ok) return refused(r, project);
  return dispatchUpload(r, uploadDir(project.value.id), () => finishUpload(r, project.value));
}

/**
 * `GET /api/projects/{id}/dataset`: the project read for `import:dataset` (`?action=import_status`) or
 * `export:dataset`, then the 410 pages of the old import-status and export flows (`get_410_response_when_checking_process_status`,
 * `get_410_response_for_export_api`).
 */
function datasetGone(r: ApiRequest): Response {
  const importStatus = r.query('action') === 'import_status';
  // The scope: `import:dataset` for the import status, `export:dataset` otherwise.
  const project = importStatus ? projectForImport(r) : r.record(r.state.projects, 'Project');
  if (!project.ok) return refused(r, project);
  if (!importStatus) {
    const allowed = mayExport(r.state, r.user(), { target: 'project', rec: project.value });
    if (!allowed.ok) return refused(r, allowed);
  }
  if (importStatus) return goneProcessStatus(r, 'import');
  return goneExportApi(r, '/api/projects/id/dataset/export?save_images=True');
}

/** The project's TUS chunks: the project read as for the import, then the upload of its directory. */
const chunk = (handle: typeof handleTusHead) => (r: ApiRequest) => {
  const project = projectForImport(r);
  if (!project.ok) return refused(r, project);
  return handle(r, uploadDir(project.value.id));
};

/** A TUS upload's URL: CVAT routes only file ids of its own form (`<user id>_<uuid>`). */
const FILE_ID = ':file_id{[0-9]+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}}';

const PROJECT = byId('projects');

/** The dataset import routes of projects. */
export const datasetImportRoutes: readonly RouteRow[] = [
  {
    method: 'post',
    path: ['/api/projects/:id/dataset/', '/api/projects/:id/dataset'],
    operation: 'projects.create_dataset',
    resource: PROJECT,
    handle: importDatasetRoute,
  },
  {
    method: 'get',
    path: ['/api/projects/:id/dataset/', '/api/projects/:id/dataset'],
    operation: 'projects.retrieve_dataset',
    resource: PROJECT,
    handle: datasetGone,
  },
  {
    method: 'get',
    path: `/api/projects/:id/dataset/${FILE_ID}`,
    operation: 'projects.append_dataset_chunk',
    resource: PROJECT,
    handle: chunk(handleTusHead),
  },
  {
    method: 'patch',
    path: `/api/projects/:id/dataset/${FILE_ID}`,
    operation: 'projects.append_dataset_chunk',
    resource: PROJECT,
    handle: chunk(handleTusPatch),
  },
];
