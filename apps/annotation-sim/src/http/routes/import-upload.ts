/**
 * The upload side of CVAT 2.73's imports (`UploadMixin.upload_data` and `BaseResourceImporter` in
 * `engine/mixins.py`, `engine/background.py`), shared by the views that take a file into a background
 * request: backups restored (`import:backup`), annotations into a task or job (`import:annotations`), a
 * project's dataset (`import:dataset`). A file comes in one multipart request, or as a TUS upload into
 * the view's upload directory (`get_upload_dir`: the backup directory, the task's or job's temporary
 * directory), named by its file id, which `Upload-Finish` then names in `?filename=`.
 */
import { EVENTS_EXTENSION, eventsOf, recordEvents } from '../../domain/events/state';
import { renderDrfJson } from '../../domain/python-json';
import type { AnnotationState } from '../../domain/state';
import type { ApiRequest } from '../api';
import { readMultipart, uploadedFileName } from '../multipart';
import { cvatJson, emptyBody } from '../respond';
import { refused } from '../route-table';
import { TUS_MAX_FILE_SIZE, tus } from './task-data';

/** A TUS upload under way: CVAT writes it to the upload directory, named by its file id. */
interface ImportUpload {
  ownerId: number;
  length: number;
  offset: number;
  chunks: Buffer[];
}

/**
 * The uploads of each world, by upload directory (`backup`, `task/5`, `job/7`, `project/2`) and file
 * id. Chosen: kept beside the world's state, not in its snapshot (CVAT's temporary files are no part of
 * its database either); a finished upload's bytes go into the request that takes them.
 */
const uploadsOf = (() => {
  const all = new WeakMap<AnnotationState, Map<string, Map<string, ImportUpload>>>();
  return (state: AnnotationState, dir: string) => {
    let dirs = all.get(state);
    if (!dirs) {
      dirs = new Map();
      all.set(state, dirs);
    }
    let m = dirs.get(dir);
    if (!m) {
      m = new Map();
      dirs.set(dir, m);
    }
    return m;
  };
})();

/** TUS create: no file name is needed; the upload is named by its file id (`Upload-Filename`). */
function createTusUpload(r: ApiRequest, dir: string): Response {
  const length = Number(r.c.req.header('upload-length'));
  if (!Number.isSafeInteger(length) || length < 0) return tus(r, 400, 'Invalid Upload-Length');
  if (length > TUS_MAX_FILE_SIZE) {
    return tus(r, 413, `File size exceeds max limit of ${TUS_MAX_FILE_SIZE} bytes`);
  }
  const user = r.user();
  const fileId = `${user.id}_${r.world.ids.uuid()}`;
  uploadsOf(r.state, dir).set(fileId, { ownerId: user.id, length, offset: 0, chunks: [] });
  const url = new URL(r.c.req.url);
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  return tus(r, 201, undefined, { Location: `${url.origin}${path}${fileId}`, 'Upload-Filename': fileId });
}

/** The upload of the path: 404 unknown, 403 another user's. */
function tusUploadOf(r: ApiRequest, dir: string): ImportUpload | Response {
  const upload = uploadsOf(r.state, dir).get(r.c.req.param('file_id') ?? '');
  if (!upload) return tus(r, 404);
  if (upload.ownerId !== r.user().id) return tus(r, 403);
  return upload;
}

/** `HEAD …/<file_id>`: where the upload stands (a GET is 405, as in CVAT). */
export function handleTusHead(r: ApiRequest, dir: string): Response {
  if (r.c.req.method !== 'HEAD') {
    return cvatJson(r.c, { detail: `Method "${r.c.req.method}" not allowed.` }, 405);
  }
  const upload = tusUploadOf(r, dir);
  if (upload instanceof Response) return upload;
  return tus(r, 200, undefined, {
    'Upload-Offset': String(upload.offset),
    'Upload-Length': String(upload.length),
  });
}

/** `PATCH …/<file_id>`: one chunk at `Upload-Offset`. */
export function handleTusPatch(r: ApiRequest, dir: string): Response {
  const upload = tusUploadOf(r, dir);
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

/**
 * `UploadMixin.upload_data`: dispatched on the headers. `Upload-Finish` (alone or with `Upload-Start`)
 * and a request with none of them go to `finish`; `Upload-Start` is 202; `Upload-Length` creates a TUS
 * upload; `Upload-Multiple` appends to a directory an import has no use for: answered 200 as CVAT does.
 */
export function dispatchUpload(r: ApiRequest, dir: string, finish: () => Response): Response {
  const has = (name: string) => r.c.req.header(name) !== undefined;
  if (has('upload-finish')) return finish();
  if (has('upload-start')) return emptyBody(r.c, 202);
  if (has('upload-length')) return createTusUpload(r, dir);
  if (has('upload-multiple')) return emptyBody(r.c, 200);
  return finish();
}

/** attrs' `to_bool`: its true and false spellings; anything else raises. */
function toBool(value: string): boolean | undefined {
  if (/^(true|t|yes|y|on|1)$/i.test(value)) return true;
  if (/^(false|f|no|n|off|0)$/i.test(value)) return false;
  return undefined;
}

/**
 * `?conv_mask_to_poly=` as `DatasetImporter.init_request_args` reads it (default true); a value
 * `to_bool` cannot read is its ValueError, Django's 500.
 */
export function convMaskToPoly(r: ApiRequest): boolean | Response {
  const conv = toBool(r.query('conv_mask_to_poly') ?? 'true');
  if (conv !== undefined) return conv;
  return refused(r, {
    error: {
      code: 'SERVER_ERROR',
      reason: `ValueError: Cannot convert value to bool: ${r.query('conv_mask_to_poly')}`,
    },
  });
}

/** Where the file comes from, as `init_request_args` and `validate_request` read it. */
export interface ImportSource {
  cloud: boolean;
  /** `?filename=`: a TUS upload's file id (local), the object's key (cloud). */
  filename: string | undefined;
}

/**
 * `LocationConfig` of `?location=` and `?cloud_storage_id=`, then `validate_request`'s filename check
 * for a cloud source: the source, or the 400.
 */
export function importSource(r: ApiRequest): ImportSource | Response {
  const location = r.query('location') ?? 'local';
  const filename = r.query('filename') || undefined;
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
  }
  return { cloud: location === 'cloud_storage', filename };
}

/** The 501 of a file taken from cloud storage: the simulator has none (FIDELITY.md lists it). */
export function cloudSourceRefused(r: ApiRequest, what: string, reason: string): Response {
  return cvatJson(
    r.c,
    { detail: `${what} from cloud storage are not simulated by annotation-sim. See its FIDELITY.md.` },
    501,
    { 'X-Sim-Reason': `not-simulated: ${reason} from cloud storage` },
  );
}

/**
 * A TUS upload named by `?filename=` is the caller's in the directory (`TusFile.validate`): true, or
 * the 400 "No such file were uploaded".
 */
export function checkUploaded(r: ApiRequest, dir: string, filename: string): true | Response {
  const upload = uploadsOf(r.state, dir).get(filename);
  if (!upload || upload.ownerId !== r.user().id) {
    return cvatJson(r.c, ['No such file were uploaded'], 400);
  }
  return true;
}

/** The uploaded file's bytes ({@link checkUploaded} passed), taken out of the directory. */
export function takeUploaded(r: ApiRequest, dir: string, filename: string): Buffer {
  const uploads = uploadsOf(r.state, dir);
  const upload = uploads.get(filename);
  uploads.delete(filename);
  return Buffer.concat(upload?.chunks ?? []);
}

/**
 * The file a multipart body carries in the serializer's file `field` (`TaskFileSerializer`'s
 * `task_file`, `AnnotationFileSerializer`'s `annotation_file`, …): its name and bytes, or the 400.
 */
export function multipartFile(r: ApiRequest, field: string): { name: string; bytes: Buffer } | Response {
  const contentType = r.c.req.header('content-type') ?? '';
  let file: { name: string; bytes: Buffer } | undefined;
  if (/^multipart\/form-data/i.test(contentType) && r.sim.bodyBytes !== undefined) {
    const read = readMultipart(r.sim.bodyBytes, contentType, (part) => {
      if (part.name === field && part.content !== undefined && file === undefined) {
        file = { name: uploadedFileName(part.filename ?? field), bytes: Buffer.from(part.content) };
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
  if (file.bytes.length === 0) return cvatJson(r.c, { [field]: ['The submitted file is empty.'] }, 400);
  return file;
}

/**
 * `handle_dataset_import` (events/handlers.py), which `DatasetImporter.finalize_request` calls once the
 * job is queued, for a project's dataset and a task's or job's annotations alike: one `import:dataset`
 * server event in the target's context, the caller's, `{"format": …, "request": {"id", "user_agent"}}`.
 */
export function logDatasetImport(
  r: ApiRequest,
  format: string,
  target: { projectId: number | null; taskId: number | null; jobId: number | null; orgId: number | null },
): void {
  if (!r.state.extensions.has(EVENTS_EXTENSION)) return;
  const actor = r.actor();
  if (actor.kind !== 'user') return;
  const org = target.orgId === null ? undefined : r.state.organizations.get(target.orgId);
  recordEvents(eventsOf(r.state), [
    {
      scope: 'import:dataset',
      obj_name: null,
      obj_id: null,
      obj_val: null,
      source: 'server',
      timestamp: r.now,
      count: null,
      duration: 0,
      project_id: target.projectId,
      task_id: target.taskId,
      job_id: target.jobId,
      user_id: actor.id,
      user_name: actor.username,
      user_email: actor.email || null,
      org_id: org?.id ?? null,
      org_slug: org?.slug ?? null,
      payload: renderDrfJson({
        format,
        request: { id: actor.requestId ?? null, user_agent: actor.userAgent ?? null },
      }),
      access_token_id: actor.accessTokenId ?? null,
    },
  ]);
}

/** A `text/html` 410 page as Django's `HttpResponseGone` sends it. */
const gone = (r: ApiRequest, text: string): Response =>
  new Response(text, {
    status: 410,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'X-Request-Id': r.sim.requestId },
  });

/** `get_410_response_when_checking_process_status(kind)`: the old status polls of an import. */
export const goneProcessStatus = (r: ApiRequest, kind: string): Response =>
  gone(
    r,
    `This endpoint no longer supports checking the status of the ${kind} process.\n` +
      'The common requests API should be used instead: GET /api/requests/rq_id,\n' +
      'where rq_id is obtained from the response of the initializing request.\n',
  );

/** `get_410_response_for_export_api(path)`: the old export flow, pointing at its replacement. */
export const goneExportApi = (r: ApiRequest, path: string): Response =>
  gone(
    r,
    'This endpoint is no longer supported.\n' +
      `To initiate the export process, use POST ${path}.\n` +
      'To check the process status, use GET /api/requests/rq_id,\n' +
      'where rq_id is obtained from the response of the previous request.\n' +
      'To download the prepared file, use the result_url obtained from the response of the previous request.\n',
  );
