import type {
  CommentRec,
  DeliveryRec,
  InvitationRec,
  IssueRec,
  JobRec,
  MembershipRec,
  OrganizationRec,
  ProjectRec,
  TaskRec,
  UserRec,
  WebhookRec,
} from './model';
import {
  commentCountOfIssue,
  deliveriesOfWebhook,
  invitationsOfMembership,
  issueCountOfJob,
  jobsOfTask,
  tasksOfProject,
} from './relations';
import type { AnnotationData } from './state';

/**
 * Read representations, exactly the keys (and key order) of CVAT's read serializers. What a record counts
 * or lists of its children (a task's jobs, a job's issues) is read through the tables' parent indexes
 * (relations.ts): a page of tasks reads the jobs of those tasks, not every job of the world per task.
 */

export function basicUser(data: AnnotationData, id: number | null): Record<string, unknown> | null {
  if (id === null) return null;
  const u = data.users.get(id);
  if (!u) return null;
  return {
    url: `${data.baseUrl}/api/users/${u.id}`,
    id: u.id,
    username: u.username,
    first_name: u.first_name,
    last_name: u.last_name,
  };
}

export function userRead(data: AnnotationData, u: UserRec): Record<string, unknown> {
  return {
    ...basicUser(data, u.id),
    email: u.email,
    groups: [u.privilege],
    is_staff: u.is_staff,
    is_superuser: u.is_superuser,
    is_active: u.is_active,
    last_login: u.last_login,
    date_joined: u.date_joined,
    has_analytics_access: u.is_superuser,
  };
}

export function organizationRead(data: AnnotationData, o: OrganizationRec): Record<string, unknown> {
  return {
    id: o.id,
    slug: o.slug,
    name: o.name,
    description: o.description,
    created_date: o.created_date,
    updated_date: o.updated_date,
    contact: o.contact,
    owner: basicUser(data, o.owner_id),
  };
}

export function membershipRead(data: AnnotationData, m: MembershipRec): Record<string, unknown> {
  const invitation = invitationsOfMembership(data, m.id)[0];
  return {
    id: m.id,
    user: basicUser(data, m.user_id),
    organization: m.organization_id,
    is_active: m.is_active,
    joined_date: m.joined_date,
    role: m.role,
    invitation: invitation?.key ?? null,
  };
}

/** Invitations expire `ORG_INVITATION_EXPIRY_DAYS` (7) days after they were sent. */
const INVITATION_EXPIRY_MS = 7 * 24 * 3600 * 1000;

export function invitationRead(data: AnnotationData, i: InvitationRec, now: number): Record<string, unknown> {
  const m = data.memberships.get(i.membership_id);
  const org = m ? data.organizations.get(m.organization_id) : undefined;
  return {
    key: i.key,
    created_date: i.created_date,
    owner: basicUser(data, i.owner_id),
    role: m?.role ?? 'worker',
    user: basicUser(data, m?.user_id ?? null),
    organization: m?.organization_id ?? null,
    expired: i.sent_date === null ? null : Date.parse(i.sent_date) + INVITATION_EXPIRY_MS <= now,
    accepted: m?.is_active ?? false,
    organization_info: { id: org?.id ?? null, slug: org?.slug ?? '' },
  };
}

export function projectRead(data: AnnotationData, p: ProjectRec): Record<string, unknown> {
  const tasks = tasksOfProject(data, p.id);
  const dims = tasks.map((t) => t.dimension).filter((d) => d !== '');
  return {
    url: `${data.baseUrl}/api/projects/${p.id}`,
    id: p.id,
    name: p.name,
    owner: basicUser(data, p.owner_id),
    assignee: basicUser(data, p.assignee_id),
    guide_id: null,
    bug_tracker: p.bug_tracker,
    task_subsets: [...new Set(tasks.map((t) => t.subset).filter((s) => s !== ''))],
    created_date: p.created_date,
    updated_date: p.updated_date,
    status: p.status,
    dimension: dims[0] ?? null,
    organization: p.organization_id,
    organization_id: p.organization_id,
    target_storage: null,
    source_storage: null,
    tasks: { count: tasks.length, url: `${data.baseUrl}/api/tasks?project_id=${p.id}` },
    labels: { url: `${data.baseUrl}/api/labels?project_id=${p.id}` },
    assignee_updated_date: p.assignee_updated_date,
  };
}

/**
 * The 2022-era `segments` of a task (seed 2.4, CVAT's old `SegmentSerializer`): one entry per
 * distinct frame range of the task's jobs, in job order, each with its jobs as `SimpleJobSerializer`
 * rendered them. A task without data has no jobs, hence `[]` (the seed's create/delete examples).
 */
function taskSegments(data: AnnotationData, jobs: JobRec[]): Record<string, unknown>[] {
  const segments = new Map<
    string,
    { start_frame: number; stop_frame: number; jobs: Record<string, unknown>[] }
  >();
  for (const j of [...jobs].sort((a, b) => a.id - b.id)) {
    const key = `${j.start_frame}:${j.stop_frame}`;
    let seg = segments.get(key);
    if (!seg) {
      seg = { start_frame: j.start_frame, stop_frame: j.stop_frame, jobs: [] };
      segments.set(key, seg);
    }
    seg.jobs.push({
      url: `${data.baseUrl}/api/jobs/${j.id}`,
      id: j.id,
      assignee: basicUser(data, j.assignee_id),
      status: j.status,
      stage: j.stage,
      state: j.state,
    });
  }
  return [...segments.values()];
}

export function taskRead(data: AnnotationData, t: TaskRec): Record<string, unknown> {
  const project = t.project_id === null ? undefined : data.projects.get(t.project_id);
  const jobs = jobsOfTask(data, t.id);
  // Compatibility (seed 2.4): `segments` where the 2022 serializer had it, right after `status`.
  const segments = data.compat?.taskSegments ? { segments: taskSegments(data, jobs) } : {};
  return {
    url: `${data.baseUrl}/api/tasks/${t.id}`,
    id: t.id,
    name: t.name,
    project_id: t.project_id,
    project_name: project?.name ?? null,
    owner: basicUser(data, t.owner_id),
    assignee: basicUser(data, t.assignee_id),
    bug_tracker: t.bug_tracker,
    created_date: t.created_date,
    updated_date: t.updated_date,
    overlap: t.overlap,
    segment_size: t.segment_size,
    status: t.status,
    ...segments,
    data_chunk_size: t.data_chunk_size,
    data_original_chunk_type: 'imageset',
    data_compressed_chunk_type: 'imageset',
    data_cloud_storage_id: null,
    guide_id: null,
    size: t.size,
    image_quality: t.image_quality,
    data: t.data_id,
    dimension: t.dimension,
    mode: t.mode,
    // Set with the mode by the data's request (CVAT's `Task.media_type`, "" until then).
    media_type: t.mode === '' ? '' : 'image',
    subset: t.subset,
    organization_id: t.organization_id,
    organization: t.organization_id,
    target_storage: null,
    source_storage: null,
    jobs: {
      count: jobs.length,
      completed: jobs.filter((j) => j.stage === 'acceptance' && j.state === 'completed').length,
      validation: jobs.filter((j) => j.stage === 'validation').length,
      url: `${data.baseUrl}/api/jobs?task_id=${t.id}`,
    },
    labels: { url: `${data.baseUrl}/api/labels?task_id=${t.id}` },
    assignee_updated_date: t.assignee_updated_date,
    validation_mode: null,
    consensus_enabled: false,
  };
}

export function jobRead(data: AnnotationData, j: JobRec): Record<string, unknown> {
  const task = data.tasks.get(j.task_id);
  const project = task?.project_id == null ? undefined : data.projects.get(task.project_id);
  const issues = issueCountOfJob(data, j.id);
  return {
    url: `${data.baseUrl}/api/jobs/${j.id}`,
    id: j.id,
    task_id: j.task_id,
    task_name: task?.name ?? null,
    project_id: task?.project_id ?? null,
    project_name: project?.name ?? null,
    assignee: basicUser(data, j.assignee_id),
    guide_id: null,
    dimension: task?.dimension ?? '2d',
    mode: task?.mode ?? 'annotation',
    media_type: 'image',
    bug_tracker: task?.bug_tracker || null,
    status: j.status,
    stage: j.stage,
    state: j.state,
    frame_count: j.stop_frame - j.start_frame + 1,
    start_frame: j.start_frame,
    stop_frame: j.stop_frame,
    data_chunk_size: task?.data_chunk_size ?? null,
    data_compressed_chunk_type: 'imageset',
    data_original_chunk_type: 'imageset',
    created_date: j.created_date,
    updated_date: j.updated_date,
    issues: { url: `${data.baseUrl}/api/issues?job_id=${j.id}`, count: issues },
    labels: { url: `${data.baseUrl}/api/labels?job_id=${j.id}` },
    type: j.type,
    organization: task?.organization_id ?? null,
    target_storage: null,
    source_storage: null,
    assignee_updated_date: j.assignee_updated_date,
    parent_job_id: null,
    consensus_replicas: 0,
    replicas_count: 0,
  };
}

export function issueRead(data: AnnotationData, i: IssueRec): Record<string, unknown> {
  const comments = commentCountOfIssue(data, i.id);
  return {
    id: i.id,
    frame: i.frame,
    position: [...i.position],
    job: i.job_id,
    owner: basicUser(data, i.owner_id),
    assignee: basicUser(data, i.assignee_id),
    created_date: i.created_date,
    updated_date: i.updated_date,
    resolved: i.resolved,
    comments: { count: comments, url: `${data.baseUrl}/api/comments?issue_id=${i.id}` },
  };
}

export function commentRead(data: AnnotationData, c: CommentRec): Record<string, unknown> {
  return {
    id: c.id,
    issue: c.issue_id,
    owner: basicUser(data, c.owner_id),
    message: c.message,
    created_date: c.created_date,
    updated_date: c.updated_date,
  };
}

/** The delivery with the highest id, which `last_status`/`last_delivery_date` come from. */
function lastDelivery(data: AnnotationData, webhookId: number): DeliveryRec | undefined {
  let last: DeliveryRec | undefined;
  for (const d of deliveriesOfWebhook(data, webhookId)) if (!last || d.id > last.id) last = d;
  return last;
}

/** `WebhookRead`: never the secret; `last_status`/`last_delivery_date` omitted until a delivery exists. */
export function webhookRead(data: AnnotationData, w: WebhookRec): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: w.id,
    url: `${data.baseUrl}/api/webhooks/${w.id}`,
    target_url: w.target_url,
    description: w.description,
    type: w.type,
    content_type: w.content_type,
    is_active: w.is_active,
    enable_ssl: w.enable_ssl,
    created_date: w.created_date,
    updated_date: w.updated_date,
    owner: basicUser(data, w.owner_id),
    project_id: w.project_id,
    organization: w.organization_id,
    events: [...w.events],
  };
  const last = lastDelivery(data, w.id);
  if (last) {
    out.last_status = last.status_code;
    out.last_delivery_date = last.updated_date;
  }
  return out;
}

export function deliveryRead(d: DeliveryRec): Record<string, unknown> {
  return {
    id: d.id,
    webhook_id: d.webhook_id,
    event: d.event,
    status_code: d.status_code,
    redelivery: d.redelivery,
    attempt: d.attempt,
    request_duration: d.request_duration,
    created_date: d.created_date,
    updated_date: d.updated_date,
    changed_fields: d.changed_fields,
    request: d.request,
    response: d.response,
  };
}
