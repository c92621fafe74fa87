/**
 * Annotations imported from a file as CVAT 2.73 takes them: `POST /api/tasks/{id}/annotations` and
 * `POST /api/jobs/{id}/annotations` (`annotations` actions of TaskViewSet and JobViewSet, UploadMixin's
 * `upload_data`, then `DatasetImporter.enqueue_job`). The file comes as the multipart field
 * `annotation_file`, or as a TUS upload into the task's or job's temporary directory (`HEAD`/`PATCH
 * …/annotations/<file_id>`) that `Upload-Finish` names in `?filename=`. Each answers 202 `{"rq_id"}` of
 * an `import:annotations` request (`action=import&target=task&target_id=5&subresource=annotations`)
 * whose worker reads the file (`domain/imports/annotations-import.ts`).
 */
import { importerFor } from '../../domain/imports/formats/index';
import type { JobRec, TaskRec } from '../../domain/model';
import { enqueueRequest, statusOf } from '../../domain/requests/lifecycle';
import { formatRequestId, type ImportAnnotationsWork } from '../../domain/requests/model';
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
  handleTusHead,
  handleTusPatch,
  importSource,
  logDatasetImport,
  multipartFile,
  takeUploaded,
} from './import-upload';
import { loadRecord } from './resource-support';

type Target = 'task' | 'job';

/** The import's target: the job (if any) and its task. */
interface Imported {
  target: Target;
  task: TaskRec;
  job: JobRec | undefined;
}

/** The upload directory of the target (`get_upload_dir`: the task's or job's `get_tmp_dirname()`). */
const dirOf = (target: Target, id: number) => `${target}/${id}`;

/**
 * `DatasetImporter.enqueue_job`: `init_request_args` (location, `conv_mask_to_poly`, `import_mode`),
 * `validate_request` (a cloud source's filename, a TUS upload's file, the format), the file (a cloud
 * one refused here: the simulator has none), 409 while the same import is queued or started, then the
 * request and its `import:dataset` event.
 */
function finishUpload(r: ApiRequest, e: Imported): Response {
  const source = importSource(r);
  if (source instanceof Response) return source;
  const conv = convMaskToPoly(r);
  if (conv instanceof Response) return conv;
  const mode = r.query('import_mode') ?? 'replace';
  if (mode !== 'replace' && mode !== 'append') {
    return cvatJson(r.c, [`Invalid import_mode='${mode}'. Allowed: replace, append`], 400);
  }
  const targetId = e.job?.id ?? e.task.id;
  const dir = dirOf(e.target, targetId);
  if (!source.cloud && source.filename) {
    const uploaded = checkUploaded(r, dir, source.filename);
    if (uploaded instanceof Response) return uploaded;
  }
  const format = r.query('format') ?? '';
  const importer = importerFor(format);
  if (importer === undefined) return cvatJson(r.c, [`Unknown input format '${format}'`], 400);
  if (!importer.enabled) return cvatJson(r.c, { detail: 'Format is disabled' }, 405);
  if (source.cloud) return cloudSourceRefused(r, 'Annotation imports', 'annotation import');
  let file: { name: string; bytes: Buffer };
  if (source.filename) file = { name: source.filename, bytes: takeUploaded(r, dir, source.filename) };
  else {
    const sent = multipartFile(r, 'annotation_file');
    if (sent instanceof Response) return sent;
    file = sent;
  }
  const id = formatRequestId({
    action: 'import',
    target: e.target,
    target_id: targetId,
    subresource: 'annotations',
  });
  const rs = requestsOf(r.state);
  const status = statusOf(rs, id, r.now);
  if (status === 'queued' || status === 'started') return cvatJson(r.c, { rq_id: id }, 409);
  const user = r.user();
  const work: ImportAnnotationsWork = {
    kind: 'import:annotations',
    target: e.target,
    targetId,
    format,
    mode,
    convMaskToPoly: conv,
    fileName: file.name,
    file: file.bytes.toString('base64'),
  };
  // `finalize_request` logs the event once the job is queued: before anything its worker does.
  logDatasetImport(r, format, {
    projectId: e.task.project_id,
    taskId: e.task.id,
    jobId: e.job?.id ?? null,
    orgId: e.task.organization_id,
  });
  enqueueRequest(
    rs,
    r.world,
    {
      id,
      operation: {
        type: 'import:annotations',
        target: e.target,
        project_id: e.task.project_id,
        task_id: e.task.id,
        job_id: e.job?.id ?? null,
        org_id: e.task.organization_id,
        format: null,
        lightweight: null,
      },
      owner: { id: user.id, username: user.username, email: user.email },
      httpRequestId: r.sim.requestId,
      baseUrl: r.state.baseUrl,
      work,
    },
    requestPlan(r, rs, rs.settings.taskCreationMs),
  );
  return cvatJson(r.c, { rq_id: id }, 202);
}

/** The target of the path, if the caller may import into it (`import:annotations`, as `update:annotations`). */
function importedOf(r: ApiRequest, target: Target): Imported | Response {
  if (target === 'job') {
    const job = loadRecord(r, 'job', r.state.jobs, 'Job', true);
    if (!job.ok) return refused(r, job);
    return { target, job: job.value, task: r.state.tasks.get(job.value.task_id) as TaskRec };
  }
  const task = loadRecord(r, 'task', r.state.tasks, 'Task', true);
  return task.ok ? { target, task: task.value, job: undefined } : refused(r, task);
}

/**
 * `POST …/annotations`: the target and the permission, a task's data (`ensure_task_is_initialized`),
 * then UploadMixin's dispatch.
 */
export const importAnnotationsView = (target: Target) => (r: ApiRequest) => {
  const e = importedOf(r, target);
  if (e instanceof Response) return e;
  if (target === 'task' && e.task.data_id === null) {
    return cvatJson(r.c, ['This task data has not been initialized yet'], 400);
  }
  return dispatchUpload(r, dirOf(target, e.job?.id ?? e.task.id), () => finishUpload(r, e));
};

/** A TUS chunk's view (`append_annotations_chunk`): the target and its permission, then the chunk. */
const chunkView = (target: Target, handle: (r: ApiRequest, dir: string) => Response) => (r: ApiRequest) => {
  const e = importedOf(r, target);
  if (e instanceof Response) return e;
  return handle(r, dirOf(target, e.job?.id ?? e.task.id));
};

/** A TUS upload's URL: CVAT routes only file ids of its own form (`<user id>_<uuid>`). */
const FILE_ID = ':file_id{[0-9]+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}}';

/** The TUS chunk rows of the annotation imports of tasks and jobs (`HEAD` is served by the GET row). */
export const annotationImportChunkRoutes: readonly RouteRow[] = (['task', 'job'] as const).flatMap(
  (target): RouteRow[] => [
    {
      method: 'get',
      path: `/api/${target}s/:id/annotations/${FILE_ID}`,
      operation: `${target}s.append_annotations_chunk`,
      resource: byId(`${target}s`),
      handle: chunkView(target, handleTusHead),
    },
    {
      method: 'patch',
      path: `/api/${target}s/:id/annotations/${FILE_ID}`,
      operation: `${target}s.append_annotations_chunk`,
      resource: byId(`${target}s`),
      handle: chunkView(target, handleTusPatch),
    },
  ],
);
