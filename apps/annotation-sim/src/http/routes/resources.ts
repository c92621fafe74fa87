import {
  canChange,
  canCreateInContext,
  canListInContext,
  canView,
  isAdmin,
  type Resource,
  resourceVisible,
} from '../../domain/access';
import { ApiFailure, denied } from '../../domain/errors';
import type { CommentRec, IssueRec, JobRec, ProjectRec, TaskRec } from '../../domain/model';
import {
  attachTaskData,
  createComment,
  createIssue,
  createProject,
  createTask,
  deleteComment,
  deleteIssue,
  deleteProject,
  deleteTask,
  updateComment,
  updateIssue,
  updateJob,
  updateProject,
  updateTask,
} from '../../domain/resources';
import { commentRead, issueRead, jobRead, projectRead, taskRead } from '../../domain/serializers';
import { type FieldSpec, validateFields } from '../../domain/validate';
import { type ApiRequest, api } from '../api';
import type { AppDeps, Kernel } from '../deps';
import { paginate, searchFilter, sortBy } from '../pagination';
import { cvatJson, noContent } from '../respond';

type AnyRec = ProjectRec | TaskRec | JobRec | IssueRec | CommentRec;

function validated(body: unknown, spec: Record<string, FieldSpec>, partial = false): Record<string, unknown> {
  const v = validateFields(body, spec, partial);
  if (!v.ok) throw new ApiFailure({ code: 'INVALID', errors: v.errors });
  return v.value;
}

/** A related object by primary key, or DRF's `Invalid pk "N" - object does not exist.`. */
function relatedPk<T>(map: Map<number, T>, field: string, id: unknown): T | undefined {
  if (id === undefined || id === null) return undefined;
  const rec = map.get(id as number);
  if (!rec)
    throw new ApiFailure({
      code: 'INVALID',
      errors: { [field]: [`Invalid pk "${String(id)}" - object does not exist.`] },
    });
  return rec;
}

function checkUser(r: ApiRequest, field: string, id: unknown): void {
  relatedPk(r.state.users, field, id);
}

const LABELS: FieldSpec = { kind: 'any' };
type LabelInput = { name: string; color?: string; type?: string };
function labelsOf(v: unknown): LabelInput[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v
    .filter(
      (l): l is Record<string, unknown> =>
        l !== null && typeof l === 'object' && typeof (l as Record<string, unknown>).name === 'string',
    )
    .map((l) => ({
      name: l.name as string,
      color: typeof l.color === 'string' ? l.color : undefined,
      type: typeof l.type === 'string' ? l.type : undefined,
    }));
}

export function registerResourceRoutes(kernel: Kernel, deps: AppDeps): void {
  const { app, operation } = kernel;
  const idRes = (kind: string) => (c: { req: { param(n: string): string | undefined } }) =>
    `${kind}/${c.req.param('id')}`;

  /** GET list with CVAT's org context, visibility filter, simple filters, search, sort and pages. */
  function listRoute<T extends AnyRec>(
    path: string,
    op: string,
    kind: Resource['kind'],
    all: (r: ApiRequest) => T[],
    serialize: (r: ApiRequest, rec: T) => unknown,
    filters: Record<string, (r: ApiRequest, rec: T) => unknown>,
    search: ((r: ApiRequest, rec: T) => unknown)[],
  ) {
    app.get(
      path,
      operation(op),
      api(deps, (r) => {
        const user = r.user();
        const ctx = r.orgContext();
        if (!canListInContext(r.state, user, ctx)) throw new ApiFailure(denied());
        let items = all(r).filter((rec) => resourceVisible(r.state, user, ctx, { kind, rec } as Resource));
        for (const [name, get] of Object.entries(filters)) {
          const v = r.query(name);
          if (v !== undefined && v !== '') items = items.filter((rec) => String(get(r, rec) ?? '') === v);
        }
        items = searchFilter(
          items,
          r.query('search'),
          search.map((f) => (rec: T) => f(r, rec)),
        );
        const sortFields: Record<string, (rec: T) => unknown> = { id: (rec) => rec.id };
        for (const [name, get] of Object.entries(filters)) sortFields[name] = (rec) => get(r, rec);
        items = sortBy(items, r.query('sort'), sortFields, '-id');
        return cvatJson(
          r.c,
          paginate(r, items, (rec) => serialize(r, rec)),
        );
      }),
    );
  }

  function load<T extends AnyRec>(
    r: ApiRequest,
    kind: Resource['kind'],
    map: Map<number, T>,
    model: string,
    write: boolean,
  ): T {
    const rec = r.get(map, r.intParam('id'), model);
    const res = { kind, rec } as Resource;
    const user = r.user();
    if (!(write ? canChange(r.state, user, res) : canView(r.state, user, res)))
      throw new ApiFailure(denied());
    return rec;
  }

  const uname = (r: ApiRequest, id: number | null) =>
    id === null ? null : (r.state.users.get(id)?.username ?? null);

  // ---- projects ----
  listRoute<ProjectRec>(
    '/api/projects',
    'projects.list',
    'project',
    (r) => [...r.state.projects.values()],
    (r, p) => projectRead(r.state, p),
    {
      name: (_, p) => p.name,
      owner: (r, p) => uname(r, p.owner_id),
      assignee: (r, p) => uname(r, p.assignee_id),
      status: (_, p) => p.status,
    },
    [(_, p) => p.name, (r, p) => uname(r, p.owner_id)],
  );

  const projectFields: Record<string, FieldSpec> = {
    name: { kind: 'string', required: true, maxLength: 256 },
    labels: LABELS,
    owner_id: { kind: 'integer', nullable: true },
    assignee_id: { kind: 'integer', nullable: true },
    bug_tracker: { kind: 'string', allowBlank: true, maxLength: 2000 },
  };

  app.post(
    '/api/projects',
    operation('projects.create'),
    api(deps, (r) => {
      const user = r.user();
      const ctx = r.orgContext();
      if (!canCreateInContext(r.state, user, ctx)) throw new ApiFailure(denied());
      const v = validated(r.body(), projectFields);
      checkUser(r, 'owner_id', v.owner_id);
      checkUser(r, 'assignee_id', v.assignee_id);
      const p = createProject(r.mutation(), {
        name: v.name as string,
        owner_id: (v.owner_id as number | undefined) ?? user.id,
        assignee_id: (v.assignee_id as number | null | undefined) ?? null,
        bug_tracker: (v.bug_tracker as string | undefined) ?? '',
        organization_id: ctx.org?.id ?? null,
        labels: labelsOf(v.labels),
      });
      return cvatJson(r.c, projectRead(r.state, p), 201);
    }),
  );
  app.get(
    '/api/projects/:id',
    operation('projects.retrieve', idRes('projects')),
    api(deps, (r) =>
      cvatJson(r.c, projectRead(r.state, load(r, 'project', r.state.projects, 'Project', false))),
    ),
  );
  app.patch(
    '/api/projects/:id',
    operation('projects.partial_update', idRes('projects')),
    api(deps, (r) => {
      const p = load(r, 'project', r.state.projects, 'Project', true);
      const v = validated(
        r.body(),
        { ...projectFields, organization_id: { kind: 'integer', nullable: true } },
        true,
      );
      checkUser(r, 'owner_id', v.owner_id);
      checkUser(r, 'assignee_id', v.assignee_id);
      if (v.organization_id !== undefined && v.organization_id !== null) {
        relatedPk(r.state.organizations, 'organization_id', v.organization_id);
        if (
          !isAdmin(r.user()) &&
          !canCreateInContext(r.state, r.user(), {
            specified: true,
            org: r.state.organizations.get(v.organization_id as number) ?? null,
          })
        ) {
          throw new ApiFailure(denied());
        }
      }
      const patch: Partial<ProjectRec> = {};
      for (const k of ['name', 'owner_id', 'assignee_id', 'bug_tracker', 'organization_id'] as const) {
        if (v[k] !== undefined) (patch as Record<string, unknown>)[k] = v[k];
      }
      updateProject(r.mutation(), p, patch);
      return cvatJson(r.c, projectRead(r.state, p));
    }),
  );
  app.delete(
    '/api/projects/:id',
    operation('projects.destroy', idRes('projects')),
    api(deps, (r) => {
      deleteProject(r.mutation(), load(r, 'project', r.state.projects, 'Project', true));
      return noContent(r.c);
    }),
  );

  // ---- tasks ----
  listRoute<TaskRec>(
    '/api/tasks',
    'tasks.list',
    'task',
    (r) => [...r.state.tasks.values()],
    (r, t) => taskRead(r.state, t),
    {
      name: (_, t) => t.name,
      owner: (r, t) => uname(r, t.owner_id),
      assignee: (r, t) => uname(r, t.assignee_id),
      project_id: (_, t) => t.project_id,
      status: (_, t) => t.status,
      mode: (_, t) => t.mode,
      subset: (_, t) => t.subset,
    },
    [(_, t) => t.name, (r, t) => uname(r, t.owner_id)],
  );

  const taskFields: Record<string, FieldSpec> = {
    name: { kind: 'string', required: true, maxLength: 256 },
    project_id: { kind: 'integer', nullable: true },
    owner_id: { kind: 'integer', nullable: true },
    assignee_id: { kind: 'integer', nullable: true },
    bug_tracker: { kind: 'string', allowBlank: true, maxLength: 2000 },
    overlap: { kind: 'integer', nullable: true, min: 0 },
    segment_size: { kind: 'integer', min: 0 },
    labels: LABELS,
    subset: { kind: 'string', allowBlank: true, maxLength: 64 },
  };

  app.post(
    '/api/tasks',
    operation('tasks.create'),
    api(deps, (r) => {
      const user = r.user();
      const ctx = r.orgContext();
      if (!canCreateInContext(r.state, user, ctx)) throw new ApiFailure(denied());
      const v = validated(r.body(), taskFields);
      const project = relatedPk(r.state.projects, 'project_id', v.project_id);
      if (project && !canView(r.state, user, { kind: 'project', rec: project }))
        throw new ApiFailure(denied());
      checkUser(r, 'owner_id', v.owner_id);
      checkUser(r, 'assignee_id', v.assignee_id);
      const t = createTask(r.mutation(), {
        name: v.name as string,
        project_id: project?.id ?? null,
        owner_id: (v.owner_id as number | undefined) ?? user.id,
        assignee_id: (v.assignee_id as number | null | undefined) ?? null,
        bug_tracker: (v.bug_tracker as string | undefined) ?? '',
        organization_id: project ? project.organization_id : (ctx.org?.id ?? null),
        overlap: (v.overlap as number | null | undefined) ?? null,
        segment_size: (v.segment_size as number | undefined) ?? 0,
        subset: (v.subset as string | undefined) ?? '',
        labels: labelsOf(v.labels),
      });
      return cvatJson(r.c, taskRead(r.state, t), 201);
    }),
  );
  app.get(
    '/api/tasks/:id',
    operation('tasks.retrieve', idRes('tasks')),
    api(deps, (r) => cvatJson(r.c, taskRead(r.state, load(r, 'task', r.state.tasks, 'Task', false)))),
  );
  app.patch(
    '/api/tasks/:id',
    operation('tasks.partial_update', idRes('tasks')),
    api(deps, (r) => {
      const t = load(r, 'task', r.state.tasks, 'Task', true);
      const { overlap: _o, segment_size: _s, ...patchable } = taskFields;
      const v = validated(
        r.body(),
        { ...patchable, organization_id: { kind: 'integer', nullable: true } },
        true,
      );
      checkUser(r, 'owner_id', v.owner_id);
      checkUser(r, 'assignee_id', v.assignee_id);
      const patch: Partial<TaskRec> = {};
      if (v.project_id !== undefined) {
        const project = relatedPk(r.state.projects, 'project_id', v.project_id);
        patch.project_id = project?.id ?? null;
        if (project) patch.organization_id = project.organization_id;
      }
      if (v.organization_id !== undefined) {
        if (v.organization_id !== null)
          relatedPk(r.state.organizations, 'organization_id', v.organization_id);
        patch.organization_id = v.organization_id as number | null;
      }
      for (const k of ['name', 'owner_id', 'assignee_id', 'bug_tracker', 'subset'] as const) {
        if (v[k] !== undefined) (patch as Record<string, unknown>)[k] = v[k];
      }
      updateTask(r.mutation(), t, patch);
      return cvatJson(r.c, taskRead(r.state, t));
    }),
  );
  app.delete(
    '/api/tasks/:id',
    operation('tasks.destroy', idRes('tasks')),
    api(deps, (r) => {
      deleteTask(r.mutation(), load(r, 'task', r.state.tasks, 'Task', true));
      return noContent(r.c);
    }),
  );
  app.post(
    '/api/tasks/:id/data/',
    operation('tasks.create_data', idRes('tasks')),
    api(deps, (r) => {
      const t = load(r, 'task', r.state.tasks, 'Task', true);
      const v = validated(r.body(), {
        image_quality: { kind: 'integer', required: true, min: 1, max: 100 },
        chunk_size: { kind: 'integer', nullable: true, min: 0 },
        client_files: { kind: 'any' },
        server_files: { kind: 'any' },
        remote_files: { kind: 'any' },
      });
      if (t.data_id !== null)
        throw new ApiFailure({ code: 'INVALID_LIST', messages: ['Adding more data is not supported'] });
      const count = (k: string) => (Array.isArray(v[k]) ? (v[k] as unknown[]).length : 0);
      const size = count('client_files') + count('server_files') + count('remote_files');
      if (size === 0) throw new ApiFailure({ code: 'INVALID_LIST', messages: ['No media data found'] });
      const user = r.user();
      // The jobs are created by the task-creation worker: its sender is the RQ meta user.
      attachTaskData(
        r.mutation({ kind: 'worker', id: user.id, username: user.username, email: user.email }),
        t,
        {
          size,
          image_quality: v.image_quality as number,
          chunk_size: (v.chunk_size as number | null | undefined) ?? undefined,
        },
      );
      return cvatJson(r.c, { rq_id: `action=create&target=task&target_id=${t.id}` }, 202);
    }),
  );

  // ---- jobs ----
  listRoute<JobRec>(
    '/api/jobs',
    'jobs.list',
    'job',
    (r) => [...r.state.jobs.values()],
    (r, j) => jobRead(r.state, j),
    {
      task_id: (_, j) => j.task_id,
      project_id: (r, j) => r.state.tasks.get(j.task_id)?.project_id ?? null,
      stage: (_, j) => j.stage,
      state: (_, j) => j.state,
      assignee: (r, j) => uname(r, j.assignee_id),
      type: (_, j) => j.type,
    },
    [(r, j) => r.state.tasks.get(j.task_id)?.name, (r, j) => uname(r, j.assignee_id)],
  );
  app.get(
    '/api/jobs/:id',
    operation('jobs.retrieve', idRes('jobs')),
    api(deps, (r) => cvatJson(r.c, jobRead(r.state, load(r, 'job', r.state.jobs, 'Job', false)))),
  );
  app.patch(
    '/api/jobs/:id',
    operation('jobs.partial_update', idRes('jobs')),
    api(deps, (r) => {
      const j = load(r, 'job', r.state.jobs, 'Job', true);
      const v = validated(
        r.body(),
        {
          assignee: { kind: 'integer', nullable: true },
          stage: { kind: 'choice', choices: ['annotation', 'validation', 'acceptance'] },
          state: { kind: 'choice', choices: ['new', 'in progress', 'completed', 'rejected'] },
        },
        true,
      );
      checkUser(r, 'assignee', v.assignee);
      const patch: Partial<JobRec> = {};
      if (v.assignee !== undefined) patch.assignee_id = v.assignee as number | null;
      if (v.stage !== undefined) patch.stage = v.stage as JobRec['stage'];
      if (v.state !== undefined) patch.state = v.state as JobRec['state'];
      updateJob(r.mutation(), j, patch);
      return cvatJson(r.c, jobRead(r.state, j));
    }),
  );
  app.delete(
    '/api/jobs/:id',
    operation('jobs.destroy', idRes('jobs')),
    api(deps, (r) => {
      load(r, 'job', r.state.jobs, 'Job', true);
      // Only ground-truth jobs can be deleted; the simulator creates annotation jobs only.
      throw new ApiFailure({ code: 'INVALID_LIST', messages: ['Only ground truth jobs can be removed'] });
    }),
  );

  // ---- issues ----
  listRoute<IssueRec>(
    '/api/issues',
    'issues.list',
    'issue',
    (r) => [...r.state.issues.values()],
    (r, i) => issueRead(r.state, i),
    {
      job_id: (_, i) => i.job_id,
      task_id: (r, i) => r.state.jobs.get(i.job_id)?.task_id ?? null,
      frame_id: (_, i) => i.frame,
      resolved: (_, i) => (i.resolved ? 'true' : 'false'),
      owner: (r, i) => uname(r, i.owner_id),
      assignee: (r, i) => uname(r, i.assignee_id),
    },
    [(r, i) => uname(r, i.owner_id), (r, i) => uname(r, i.assignee_id)],
  );
  app.post(
    '/api/issues',
    operation('issues.create'),
    api(deps, (r) => {
      const user = r.user();
      const v = validated(r.body(), {
        frame: { kind: 'integer', required: true, min: 0 },
        position: { kind: 'numberList', required: true },
        job: { kind: 'integer', required: true },
        assignee: { kind: 'integer', nullable: true },
        message: { kind: 'string', required: true },
        resolved: { kind: 'boolean' },
      });
      const job = relatedPk(r.state.jobs, 'job', v.job) as JobRec;
      checkUser(r, 'assignee', v.assignee);
      if (!canView(r.state, user, { kind: 'job', rec: job })) throw new ApiFailure(denied());
      const i = createIssue(r.mutation(), {
        frame: v.frame as number,
        position: v.position as number[],
        job_id: job.id,
        owner_id: user.id,
        assignee_id: (v.assignee as number | null | undefined) ?? null,
        resolved: (v.resolved as boolean | undefined) ?? false,
        message: v.message as string,
      });
      return cvatJson(r.c, issueRead(r.state, i), 201);
    }),
  );
  app.get(
    '/api/issues/:id',
    operation('issues.retrieve', idRes('issues')),
    api(deps, (r) => cvatJson(r.c, issueRead(r.state, load(r, 'issue', r.state.issues, 'Issue', false)))),
  );
  app.patch(
    '/api/issues/:id',
    operation('issues.partial_update', idRes('issues')),
    api(deps, (r) => {
      const i = load(r, 'issue', r.state.issues, 'Issue', true);
      const v = validated(
        r.body(),
        {
          position: { kind: 'numberList' },
          assignee: { kind: 'integer', nullable: true },
          resolved: { kind: 'boolean' },
        },
        true,
      );
      checkUser(r, 'assignee', v.assignee);
      const patch: Partial<IssueRec> = {};
      if (v.position !== undefined) patch.position = v.position as number[];
      if (v.assignee !== undefined) patch.assignee_id = v.assignee as number | null;
      if (v.resolved !== undefined) patch.resolved = v.resolved as boolean;
      updateIssue(r.mutation(), i, patch);
      return cvatJson(r.c, issueRead(r.state, i));
    }),
  );
  app.delete(
    '/api/issues/:id',
    operation('issues.destroy', idRes('issues')),
    api(deps, (r) => {
      deleteIssue(r.mutation(), load(r, 'issue', r.state.issues, 'Issue', true));
      return noContent(r.c);
    }),
  );

  // ---- comments ----
  listRoute<CommentRec>(
    '/api/comments',
    'comments.list',
    'comment',
    (r) => [...r.state.comments.values()],
    (r, c) => commentRead(r.state, c),
    {
      issue_id: (_, c) => c.issue_id,
      job_id: (r, c) => r.state.issues.get(c.issue_id)?.job_id ?? null,
      owner: (r, c) => uname(r, c.owner_id),
    },
    [(r, c) => uname(r, c.owner_id), (_, c) => c.message],
  );
  app.post(
    '/api/comments',
    operation('comments.create'),
    api(deps, (r) => {
      const user = r.user();
      const v = validated(r.body(), {
        issue: { kind: 'integer', required: true },
        message: { kind: 'string' },
      });
      const issue = relatedPk(r.state.issues, 'issue', v.issue) as IssueRec;
      if (!canView(r.state, user, { kind: 'issue', rec: issue })) throw new ApiFailure(denied());
      const c = createComment(r.mutation(), {
        issue_id: issue.id,
        owner_id: user.id,
        message: (v.message as string | undefined) ?? '',
      });
      return cvatJson(r.c, commentRead(r.state, c), 201);
    }),
  );
  app.get(
    '/api/comments/:id',
    operation('comments.retrieve', idRes('comments')),
    api(deps, (r) =>
      cvatJson(r.c, commentRead(r.state, load(r, 'comment', r.state.comments, 'Comment', false))),
    ),
  );
  app.patch(
    '/api/comments/:id',
    operation('comments.partial_update', idRes('comments')),
    api(deps, (r) => {
      const c = load(r, 'comment', r.state.comments, 'Comment', true);
      const v = validated(r.body(), { message: { kind: 'string' } }, true);
      if (v.message !== undefined) updateComment(r.mutation(), c, { message: v.message as string });
      return cvatJson(r.c, commentRead(r.state, c));
    }),
  );
  app.delete(
    '/api/comments/:id',
    operation('comments.destroy', idRes('comments')),
    api(deps, (r) => {
      deleteComment(r.mutation(), load(r, 'comment', r.state.comments, 'Comment', true));
      return noContent(r.c);
    }),
  );
}
