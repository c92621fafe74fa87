/**
 * `POST /api/tasks/{id}/data/` in each form CVAT's SDK and UI send (one JSON or multipart request;
 * `Upload-Start`, `Upload-Multiple` batches and TUS uploads, then `Upload-Finish`), and the TUS
 * chunk endpoints `HEAD`/`PATCH /api/tasks/{id}/data/{file_id}`. The data is then created by a
 * background request (`action=create&target=task&target_id=<id>`) that `GET /api/requests/{id}` follows.
 */
import type { DataRequest } from '@sims/annotation-schema/requests';
import { remoteFileName, type UploadedFile, uploadFrames } from '../../domain/data-meta';
import { fail, invalid, type Result } from '../../domain/errors';
import { type ImageSize, imageSize } from '../../domain/image-header';
import type { TaskRec } from '../../domain/model';
import { enqueueRequest, statusOf } from '../../domain/requests/lifecycle';
import { formatRequestId } from '../../domain/requests/model';
import { remoteFilesErrors } from '../../domain/requests/remote-files';
import { type RequestsState, requestsOf, type TaskUpload } from '../../domain/requests/state';
import { keepUploadFrames, startTaskData, taskDataInput } from '../../domain/tasks';
import type { ApiRequest } from '../api';
import { type MultipartRead, readMultipart, uploadedFileName } from '../multipart';
import { requestPlan } from '../request-plan';
import { cvatJson, DJANGO_400_PAGE, djangoErrorResponse, emptyBody } from '../respond';
import { refused } from '../route-table';
import { loadRecord } from './resource-support';

/** CVAT's `TUS_MAX_FILE_SIZE` (25 GiB). */
export const TUS_MAX_FILE_SIZE = 26_843_545_600;

/**
 * Files a task's upload directory holds until `Upload-Finish` (received whole, or TUS uploads under
 * way). Chosen: CVAT keeps them on disk, unbounded; the simulator keeps each name in the world.
 */
export const MAX_UPLOAD_FILES = 100_000;

/**
 * Past a simulator's bound on files or parts: the page Django answers its own (TooManyFilesSent,
 * TooManyFieldsSent are SuspiciousOperations: a 400 page, not DRF's JSON), with the bound in `X-Sim-Reason`.
 */
const tooMany = (r: ApiRequest, reason: string) =>
  djangoErrorResponse(r.c, 400, DJANGO_400_PAGE, { 'X-Sim-Reason': reason });

/** The answer to a multipart body that was not read: no boundary, or more parts than a body may hold. */
function unread(r: ApiRequest, read: Exclude<MultipartRead, { ok: true }>): Response {
  if (read.reason === 'no-boundary') {
    return cvatJson(r.c, { detail: 'Multipart form parse error - Invalid boundary in multipart: None' }, 400);
  }
  return tooMany(r, `multipart body of more than ${read.limit} parts`);
}

/** Whether `adding` more files would take the task's upload directory past {@link MAX_UPLOAD_FILES}. */
const overfull = (upload: TaskUpload, adding: number) =>
  upload.files.length + upload.tus.length + adding > MAX_UPLOAD_FILES;

const UPLOAD_FULL = `upload directory of more than ${MAX_UPLOAD_FILES} files`;

/** The headers of every TUS answer (`cvat/apps/engine/mixins.py`). */
const TUS_HEADERS: Record<string, string> = {
  'Tus-Resumable': '1.0.0',
  'Tus-Version': '1.0.0',
  'Tus-Extension': '',
  'Tus-Max-Size': String(TUS_MAX_FILE_SIZE),
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'PATCH,HEAD,GET,POST,OPTIONS',
  'Access-Control-Expose-Headers': 'Tus-Resumable,upload-length,upload-metadata,Location,Upload-Offset',
  'Access-Control-Allow-Headers':
    'Tus-Resumable,upload-length,upload-metadata,Location,Upload-Offset,content-type',
  'Cache-Control': 'no-store',
};

/** A TUS answer: its status, CVAT's TUS headers and any others, a JSON body when there is one. */
export const tus = (r: ApiRequest, status: number, data?: unknown, headers: Record<string, string> = {}) =>
  data === undefined
    ? emptyBody(r.c, status, { ...TUS_HEADERS, ...headers })
    : cvatJson(r.c, data, status, { ...TUS_HEADERS, ...headers });

/** The task of the path, if the caller may change it; else its refusal. */
function taskOf(r: ApiRequest): TaskRec | Response {
  const t = loadRecord(r, 'task', r.state.tasks, 'Task', true);
  return t.ok ? t.value : refused(r, t);
}

function uploadOf(rs: RequestsState, taskId: number): TaskUpload {
  let upload = rs.uploads.get(taskId);
  if (upload === undefined) {
    upload = { files: [], tus: [] };
    rs.uploads.set(taskId, upload);
  }
  return upload;
}

/** A multipart body as the kernel kept it: bytes (annotation-sim's `bytesBodies`: never decoded whole). */
const bodyBytesOf = (r: ApiRequest): Uint8Array => r.sim.bodyBytes ?? Buffer.from(r.sim.rawBody ?? '');

/** DRF's list fields as multipart carries them: repeated keys or `name[0]`, `name[1]`, … */
const LIST_FIELDS = new Set([
  'client_files',
  'server_files',
  'remote_files',
  'server_files_exclude',
  'upload_file_order',
  'job_file_mapping',
]);

/**
 * The data request's fields from a multipart body, with the files it carries as `client_files` names
 * (the image size each file's header declares goes into `sizes`).
 */
function multipartData(
  r: ApiRequest,
  contentType: string,
  sizes: Map<string, ImageSize>,
): Record<string, unknown> | Response {
  const body: Record<string, unknown> = {};
  const read = readMultipart(bodyBytesOf(r), contentType, (part) => {
    const indexed = /^(\w+)\[\d+\]$/.exec(part.name);
    const name = indexed ? (indexed[1] as string) : part.name;
    const value = part.filename !== undefined ? uploadedFileName(part.filename) : part.value;
    const size = part.content === undefined ? undefined : imageSize(part.content);
    if (size !== undefined) sizes.set(value, size);
    if (LIST_FIELDS.has(name)) {
      // Appended in place: a copy of the list per part made 20,000 files minutes of work.
      if (!Array.isArray(body[name])) body[name] = [];
      (body[name] as unknown[]).push(value);
    } else if (!(name in body)) body[name] = value;
  });
  return read.ok ? body : unread(r, read);
}

/**
 * The data request's fields as `DataSerializer.is_valid()` reads them: each field, and `remote_files`
 * through `validate_remote_files` (http(s) URLs only), its errors in the same 400 as the others', in the
 * serializer's field order (before `sorting_method`).
 */
function checkedData(r: ApiRequest<DataRequest>, body: Record<string, unknown>): Result<DataRequest> {
  const fields = r.bodyFrom(body);
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  const remote = isObject ? remoteFilesErrors(body.remote_files) : undefined;
  if (remote === undefined) return fields;
  let others: Record<string, unknown> = {};
  if (!fields.ok) {
    if (fields.error.code !== 'INVALID') return fields;
    others = fields.error.errors;
  }
  const { sorting_method, ...before } = others;
  return fail(
    invalid({ ...before, remote_files: remote, ...(sorting_method === undefined ? {} : { sorting_method }) }),
  );
}

/**
 * `Upload-Finish` (or a single request): creates the data from the body and the upload directory, the
 * files uploaded before it first in `client_files`, checked as one DataRequest.
 */
function finishUpload(r: ApiRequest<DataRequest>, task: TaskRec): Response {
  const contentType = r.c.req.header('content-type') ?? '';
  let body: Record<string, unknown> = {};
  const sizes = new Map<string, ImageSize>();
  if (/^multipart\/form-data/i.test(contentType)) {
    const parsed = multipartData(r, contentType, sizes);
    if (parsed instanceof Response) return parsed;
    body = parsed;
  } else {
    const parsed = r.parsedBody();
    if (!parsed.ok) return refused(r, parsed);
    body = parsed.value as Record<string, unknown>;
  }
  const rs = requestsOf(r.state);
  const uploaded = rs.uploads.get(task.id)?.files ?? [];
  for (const f of uploaded) {
    if (f.width !== undefined && f.height !== undefined)
      sizes.set(f.name, { width: f.width, height: f.height });
  }
  if (uploaded.length > 0 && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const given = Array.isArray(body.client_files) ? (body.client_files as unknown[]) : [];
    body = { ...body, client_files: [...uploaded.map((f) => f.name), ...given] };
  }
  const fields = checkedData(r, body);
  if (!fields.ok) return refused(r, fields);
  const f = fields.value;
  const count = (files: unknown) => (Array.isArray(files) ? files.length : 0);
  const input = taskDataInput(task, {
    image_quality: f.image_quality,
    chunk_size: f.chunk_size,
    files: count(f.client_files) + count(f.server_files) + count(f.remote_files),
  });
  if (!input.ok) return refused(r, input);
  const id = formatRequestId({ action: 'create', target: 'task', target_id: task.id });
  const status = statusOf(rs, id, r.now);
  if (status === 'queued' || status === 'started') return cvatJson(r.c, { rq_id: id }, 409);
  keepUploadFrames(
    task,
    uploadFrames(filesOf(f, sizes), f.sorting_method, () => r.world.random.next()),
  );
  const user = r.user();
  enqueueRequest(
    rs,
    r.world,
    {
      id,
      operation: {
        type: 'create:task',
        target: 'task',
        project_id: task.project_id,
        task_id: task.id,
        job_id: null,
        org_id: task.organization_id,
        format: null,
        lightweight: null,
      },
      owner: { id: user.id, username: user.username, email: user.email },
      httpRequestId: r.sim.requestId,
      baseUrl: r.state.baseUrl,
      work: {
        kind: 'create:task',
        taskId: task.id,
        size: input.value.size,
        imageQuality: input.value.image_quality,
        chunkSize: input.value.chunk_size,
      },
    },
    requestPlan(r, rs, rs.settings.taskCreationMs),
  );
  rs.uploads.delete(task.id);
  return cvatJson(r.c, { rq_id: id }, 202);
}

/** The files a data request names, as the upload directory will hold them, with the sizes read. */
function filesOf(f: DataRequest, sizes: Map<string, ImageSize>): UploadedFile[] {
  const names = (v: unknown) => (Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string') : []);
  // concat, not spreads: a spread steps an iterator per file (multipart-bounds.test.ts counts them).
  return names(f.client_files)
    .map((name): UploadedFile => ({ name, ...sizes.get(name) }))
    .concat(names(f.server_files).map((name) => ({ name })))
    .concat(names(f.remote_files).map((url) => ({ name: remoteFileName(url) })));
}

/**
 * `Upload-Multiple`: multipart `client_files[i]` appended to the task's upload directory (200, empty).
 * Past the directory's bound nothing is added; a refused name keeps the files before it, as CVAT's
 * `append_files` writes them one by one.
 */
function appendFiles(r: ApiRequest, task: TaskRec): Response {
  const contentType = r.c.req.header('content-type') ?? '';
  // Each file as the directory keeps it (its name cut to 255 characters), and a refused name as sent.
  const files: { name: string; size: number; refused?: string; width?: number; height?: number }[] = [];
  if (/^multipart\/form-data/i.test(contentType)) {
    const read = readMultipart(bodyBytesOf(r), contentType, ({ filename, size, content }) => {
      if (filename === undefined) return;
      const name = uploadedFileName(filename);
      const image = content === undefined ? undefined : imageSize(content);
      files.push(name === '' || name === '..' ? { name, size, refused: filename } : { name, size, ...image });
    });
    // No boundary: DRF's parse error when CVAT reads `client_files` (a body of no form adds nothing).
    if (!read.ok) return unread(r, read);
  }
  const upload = uploadOf(requestsOf(r.state), task.id);
  if (overfull(upload, files.length)) return tooMany(r, UPLOAD_FULL);
  for (const { refused, ...file } of files) {
    if (refused !== undefined) {
      return new Response(`File name ${refused} is not allowed`, {
        status: 400,
        headers: { 'Content-Type': 'text/plain' },
      });
    }
    upload.files.push(file);
  }
  return emptyBody(r.c, 200);
}

/** `filename` from TUS `Upload-Metadata` (`filename <base64>,filetype <base64>`). */
function metadataFilename(header: string | undefined): string | undefined {
  for (const pair of (header ?? '').split(',')) {
    const [key, value] = pair.trim().split(' ');
    if (key === 'filename' && value !== undefined) return Buffer.from(value, 'base64').toString('utf8');
  }
  return undefined;
}

/** TUS create (`Upload-Length`): 201 with the `Location` of the new upload. */
function createTusUpload(r: ApiRequest, task: TaskRec): Response {
  const length = Number(r.c.req.header('upload-length'));
  if (!Number.isSafeInteger(length) || length < 0) return tus(r, 400, 'Invalid Upload-Length');
  if (length > TUS_MAX_FILE_SIZE) {
    return tus(r, 413, `File size exceeds max limit of ${TUS_MAX_FILE_SIZE} bytes`);
  }
  const filename = metadataFilename(r.c.req.header('upload-metadata'));
  if (filename === undefined) return tus(r, 400, "Metadata is expected to contain 'filename' key");
  if (filename.includes('..') || filename.startsWith('/')) {
    return new Response(`File name ${filename} is not allowed`, {
      status: 400,
      headers: { 'Content-Type': 'text/plain' },
    });
  }
  const upload = uploadOf(requestsOf(r.state), task.id);
  if (upload.files.some((f) => f.name === filename) || upload.tus.some((u) => u.filename === filename)) {
    return tus(r, 409, 'File with same name already exists');
  }
  if (overfull(upload, 1)) return tooMany(r, UPLOAD_FULL);
  const user = r.user();
  const fileId = `${user.id}_${r.world.ids.uuid()}`;
  upload.tus.push({ fileId, filename, length, offset: 0, ownerId: user.id });
  const url = new URL(r.c.req.url);
  const origin = r.c.req.header('origin') ?? url.origin;
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  return tus(r, 201, undefined, { Location: `${origin}${path}${fileId}`, 'Upload-Filename': filename });
}

/** `POST /api/tasks/{id}/data/`: dispatched on its headers as CVAT's UploadMixin does. */
export function handleCreateTaskData(r: ApiRequest<DataRequest>): Response {
  const task = taskOf(r);
  if (task instanceof Response) return task;
  if (task.size !== 0) return cvatJson(r.c, 'Adding more data is not supported', 400);
  startTaskData(r.mutation(), task);
  // Committed before the upload is read: its update:task goes before any the data's worker makes.
  if (r.changes.length > 0) r.deps.changes.dispatch(r.state, r.changes.splice(0));
  const has = (name: string) => r.c.req.header(name) !== undefined;
  if (has('upload-finish')) return finishUpload(r, task);
  if (has('upload-start')) {
    uploadOf(requestsOf(r.state), task.id);
    return emptyBody(r.c, 202);
  }
  if (has('upload-length')) return createTusUpload(r, task);
  if (has('upload-multiple')) return appendFiles(r, task);
  return finishUpload(r, task);
}

/** The TUS upload of the path: 404 unknown (or finished), 403 another user's. */
function tusUploadOf(r: ApiRequest, task: TaskRec) {
  const fileId = r.c.req.param('file_id') ?? '';
  const upload = requestsOf(r.state).uploads.get(task.id);
  const t = upload?.tus.find((u) => u.fileId === fileId);
  if (!upload || !t) return tus(r, 404);
  if (t.ownerId !== r.user().id) return tus(r, 403);
  return { upload, t };
}

/** `HEAD /api/tasks/{id}/data/{file_id}`: where a TUS upload stands (a GET is 405, as in CVAT). */
export function handleTusHead(r: ApiRequest): Response {
  if (r.c.req.method !== 'HEAD')
    return cvatJson(r.c, { detail: `Method "${r.c.req.method}" not allowed.` }, 405);
  const task = taskOf(r);
  if (task instanceof Response) return task;
  const found = tusUploadOf(r, task);
  if (found instanceof Response) return found;
  return tus(r, 200, undefined, {
    'Upload-Offset': String(found.t.offset),
    'Upload-Length': String(found.t.length),
  });
}

/** `PATCH /api/tasks/{id}/data/{file_id}`: one chunk at `Upload-Offset` (its size from Content-Length). */
export function handleTusPatch(r: ApiRequest): Response {
  const task = taskOf(r);
  if (task instanceof Response) return task;
  const found = tusUploadOf(r, task);
  if (found instanceof Response) return found;
  const { upload, t } = found;
  if (Number(r.c.req.header('upload-offset')) !== t.offset) return tus(r, 409);
  const lengthHeader = r.c.req.header('content-length');
  if (lengthHeader === undefined) return tus(r, 400, ['Content-Length header is missing']);
  const end = t.offset + Number(lengthHeader);
  if (end > t.length) return tus(r, 413);
  // The first chunk holds the image's header: its size is read now, as the bytes are not kept.
  const image = t.offset === 0 && r.sim.bodyBytes !== undefined ? imageSize(r.sim.bodyBytes) : undefined;
  if (image !== undefined) Object.assign(t, image);
  t.offset = end;
  if (end === t.length) {
    upload.tus = upload.tus.filter((u) => u !== t);
    // One set of the names, not a scan of the directory for each `_n` tried (a quadratic search).
    const taken = new Set(upload.files.map((f) => f.name));
    let name = t.filename;
    const dot = name.lastIndexOf('.');
    for (let n = 1; taken.has(name); n++) {
      name = dot > 0 ? `${t.filename.slice(0, dot)}_${n}${t.filename.slice(dot)}` : `${t.filename}_${n}`;
    }
    const image = t.width !== undefined && t.height !== undefined ? { width: t.width, height: t.height } : {};
    upload.files.push({ name, size: t.length, ...image });
  }
  return tus(r, 204, undefined, { 'Upload-Offset': String(end) });
}
