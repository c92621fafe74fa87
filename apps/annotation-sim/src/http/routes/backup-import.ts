/**
 * Backups restored as CVAT 2.73's `import_backup` views take them (`POST /api/tasks/backup`,
 * `POST /api/projects/backup`): one multipart request with the archive as `task_file` / `project_file`,
 * or a TUS upload (`Upload-Start`, `Upload-Length` then `PATCH …/backup/<file_id>`, `Upload-Finish`
 * with `?filename=<file_id>`, as the SDK's uploader sends it). Each answers 202 `{"rq_id"}` of an
 * `import:backup` request (`action=import&target=task&id=<uuid>&subresource=backup`) whose worker
 * restores the archive (`domain/imports/backup-restore.ts`); `result_id` is the new task or project.
 */
import { enqueueRequest } from '../../domain/requests/lifecycle';
import { formatRequestId } from '../../domain/requests/model';
import { requestsOf } from '../../domain/requests/state';
import { mayCreate } from '../../domain/resource-rules';
import type { AnnotationState } from '../../domain/state';
import type { ApiRequest } from '../api';
import { readMultipart } from '../multipart';
import { requestPlan } from '../request-plan';
import { cvatJson, emptyBody } from '../respond';
import { type RouteRow, refused } from '../route-table';
import { TUS_MAX_FILE_SIZE, tus } from './task-data';

type Target = 'project' | 'task';

/** The multipart field each view's serializer reads (`TaskFileSerializer`, `ProjectFileSerializer`). */
const FILE_FIELD: Record<Target, string> = { task: 'task_file', project: 'project_file' };

/** A backup's TUS upload: CVAT writes it to its temporary directory, named by its file id. */
interface BackupUpload {
  ownerId: number;
  length: number;
  offset: number;
  chunks: Buffer[];
}

/**
 * The backup uploads of each world, by file id. Chosen: kept beside the world's state, not in its
 * snapshot (CVAT's temporary files are no part of its database either); a finished request takes its
 * archive into the request itself.
 */
const uploadsOf = (() => {
  const all = new WeakMap<AnnotationState, Map<string, BackupUpload>>();
  return (state: AnnotationState) => {
    let m = all.get(state);
    if (!m) {
      m = new Map();
      all.set(state, m);
    }
    return m;
  };
})();

/** TUS create: no file name is needed; the upload is named by its file id (`Upload-Filename`). */
function createTusUpload(r: ApiRequest): Response {
  const length = Number(r.c.req.header('upload-length'));
  if (!Number.isSafeInteger(length) || length < 0) return tus(r, 400, 'Invalid Upload-Length');
  if (length > TUS_MAX_FILE_SIZE) {
    return tus(r, 413, `File size exceeds max limit of ${TUS_MAX_FILE_SIZE} bytes`);
  }
  const user = r.user();
  const fileId = `${user.id}_${r.world.ids.uuid()}`;
  uploadsOf(r.state).set(fileId, { ownerId: user.id, length, offset: 0, chunks: [] });
  const url = new URL(r.c.req.url);
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  return tus(r, 201, undefined, { Location: `${url.origin}${path}${fileId}`, 'Upload-Filename': fileId });
}

/** The upload of the path: 404 unknown, 403 another user's. */
function tusUploadOf(r: ApiRequest): BackupUpload | Response {
  const upload = uploadsOf(r.state).get(r.c.req.param('file_id') ?? '');
  if (!upload) return tus(r, 404);
  if (upload.ownerId !== r.user().id) return tus(r, 403);
  return upload;
}

/** `HEAD /api/<target>s/backup/<file_id>`: where the upload stands (a GET is 405, as in CVAT). */
function handleTusHead(r: ApiRequest): Response {
  if (r.c.req.method !== 'HEAD') {
    return cvatJson(r.c, { detail: `Method "${r.c.req.method}" not allowed.` }, 405);
  }
  const upload = tusUploadOf(r);
  if (upload instanceof Response) return upload;
  return tus(r, 200, undefined, {
    'Upload-Offset': String(upload.offset),
    'Upload-Length': String(upload.length),
  });
}

/** `PATCH /api/<target>s/backup/<file_id>`: one chunk at `Upload-Offset`. */
function handleTusPatch(r: ApiRequest): Response {
  const upload = tusUploadOf(r);
  if (upload instanceof Response) return upload;
  if (Number(r.c.req.header('upload-offset')) !== upload.offset) return tus(r, 409);
  if (r.c.req.header('content-length') === undefined) {
    return tus(r, 400, ['Content-Length header is missing']);
  }
  const chunk = Buffer.from(r.sim.bodyBytes ?? Buffer.from(r.sim.rawBody ?? ''));
  const end = upload.offset + chunk.length;
  if (end > upload.length) return tus(r, 413);
  upload.chunks.push(chunk);
  upload.offset = end;
  return tus(r, 204, undefined, { 'Upload-Offset': String(end) });
}

/** The archive a multipart body carries in the view's file field, or the serializer's 400. */
function multipartArchive(r: ApiRequest, target: Target): Buffer | Response {
  const field = FILE_FIELD[target];
  const contentType = r.c.req.header('content-type') ?? '';
  let file: Buffer | undefined;
  if (/^multipart\/form-data/i.test(contentType) && r.sim.bodyBytes !== undefined) {
    const read = readMultipart(r.sim.bodyBytes, contentType, (part) => {
      if (part.name === field && part.content !== undefined && file === undefined) {
        file = Buffer.from(part.content);
      }
    });
    if (!read.ok && read.reason === 'no-boundary') {
      return cvatJson(
        r.c,
        { detail: 'Multipart form parse error - Invalid boundary in multipart: None' },
        400,
      );
    }
  }
  if (file === undefined) return cvatJson(r.c, { [field]: ['No file was submitted.'] }, 400);
  if (file.length === 0) return cvatJson(r.c, { [field]: ['The submitted file is empty.'] }, 400);
  return file;
}

/** `BackupImporter.enqueue_job`: the source checked (`init_request_args`, `validate_request`), the file, the job. */
function finishUpload(r: ApiRequest, target: Target, orgId: number | null): Response {
  // `LocationConfig`'s checks, then `validate_request`'s.
  const location = r.query('location') ?? 'local';
  const filename = r.query('filename');
  if (location !== 'local' && location !== 'cloud_storage') {
    return cvatJson(r.c, [`'${location}' is not a valid Location`], 400);
  }
  if (location === 'cloud_storage') {
    if (!r.query('cloud_storage_id')) {
      return cvatJson(
        r.c,
        ['Trying to use undefined cloud storage (cloud_storage_id was not provided)'],
        400,
      );
    }
    if (!filename) return cvatJson(r.c, ['The filename was not specified'], 400);
    // The simulator has no cloud storages: FIDELITY.md lists this refusal.
    return cvatJson(
      r.c,
      { detail: 'Backups from cloud storage are not simulated by annotation-sim. See its FIDELITY.md.' },
      501,
      { 'X-Sim-Reason': 'not-simulated: backup import from cloud storage' },
    );
  }
  let archive: Buffer;
  if (filename) {
    const uploads = uploadsOf(r.state);
    const upload = uploads.get(filename);
    if (!upload || upload.ownerId !== r.user().id) {
      return cvatJson(r.c, ['No such file were uploaded'], 400);
    }
    uploads.delete(filename);
    archive = Buffer.concat(upload.chunks);
  } else {
    const file = multipartArchive(r, target);
    if (file instanceof Response) return file;
    archive = file;
  }
  const user = r.user();
  const id = formatRequestId({ action: 'import', target, id: r.world.ids.uuid(), subresource: 'backup' });
  const rs = requestsOf(r.state);
  enqueueRequest(
    rs,
    r.world,
    {
      id,
      operation: {
        type: 'import:backup',
        target,
        project_id: null,
        task_id: null,
        job_id: null,
        org_id: orgId,
        format: null,
        lightweight: null,
      },
      owner: { id: user.id, username: user.username, email: user.email },
      httpRequestId: r.sim.requestId,
      baseUrl: r.state.baseUrl,
      work: { kind: 'import:backup', target, orgId, archive: archive.toString('base64') },
    },
    requestPlan(r, rs, rs.settings.taskCreationMs),
  );
  return cvatJson(r.c, { rq_id: id }, 202);
}

/** `POST /api/<target>s/backup`: the caller may create in the context (`import:backup`), then UploadMixin's dispatch. */
const importBackup = (target: Target) => (r: ApiRequest) => {
  const context = r.orgContext();
  if (!context.ok) return refused(r, context);
  const allowed = mayCreate(r.state, r.user(), context.value);
  if (!allowed.ok) return refused(r, allowed);
  if (r.query('rq_id') !== undefined) {
    return new Response(
      'This endpoint no longer supports checking the status of the import process.\n' +
        'The common requests API should be used instead: GET /api/requests/rq_id,\n' +
        'where rq_id is obtained from the response of the initializing request.\n',
      {
        status: 410,
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'X-Request-Id': r.sim.requestId },
      },
    );
  }
  const has = (name: string) => r.c.req.header(name) !== undefined;
  if (has('upload-finish')) return finishUpload(r, target, context.value.org?.id ?? null);
  if (has('upload-start')) return emptyBody(r.c, 202);
  if (has('upload-length')) return createTusUpload(r);
  // `Upload-Multiple` appends to an upload directory a backup import has none of: answered as CVAT does.
  if (has('upload-multiple')) return emptyBody(r.c, 200);
  return finishUpload(r, target, context.value.org?.id ?? null);
};

/** A TUS upload's URL: CVAT routes only file ids of its own form (`<user id>_<uuid>`). */
const FILE_ID = ':file_id{[0-9]+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}}';

/** The backup import routes of projects and tasks. */
export const backupImportRoutes: readonly RouteRow[] = (['project', 'task'] as const).flatMap(
  (target): RouteRow[] => [
    {
      method: 'post',
      path: [`/api/${target}s/backup/`, `/api/${target}s/backup`],
      operation: `${target}s.create_backup`,
      handle: importBackup(target),
    },
    {
      method: 'get',
      path: `/api/${target}s/backup/${FILE_ID}`,
      operation: `${target}s.append_backup_chunk`,
      handle: handleTusHead,
    },
    {
      method: 'patch',
      path: `/api/${target}s/backup/${FILE_ID}`,
      operation: `${target}s.append_backup_chunk`,
      handle: handleTusPatch,
    },
  ],
);
