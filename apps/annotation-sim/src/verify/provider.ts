/**
 * annotation-sim as a Pact provider, twice: `annotation-sim` (the CVAT REST API, over HTTP) and
 * `annotation-sim-webhooks` (webhook deliveries as messages). Each session is a fresh in-process
 * simulator on the manual clock whose webhook sender is injected (no network: the receiver states
 * decide the answers). Handlers set the world up through `/_sim/seed`, `/_sim/events/exports` and the
 * API itself; ids the pact names exactly are reached by starting the table's id sequence just below
 * them. Messages are built by the pure payload factory the delivery engine uses (`createEventPayload`,
 * `createPingPayload`, `pythonJsonDumps`, `signWebhookBody`) from the change the action emitted, and
 * checked against what the engine actually delivered. Development-time only: `src/main.ts` never
 * imports this file, so pact stays out of the Docker image.
 */
import { STATUS_CODES } from 'node:http';
import { annotationStates, webhookMessageStates } from '@sims/contracts';
import {
  int,
  type ProducedMessage,
  type ProviderDefinition,
  type ProviderSession,
  paramsOf,
  type StateHandler,
  str,
  strings,
} from '@sims/pact-verify';
import { CVAT_JSON } from '../http/respond';
import {
  type AnnotationSim,
  createAnnotationSim,
  createEventPayload,
  createPingPayload,
  type OutboundRequest,
  type OutboundResult,
  pythonJsonDumps,
  type ResourceChange,
  signWebhookBody,
  startAnnotationSim,
} from '../index';

/** Secret of webhooks whose state names none (the admin pact never reads it). */
const DEFAULT_SECRET = 'pact-provider-webhook-secret';

interface Session {
  sim: AnnotationSim;
  baseUrl?: string;
  close(): Promise<void>;
}

/** What the receiver at each URL answers (the `the receiver at … answers …` state). */
type Answers = Map<string, number>;

function injectedSender(answers: Answers, sent: OutboundRequest[]) {
  return async (req: OutboundRequest): Promise<OutboundResult> => {
    sent.push(req);
    const status = answers.get(req.url);
    if (status === undefined) {
      // No state says who listens there, and verification never leaves the process.
      const host = new URL(req.url).hostname;
      return {
        kind: 'connection-error',
        message: `HTTPSConnectionPool(host='${host}', port=443): Max retries exceeded (no receiver in this verification)`,
      };
    }
    return { kind: 'response', status, body: STATUS_CODES[status] ?? '' };
  };
}

/** One session's state handlers and message capture (everything per session, nothing shared). */
function annotationHandlers(session: Session, answers: Answers, sent: OutboundRequest[]) {
  const { sim } = session;
  const world = () => sim.world();
  let produced: ProducedMessage | undefined;
  /** The user of the `user … authenticates with token …` state (the legacy export states need it). */
  let currentUser: { id: number; username: string } | undefined;

  async function call(method: string, path: string, body?: unknown, token?: string, org?: string) {
    const res = await sim.app.request(path, {
      method,
      headers: {
        Accept: CVAT_JSON,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(token ? { Authorization: `Token ${token}` } : {}),
        ...(org ? { 'X-Organization': org } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
  }
  async function seed(input: Record<string, unknown>) {
    return call('POST', '/_sim/seed', input);
  }
  /** Makes the next id of `table` be `id` (fails when that id is taken). */
  function nextIdWillBe(table: string, id: number) {
    const s = world().state;
    const map = (s as unknown as Record<string, unknown>)[table];
    if (map instanceof Map && map.has(id)) throw new Error(`${table} ${id} exists already`);
    const current = s.seq[table] ?? 0;
    if (current >= id && map instanceof Map && [...map.keys()].some((k) => typeof k === 'number' && k > id)) {
      throw new Error(`${table} has ids above ${id}; cannot create ${table} ${id}`);
    }
    s.seq[table] = id - 1;
  }
  const userByName = (username: string) =>
    [...world().state.users.values()].find((u) => u.username === username);
  const projectById = (id: number) => world().state.projects.get(id);
  /** A token of the user: theirs if the states gave one, else a new one (the world's token table). */
  function tokenOf(userId: number): string {
    for (const [key, owner] of world().state.tokens) if (owner === userId) return key;
    const key = `pact${String(userId).padStart(36, '0')}`;
    world().state.tokens.set(key, userId);
    return key;
  }
  async function ensureUser(username: string, id?: number) {
    const existing = userByName(username);
    if (existing) {
      if (id !== undefined && existing.id !== id)
        throw new Error(`user ${username} has id ${existing.id}, not ${id}`);
      return existing;
    }
    if (id !== undefined) nextIdWillBe('users', id);
    await seed({ users: [{ username }] });
    const created = userByName(username);
    if (!created) throw new Error(`seeding did not create user ${username}`);
    return created;
  }
  async function ensureProject(projectId: number, owner: string, name = `Project ${projectId}`) {
    const existing = projectById(projectId);
    if (existing) return existing;
    await ensureUser(owner);
    nextIdWillBe('projects', projectId);
    await seed({ projects: [{ name, owner }] });
    const created = projectById(projectId);
    if (!created || created.name !== name) throw new Error(`seeding did not create project ${projectId}`);
    return created;
  }
  async function seedWebhook(webhookId: number, hook: Record<string, unknown>) {
    nextIdWillBe('webhooks', webhookId);
    await seed({ webhooks: [hook] });
    const created = world().state.webhooks.get(webhookId);
    if (!created) throw new Error(`seeding did not create webhook ${webhookId}`);
    return created;
  }
  /** Waits until the delivery engine has sent (or given up on) everything queued. */
  async function settle() {
    await call('POST', '/_sim/deliveries/idle');
  }
  /** Runs an action and returns the one change of `scope` it emitted. */
  async function capture(scope: string, action: () => Promise<unknown>): Promise<ResourceChange> {
    const seen: ResourceChange[] = [];
    const off = world().state.subscribe((change) => {
      if (change.scope === scope) seen.push(change);
    });
    try {
      await action();
    } finally {
      off();
    }
    if (seen.length !== 1) throw new Error(`expected one ${scope} change, got ${seen.length}`);
    return seen[0] as ResourceChange;
  }

  // ---- actions through the API, shared by deliveries (HTTP pact) and messages

  async function seedTask(
    owner: string,
    projectId: number,
    taskId: number,
    name: string,
    withJobId?: number,
  ) {
    const project = projectById(projectId);
    if (!project) throw new Error(`no project ${projectId}`);
    nextIdWillBe('tasks', taskId);
    if (withJobId !== undefined) nextIdWillBe('jobs', withJobId);
    await seed({
      tasks: [
        {
          name,
          owner,
          project: project.name,
          ...(withJobId !== undefined ? { size: 10, segment_size: 10 } : {}),
        },
      ],
    });
    if (!world().state.tasks.get(taskId)) throw new Error(`seeding did not create task ${taskId}`);
    if (withJobId !== undefined && world().state.jobs.get(withJobId)?.task_id !== taskId)
      throw new Error(`seeding did not create job ${withJobId} of task ${taskId}`);
  }
  const actions = {
    async createTask(token: string, projectId: number, taskId: number, name: string) {
      nextIdWillBe('tasks', taskId);
      return capture('create:task', () => call('POST', '/api/tasks', { name, project_id: projectId }, token));
    },
    async renameTask(token: string, taskId: number, name: string) {
      return capture('update:task', () => call('PATCH', `/api/tasks/${taskId}`, { name }, token));
    },
    async deleteTask(token: string, taskId: number) {
      return capture('delete:task', () => call('DELETE', `/api/tasks/${taskId}`, undefined, token));
    },
    async moveJob(token: string, jobId: number, state: string) {
      return capture('update:job', () => call('PATCH', `/api/jobs/${jobId}`, { state }, token));
    },
  };

  /** Makes `event` happen for a project webhook (a past delivery of the admin pact). */
  async function causeEvent(event: string, projectId: number, owner: string) {
    const user = userByName(owner);
    if (!user) throw new Error(`no user ${owner}`);
    const token = tokenOf(user.id);
    const taskId = (world().state.seq.tasks ?? 0) + 1;
    switch (event) {
      case 'create:task':
        await actions.createTask(token, projectId, taskId, 'Delivered task');
        return;
      case 'update:task':
        await seedTask(owner, projectId, taskId, 'Delivered task');
        await actions.renameTask(token, taskId, 'Delivered task (renamed)');
        return;
      case 'delete:task':
        await seedTask(owner, projectId, taskId, 'Delivered task');
        await actions.deleteTask(token, taskId);
        return;
      case 'update:job': {
        const jobId = (world().state.seq.jobs ?? 0) + 1;
        await seedTask(owner, projectId, taskId, 'Delivered task', jobId);
        await actions.moveJob(token, jobId, 'in progress');
        return;
      }
      default:
        throw new Error(
          `these handlers cannot cause a ${event} delivery (they know create/update/delete:task, update:job)`,
        );
    }
  }

  // ---- messages: the pure factory, checked against the engine's delivery

  /** The BasicUser `sender` of a change made through the API (CVAT's BasicUserSerializer). */
  function senderOf(userId: number) {
    const u = world().state.users.get(userId);
    if (!u) throw new Error(`no user ${userId}`);
    return {
      url: `${world().state.baseUrl}/api/users/${u.id}`,
      id: u.id,
      username: u.username,
      first_name: u.first_name,
      last_name: u.last_name,
    };
  }
  async function produce(webhookId: number, payload: Record<string, unknown>) {
    const hook = world().state.webhooks.get(webhookId);
    if (!hook) throw new Error(`no webhook ${webhookId}`);
    const body = pythonJsonDumps(payload);
    const signature = signWebhookBody(hook.secret, body);
    // The engine delivered the same change: its bytes must be the factory's (else the message would
    // describe a payload no receiver ever gets).
    await settle();
    const delivered = sent.filter((r) => r.url === hook.target_url).at(-1);
    if (!delivered) throw new Error(`the engine delivered nothing to webhook ${webhookId}`);
    const deliveredBody = delivered.body.toString('utf8');
    if (deliveredBody !== body) {
      throw new Error(
        `the factory's payload differs from the delivered one:\n factory:   ${body}\n delivered: ${deliveredBody}`,
      );
    }
    const deliveredSignature = delivered.headers.find(([k]) => k === 'X-Signature-256')?.[1];
    if (deliveredSignature !== signature)
      throw new Error(`delivered signature ${deliveredSignature} is not ${signature}`);
    produced = { body, metadata: { 'Content-Type': 'application/json', 'X-Signature-256': signature } };
  }
  /** Webhooks of the message states, created once the acting user (the project's owner) is known. */
  const plannedProjectHooks: { webhookId: number; projectId: number; events: string[]; secret: string }[] =
    [];
  async function actingUser(username: string, projectId?: number) {
    const user = await ensureUser(username);
    if (projectId !== undefined) {
      await ensureProject(projectId, username);
      for (const h of plannedProjectHooks.splice(0)) {
        const project = await ensureProject(h.projectId, username);
        const target = `https://receiver.example.com/webhooks/${h.webhookId}`;
        answers.set(target, 200);
        await seedWebhook(h.webhookId, {
          target_url: target,
          type: 'project',
          events: h.events,
          owner: username,
          project: project.name,
          secret: h.secret,
        });
      }
    }
    return { user, token: tokenOf(user.id) };
  }
  const projectHookOf = (projectId: number) =>
    [...world().state.webhooks.values()].find((w) => w.type === 'project' && w.project_id === projectId);

  const a = annotationStates;
  const m = webhookMessageStates;
  const states: Record<string, StateHandler> = {
    // ---------------------------------------------------------------- the REST API (annotation-sim)
    async [a.user.template](params) {
      const p = paramsOf(params, a.user.template, 'username', 'userId', 'token');
      const username = str(p.username, 'username');
      const token = str(p.token, 'token');
      const id = int(p.userId, 'userId');
      if (userByName(username)) throw new Error(`user ${username} exists already`);
      nextIdWillBe('users', id);
      await seed({ users: [{ username, privilege: 'user', token }] });
      const u = userByName(username);
      if (u?.id !== id) throw new Error(`seeding gave user ${username} id ${u?.id}, not ${id}`);
      currentUser = { id, username };
      return undefined;
    },
    async [a.project.template](params) {
      const p = paramsOf(params, a.project.template, 'projectId', 'projectName', 'username');
      const owner = str(p.username, 'username');
      if (!userByName(owner)) throw new Error(`no user ${owner}: a user state must come first`);
      await ensureProject(int(p.projectId, 'projectId'), owner, str(p.projectName, 'projectName'));
      return undefined;
    },
    async [a.projectWebhook.template](params) {
      const p = paramsOf(params, a.projectWebhook.template, 'webhookId', 'projectId', 'events', 'targetUrl');
      const project = projectById(int(p.projectId, 'projectId'));
      if (!project) throw new Error(`no project ${p.projectId}: a project state must come first`);
      const owner = project.owner_id === null ? undefined : world().state.users.get(project.owner_id);
      if (!owner) throw new Error(`project ${project.id} has no owner`);
      await seedWebhook(int(p.webhookId, 'webhookId'), {
        target_url: str(p.targetUrl, 'targetUrl'),
        type: 'project',
        events: strings(p.events, 'events'),
        owner: owner.username,
        project: project.name,
        secret: DEFAULT_SECRET,
        enable_ssl: true,
      });
      return undefined;
    },
    async [a.receiverAnswers.template](params) {
      const p = paramsOf(params, a.receiverAnswers.template, 'targetUrl', 'statusCode');
      const status = int(p.statusCode, 'statusCode');
      if (status < 100 || status > 599) throw new Error(`statusCode ${status} is not an HTTP status`);
      answers.set(str(p.targetUrl, 'targetUrl'), status);
      return undefined;
    },
    async [a.delivery.template](params) {
      const p = paramsOf(params, a.delivery.template, 'webhookId', 'deliveryId', 'event', 'statusCode');
      const webhookId = int(p.webhookId, 'webhookId');
      const deliveryId = int(p.deliveryId, 'deliveryId');
      const event = str(p.event, 'event');
      const hook = world().state.webhooks.get(webhookId);
      if (!hook || hook.project_id === null)
        throw new Error(`no project webhook ${webhookId}: a webhook state must come first`);
      if (!hook.events.includes(event)) throw new Error(`webhook ${webhookId} is not subscribed to ${event}`);
      const owner = hook.owner_id === null ? undefined : world().state.users.get(hook.owner_id);
      if (!owner) throw new Error(`webhook ${webhookId} has no owner`);
      const before = answers.get(hook.target_url);
      answers.set(hook.target_url, int(p.statusCode, 'statusCode'));
      nextIdWillBe('deliveries', deliveryId);
      try {
        await causeEvent(event, hook.project_id, owner.username);
        await settle();
      } finally {
        if (before === undefined) answers.delete(hook.target_url);
        else answers.set(hook.target_url, before);
      }
      const rec = world().state.deliveries.get(deliveryId);
      if (!rec || rec.webhook_id !== webhookId || rec.event !== event || rec.status_code !== p.statusCode) {
        throw new Error(`the delivery of ${event} was not recorded as ${deliveryId}: ${JSON.stringify(rec)}`);
      }
      return undefined;
    },
    async [a.exportRunning.template](params) {
      const p = paramsOf(params, a.exportRunning.template, 'rqId');
      await seedExport(str(p.rqId, 'rqId'), 'started');
      return undefined;
    },
    async [a.exportFinished.template](params) {
      const p = paramsOf(params, a.exportFinished.template, 'rqId');
      await seedExport(str(p.rqId, 'rqId'), 'finished');
      return undefined;
    },
    async [a.exportFailed.template](params) {
      const p = paramsOf(params, a.exportFailed.template, 'rqId', 'message');
      await seedExport(str(p.rqId, 'rqId'), 'failed', str(p.message, 'message'));
      return undefined;
    },
    async [a.legacyExportRunning.template](params) {
      const p = paramsOf(params, a.legacyExportRunning.template, 'queryId');
      await seedLegacyExport(str(p.queryId, 'queryId'), 'started');
      return undefined;
    },
    async [a.legacyExportFinished.template](params) {
      const p = paramsOf(params, a.legacyExportFinished.template, 'queryId');
      await seedLegacyExport(str(p.queryId, 'queryId'), 'finished');
      return undefined;
    },
    async [a.legacyExportFailed.template](params) {
      const p = paramsOf(params, a.legacyExportFailed.template, 'queryId', 'message');
      await seedLegacyExport(str(p.queryId, 'queryId'), 'failed', str(p.message, 'message'));
      return undefined;
    },

    // ---------------------------------------------------------------- deliveries (annotation-sim-webhooks)
    async [m.projectWebhook.template](params) {
      const p = paramsOf(params, m.projectWebhook.template, 'webhookId', 'projectId', 'events', 'secret');
      plannedProjectHooks.push({
        webhookId: int(p.webhookId, 'webhookId'),
        projectId: int(p.projectId, 'projectId'),
        events: strings(p.events, 'events'),
        secret: str(p.secret, 'secret'),
      });
      return undefined;
    },
    async [m.organizationWebhook.template](params) {
      const p = paramsOf(
        params,
        m.organizationWebhook.template,
        'webhookId',
        'orgId',
        'orgSlug',
        'events',
        'secret',
      );
      const slug = str(p.orgSlug, 'orgSlug');
      const owner = `${slug}-owner`;
      await ensureUser(owner);
      nextIdWillBe('organizations', int(p.orgId, 'orgId'));
      await seed({ organizations: [{ slug, name: slug, owner }] });
      const webhookId = int(p.webhookId, 'webhookId');
      const target = `https://receiver.example.com/webhooks/${webhookId}`;
      answers.set(target, 200);
      await seedWebhook(webhookId, {
        target_url: target,
        type: 'organization',
        events: strings(p.events, 'events'),
        owner,
        org: slug,
        secret: str(p.secret, 'secret'),
      });
      return undefined;
    },
    async [m.taskCreated.template](params) {
      const p = paramsOf(params, m.taskCreated.template, 'username', 'taskId', 'taskName', 'projectId');
      const projectId = int(p.projectId, 'projectId');
      const { token } = await actingUser(str(p.username, 'username'), projectId);
      const change = await actions.createTask(
        token,
        projectId,
        int(p.taskId, 'taskId'),
        str(p.taskName, 'taskName'),
      );
      await messageFor(change, projectId);
      return undefined;
    },
    async [m.taskRenamed.template](params) {
      const p = paramsOf(
        params,
        m.taskRenamed.template,
        'username',
        'taskId',
        'projectId',
        'oldName',
        'newName',
      );
      const projectId = int(p.projectId, 'projectId');
      const username = str(p.username, 'username');
      const { token } = await actingUser(username, projectId);
      const taskId = int(p.taskId, 'taskId');
      await seedTask(username, projectId, taskId, str(p.oldName, 'oldName'));
      await messageFor(await actions.renameTask(token, taskId, str(p.newName, 'newName')), projectId);
      return undefined;
    },
    async [m.taskDeleted.template](params) {
      const p = paramsOf(params, m.taskDeleted.template, 'username', 'taskId', 'projectId');
      const projectId = int(p.projectId, 'projectId');
      const username = str(p.username, 'username');
      const { token } = await actingUser(username, projectId);
      const taskId = int(p.taskId, 'taskId');
      await seedTask(username, projectId, taskId, `Task ${taskId}`);
      await messageFor(await actions.deleteTask(token, taskId), projectId);
      return undefined;
    },
    async [m.jobStateChanged.template](params) {
      const p = paramsOf(
        params,
        m.jobStateChanged.template,
        'username',
        'jobId',
        'taskId',
        'projectId',
        'fromState',
        'toState',
      );
      const projectId = int(p.projectId, 'projectId');
      const username = str(p.username, 'username');
      const { token } = await actingUser(username, projectId);
      const jobId = int(p.jobId, 'jobId');
      await seedTask(username, projectId, int(p.taskId, 'taskId'), `Task ${p.taskId}`, jobId);
      const fromState = str(p.fromState, 'fromState');
      if (world().state.jobs.get(jobId)?.state !== fromState) await actions.moveJob(token, jobId, fromState);
      await messageFor(await actions.moveJob(token, jobId, str(p.toState, 'toState')), projectId);
      return undefined;
    },
    async [m.webhookPinged.template](params) {
      const p = paramsOf(params, m.webhookPinged.template, 'username', 'webhookId');
      const webhookId = int(p.webhookId, 'webhookId');
      const planned = plannedProjectHooks.find((h) => h.webhookId === webhookId);
      const { user, token } = await actingUser(str(p.username, 'username'), planned?.projectId);
      const webhook = await call('GET', `/api/webhooks/${webhookId}`, undefined, token);
      if (!webhook) throw new Error(`no webhook ${webhookId}`);
      await call('POST', `/api/webhooks/${webhookId}/ping`, undefined, token);
      await produce(webhookId, createPingPayload(webhook, senderOf(user.id)));
      return undefined;
    },
    async [m.memberJoined.template](params) {
      const p = paramsOf(params, m.memberJoined.template, 'username', 'orgSlug', 'role');
      const slug = str(p.orgSlug, 'orgSlug');
      const role = str(p.role, 'role');
      if (role === 'owner')
        throw new Error(
          'an owner membership is created with its organization, before any organization webhook can exist',
        );
      const org = [...world().state.organizations.values()].find((o) => o.slug === slug);
      if (!org || org.owner_id === null)
        throw new Error(`no organization ${slug}: an organization webhook state must come first`);
      const member = await ensureUser(str(p.username, 'username'));
      const ownerToken = tokenOf(org.owner_id);
      // CVAT creates the (inactive) membership with the invitation, and that is when create:membership fires.
      const change = await capture('create:membership', () =>
        call('POST', '/api/invitations', { role, email: member.email }, ownerToken, slug),
      );
      const hook = [...world().state.webhooks.values()].find(
        (w) => w.type === 'organization' && w.organization_id === org.id,
      );
      if (!hook) throw new Error(`no webhook of organization ${slug}`);
      if (change.actor?.kind !== 'user') throw new Error('the invitation was not made by a user');
      await produce(hook.id, createEventPayload(change, hook.id, senderOf(change.actor.id)));
      return undefined;
    },
  };

  async function messageFor(change: ResourceChange, projectId: number) {
    const hook = projectHookOf(projectId);
    if (!hook) throw new Error(`no webhook of project ${projectId}`);
    if (change.actor?.kind !== 'user') throw new Error(`${change.scope} was not made by a user`);
    await produce(hook.id, createEventPayload(change, hook.id, senderOf(change.actor.id)));
  }

  /** `action=export&target=events&id=<uuid>&user_id=<id>` → its query id and owner. */
  function parseRqId(rqId: string) {
    const q = new URLSearchParams(rqId);
    const id = q.get('id');
    const userId = Number(q.get('user_id'));
    if (q.get('action') !== 'export' || q.get('target') !== 'events' || !id || !Number.isInteger(userId)) {
      throw new Error(`rq_id "${rqId}" is not action=export&target=events&id=<uuid>&user_id=<id>`);
    }
    return { queryId: id, userId };
  }
  async function seedExport(rqId: string, status: string, message?: string) {
    const { queryId, userId } = parseRqId(rqId);
    const user = world().state.users.get(userId);
    if (!user) throw new Error(`no user ${userId} (the rq_id's owner): a user state must come first`);
    const job = await call('POST', '/_sim/events/exports', {
      query_id: queryId,
      user_id: userId,
      username: user.username,
      status,
      ...(message === undefined ? {} : { message }),
    });
    if (job?.rq_id !== rqId) throw new Error(`the export was seeded as ${String(job?.rq_id)}, not ${rqId}`);
  }
  async function seedLegacyExport(queryId: string, status: string, message?: string) {
    if (!currentUser)
      throw new Error('a legacy export needs the user of a `user … authenticates …` state first');
    await call('POST', '/_sim/events/exports', {
      query_id: queryId,
      user_id: currentUser.id,
      username: currentUser.username,
      status,
      ...(message === undefined ? {} : { message }),
    });
  }

  return {
    states,
    reset() {
      produced = undefined;
      currentUser = undefined;
      plannedProjectHooks.length = 0;
      answers.clear();
      sent.length = 0;
    },
    message(): Promise<ProducedMessage> {
      if (!produced) return Promise.reject(new Error('no state of this interaction produced a delivery'));
      return Promise.resolve(produced);
    },
  };
}

async function startSession(socket: boolean): Promise<ProviderSession> {
  const answers: Answers = new Map();
  const sent: OutboundRequest[] = [];
  const options = { clock: { mode: 'manual' as const }, sender: injectedSender(answers, sent) };
  const session: Session = socket
    ? await (async () => {
        const sim = await startAnnotationSim({ ...options, port: 0 });
        return { sim, baseUrl: sim.url, close: () => sim.close() };
      })()
    : (() => {
        const sim = createAnnotationSim(options);
        return { sim, close: async () => sim.close() };
      })();
  const handlers = annotationHandlers(session, answers, sent);
  return {
    ...(session.baseUrl ? { baseUrl: session.baseUrl } : {}),
    async reset() {
      handlers.reset();
      const res = await session.sim.app.request('/_sim/reset', { method: 'POST' });
      if (!res.ok) throw new Error(`POST /_sim/reset answered ${res.status}`);
    },
    states: handlers.states,
    ...(socket ? {} : { message: () => handlers.message() }),
    close: session.close,
  };
}

/** The providers annotation-sim verifies: the CVAT REST API, and its webhook deliveries as messages. */
export const annotationSimProviders: ProviderDefinition[] = [
  { name: 'annotation-sim', start: () => startSession(true) },
  { name: 'annotation-sim-webhooks', start: () => startSession(false) },
];
