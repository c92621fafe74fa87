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
import type { ApiRequest } from '../api';
import { requestPlan } from '../request-plan';
import { cvatJson } from '../respond';
import { type RouteRow, refused } from '../route-table';
import {
  checkUploaded,
  cloudSourceRefused,
  dispatchUpload,
  goneProcessStatus,
  handleTusHead,
  handleTusPatch,
  importSource,
  multipartFile,
  takeUploaded,
} from './import-upload';

type Target = 'project' | 'task';

/** The multipart field each view's serializer reads (`TaskFileSerializer`, `ProjectFileSerializer`). */
const FILE_FIELD: Record<Target, string> = { task: 'task_file', project: 'project_file' };

/** The backup directory (`backup.get_backup_dirname()`), one for tasks and projects. */
const BACKUP_DIR = 'backup';

/** `BackupImporter.enqueue_job`: the source checked (`init_request_args`, `validate_request`), the file, the job. */
function finishUpload(r: ApiRequest, target: Target, orgId: number | null): Response {
  const source = importSource(r);
  if (source instanceof Response) return source;
  // The simulator has no cloud storages: FIDELITY.md lists this refusal.
  if (source.cloud) return cloudSourceRefused(r, 'Backups', 'backup import');
  let archive: Buffer;
  if (source.filename) {
    const uploaded = checkUploaded(r, BACKUP_DIR, source.filename);
    if (uploaded instanceof Response) return uploaded;
    archive = takeUploaded(r, BACKUP_DIR, source.filename);
  } else {
    const file = multipartFile(r, FILE_FIELD[target]);
    if (file instanceof Response) return file;
    archive = file.bytes;
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
  if (r.query('rq_id') !== undefined) return goneProcessStatus(r, 'import');
  return dispatchUpload(r, BACKUP_DIR, () => finishUpload(r, target, context.value.org?.id ?? null));
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
      handle: (r) => handleTusHead(r, BACKUP_DIR),
    },
    {
      method: 'patch',
      path: `/api/${target}s/backup/${FILE_ID}`,
      operation: `${target}s.append_backup_chunk`,
      handle: (r) => handleTusPatch(r, BACKUP_DIR),
    },
  ],
);
