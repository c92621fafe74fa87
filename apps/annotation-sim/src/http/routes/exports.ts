/**
 * Dataset, annotations and backup exports as background requests (CVAT's `DatasetExporter` and
 * `BackupExporter`): `POST /api/{projects,tasks,jobs}/{id}/dataset/export` and
 * `POST /api/{projects,tasks}/{id}/backup/export` answer 202 `{"rq_id"}`; the worker builds the archive
 * and `GET …/dataset/download?rq_id=` or `…/backup/download?rq_id=` hands it to the request's owner.
 */
import type { Context } from 'hono';
import { isAdmin } from '../../domain/access';
import { backupFileName, datasetFileName, isExportFormat } from '../../domain/exports/dataset';
import type { ExportTarget } from '../../domain/exports/source';
import type { ProjectRec, TaskRec } from '../../domain/model';
import { type ExportedResource as Exported, mayExport } from '../../domain/requests/export-rules';
import { enqueueRequest, findRequest, statusOf } from '../../domain/requests/lifecycle';
import { type ExportWork, formatRequestId, pythonQuote, requestStatus } from '../../domain/requests/model';
import { parseRequestId } from '../../domain/requests/request-id';
import { requestsOf } from '../../domain/requests/state';
import type { ApiRequest } from '../api';
import { queryValue } from '../query-values';
import { requestPlan } from '../request-plan';
import { cvatJson, djangoHtml, PERMISSION_DENIED } from '../respond';
import { byId, type RouteRow, refused } from '../route-table';

/**
 * The resource of the path (404 when it is not there), and for an export (`forExport`) only if the
 * caller may export it (CVAT's `export:*` scopes, stricter than viewing: 403). A download asks no more
 * of the resource: its permission is the request's owner (`download:exported_file`).
 */
function exportedOf(r: ApiRequest, target: ExportTarget, forExport: boolean): Exported | Response {
  const s = r.state;
  const found =
    target === 'project'
      ? r.record(s.projects, 'Project')
      : target === 'task'
        ? r.record(s.tasks, 'Task')
        : r.record(s.jobs, 'Job');
  if (!found.ok) return refused(r, found);
  const e = { target, rec: found.value } as Exported;
  if (!forExport) return e;
  const allowed = mayExport(s, r.user(), e);
  return allowed.ok ? e : refused(r, allowed);
}

/** The task a resource belongs to (itself for a task; none for a project). */
function taskOf(r: ApiRequest, e: Exported): TaskRec | undefined {
  if (e.target === 'task') return e.rec;
  return e.target === 'job' ? r.state.tasks.get(e.rec.task_id) : undefined;
}

/** `location` and `cloud_storage_id` as CVAT's exporters check them: a cloud export, or the 400. */
function cloudOf(r: ApiRequest): boolean | Response {
  const location = r.query('location') ?? 'local';
  if (location !== 'local' && location !== 'cloud_storage') {
    return cvatJson(r.c, [`Unexpected location ${location} specified for the request`], 400);
  }
  if (location === 'cloud_storage' && !r.query('cloud_storage_id')) {
    return cvatJson(
      r.c,
      ['Cloud storage location was selected as the destination, but cloud storage id was not specified'],
      400,
    );
  }
  return location === 'cloud_storage';
}

/** Enqueues the export (409 `{"rq_id"}` while the same one is queued or started). */
function enqueueExport(r: ApiRequest, e: Exported, work: Omit<ExportWork, 'target' | 'targetId'>): Response {
  const user = r.user();
  const subresource = work.kind.slice('export:'.length);
  const id = formatRequestId({
    action: 'export',
    target: e.target,
    target_id: e.rec.id,
    user_id: user.id,
    format: work.format ?? undefined,
    subresource,
  });
  const rs = requestsOf(r.state);
  const status = statusOf(rs, id, r.now);
  if (status === 'queued' || status === 'started') return cvatJson(r.c, { rq_id: id }, 409);
  const task = taskOf(r, e);
  const projectId = e.target === 'project' ? e.rec.id : (task?.project_id ?? null);
  const orgId = e.target === 'project' ? e.rec.organization_id : (task?.organization_id ?? null);
  enqueueRequest(
    rs,
    r.world,
    {
      id,
      operation: {
        type: work.kind,
        target: e.target,
        project_id: projectId,
        task_id: task?.id ?? null,
        job_id: e.target === 'job' ? e.rec.id : null,
        org_id: orgId,
        format: work.format,
        lightweight: null,
      },
      owner: { id: user.id, username: user.username, email: user.email },
      httpRequestId: r.sim.requestId,
      baseUrl: r.state.baseUrl,
      work: { ...work, target: e.target, targetId: e.rec.id },
    },
    requestPlan(r, rs, rs.settings.exportMs),
  );
  return cvatJson(r.c, { rq_id: id }, 202);
}

/** attrs' `to_bool` of a query flag (`save_images`): `true`, `t`, `yes`, `y`, `on`, `1`, any case. */
const flag = (v: string | undefined) => /^(true|t|yes|y|on|1)$/i.test(v ?? '');

/** `POST /api/<target>s/{id}/dataset/export?format=…&save_images=…`. */
const exportDataset = (target: ExportTarget) => (r: ApiRequest) => {
  const e = exportedOf(r, target, true);
  if (e instanceof Response) return e;
  // `init_request_args` (location) before `validate_request` (format).
  const cloud = cloudOf(r);
  if (cloud instanceof Response) return cloud;
  const format = r.query('format');
  if (!isExportFormat(format)) return cvatJson(r.c, ['Unknown format specified for the request'], 400);
  const saveImages = flag(r.query('save_images'));
  const filename =
    r.query('filename') || datasetFileName(target, e.rec.id, e.rec.updated_date, format, saveImages);
  return enqueueExport(r, e, {
    kind: saveImages ? 'export:dataset' : 'export:annotations',
    format,
    filename,
    cloud,
  });
};

/** `POST /api/<target>s/{id}/backup/export`. */
const exportBackup = (target: 'project' | 'task') => (r: ApiRequest) => {
  const e = exportedOf(r, target, true);
  if (e instanceof Response) return e;
  const cloud = cloudOf(r);
  if (cloud instanceof Response) return cloud;
  if (e.target === 'task' && e.rec.data_id === null) {
    return cvatJson(r.c, ['Backup of a task without data is not allowed'], 400);
  }
  const name = (e.rec as ProjectRec | TaskRec).name;
  const filename = r.query('filename') || backupFileName(target, name, e.rec.updated_date);
  return enqueueExport(r, e, { kind: 'export:backup', format: null, filename, cloud });
};

/**
 * django-sendfile2's attachment header of CVAT's `make_attachment_file_name` (backslashes and quotes
 * escaped, white space runs one space, control characters dropped): an ASCII `filename`, and
 * `filename*` in RFC 5987 form when the name is not ASCII.
 */
function attachment(filename: string): string {
  const name = filename
    .replace(/\s+/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .replace(/[\\"]/g, '\\$&');
  const ascii = name.normalize('NFKD').replace(/[^ -~]/g, '');
  if (ascii === name) return `attachment; filename="${name}"`;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${pythonQuote(name)}`;
}

/** The export subresources each download serves. */
const SERVES = { dataset: ['dataset', 'annotations'], backup: ['backup'] } as const;

/**
 * `GET /api/<target>s/{id}/<dataset|backup>/download?rq_id=`. The permission reads the id first as
 * `ExportRequestId.parse` does, legacy forms included (missing: 400; not an export id: 400 "Unexpected
 * request id format"; another user's: 403 unless admin), then CVAT's `Downloader` (an id of another
 * resource or subresource, unknown, unfinished, exported to cloud), then the archive as an attachment.
 * The job is fetched by the id as given: a legacy or reordered spelling passes the checks but names no
 * job RQ keeps ("Unknown export request id"), as in CVAT.
 */
const download = (target: ExportTarget, kind: keyof typeof SERVES) => (r: ApiRequest) => {
  const e = exportedOf(r, target, false);
  if (e instanceof Response) return e;
  const rqId = r.query('rq_id');
  if (!rqId) return cvatJson(r.c, ['Missing request id in the query parameters'], 400);
  const p = parseRequestId(rqId, { legacy: true, only: 'export' });
  if (!p) return cvatJson(r.c, ['Unexpected request id format'], 400);
  const user = r.user();
  if (!isAdmin(user) && p.user_id !== user.id) {
    return cvatJson(r.c, { detail: PERMISSION_DENIED }, 403);
  }
  const matches =
    p.target === target &&
    p.target_id === e.rec.id &&
    (SERVES[kind] as readonly (string | null)[]).includes(p.subresource);
  if (!matches) return cvatJson(r.c, ['Invalid export request id'], 400);
  const request = findRequest(requestsOf(r.state), rqId, r.now);
  if (!request) return djangoHtml(r.c, 400, 'Unknown export request id');
  const outcome = request.outcome;
  if (requestStatus(request, r.now) !== 'finished' || outcome?.status !== 'finished') {
    return djangoHtml(r.c, 400, 'The export process is not finished');
  }
  if (!outcome.file) {
    return djangoHtml(r.c, 400, 'The export process has no result file to be downloaded locally');
  }
  return new Response(Buffer.from(outcome.file.base64, 'base64'), {
    status: 200,
    headers: {
      'Content-Type': 'application/zip',
      'Content-Disposition': attachment(outcome.file.name),
      'X-Request-Id': r.sim.requestId,
    },
  });
};

// Fault rules can target one export by its resource (`tasks/5`), or one download by `rq_id`.
const rqIdQuery = (c: Context) => queryValue(new URL(c.req.url).searchParams, 'rq_id') ?? '';

/** The export and download routes of projects, tasks and jobs. */
export const exportRoutes: readonly RouteRow[] = [
  ...(['project', 'task', 'job'] as const).flatMap((target): RouteRow[] => [
    {
      method: 'post',
      path: `/api/${target}s/:id/dataset/export`,
      operation: `${target}s.create_dataset_export`,
      resource: byId(`${target}s`),
      handle: exportDataset(target),
    },
    {
      method: 'get',
      path: `/api/${target}s/:id/dataset/download`,
      operation: `${target}s.download_dataset`,
      resource: rqIdQuery,
      handle: download(target, 'dataset'),
    },
  ]),
  ...(['project', 'task'] as const).flatMap((target): RouteRow[] => [
    {
      method: 'post',
      path: `/api/${target}s/:id/backup/export`,
      operation: `${target}s.create_backup_export`,
      resource: byId(`${target}s`),
      handle: exportBackup(target),
    },
    {
      method: 'get',
      path: `/api/${target}s/:id/backup/download`,
      operation: `${target}s.download_backup`,
      resource: rqIdQuery,
      handle: download(target, 'backup'),
    },
  ]),
];
