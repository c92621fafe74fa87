/**
 * What every provider state handler shares: the session they act on ({@link StateContext}), the shape of
 * a handler and of a family's table of them, and the helpers that set the world up (API calls, `/_sim/seed`,
 * id sequences, users, projects, webhooks). A family of states (`states/users.ts`, …) exports a table of
 * named handlers; `provider.ts` joins the tables and binds them to a session.
 */
import type { ProducedMessage, StateHandler } from '@sims/pact-verify';
import { CVAT_JSON } from '../http/respond';
import type { AnnotationSim, OutboundRequest, ResourceChange } from '../index';

/** What the receiver at each URL answers (the `the receiver at … answers …` state). */
export type Answers = Map<string, number>;

/** A project webhook of a message state, created once the acting user (the project's owner) is known. */
interface PlannedProjectHook {
  webhookId: number;
  projectId: number;
  events: string[];
  secret: string;
}

/** One session's simulator and what its states noted (everything per session, nothing shared). */
export interface StateContext {
  sim: AnnotationSim;
  /** Status by target URL, read by the injected webhook sender. */
  answers: Answers;
  /** Every request the injected sender was given, in order. */
  sent: OutboundRequest[];
  /** The message the interaction's states produced (message pact). */
  produced?: ProducedMessage;
  /** The user of the `user … authenticates with token …` state (the legacy export states need it). */
  currentUser?: { id: number; username: string };
  plannedProjectHooks: PlannedProjectHook[];
}

/** A provider state handler: sets its state up in the session's world, or throws. */
type ContextStateHandler = (ctx: StateContext, params: unknown) => Promise<void>;

/** A family's handlers by state template. */
export type StateTable = Record<string, ContextStateHandler>;

/** A fresh context over `sim` (the sender reads `answers` and appends to `sent`). */
export function createStateContext(
  sim: AnnotationSim,
  answers: Answers,
  sent: OutboundRequest[],
): StateContext {
  return { sim, answers, sent, plannedProjectHooks: [] };
}

/** Forgets what the states of the last interaction noted (the world is reset separately). */
export function resetStateContext(ctx: StateContext): void {
  ctx.produced = undefined;
  ctx.currentUser = undefined;
  ctx.plannedProjectHooks.length = 0;
  ctx.answers.clear();
  ctx.sent.length = 0;
}

/** The tables joined into one, bound to `ctx`; a template two tables handle is an error. */
export function bindStateTables(
  ctx: StateContext,
  tables: readonly StateTable[],
): Record<string, StateHandler> {
  const states: Record<string, StateHandler> = {};
  for (const table of tables) {
    for (const [template, handle] of Object.entries(table)) {
      if (Object.hasOwn(states, template)) throw new Error(`state "${template}" has two handlers`);
      states[template] = async (params) => {
        await handle(ctx, params);
        return undefined;
      };
    }
  }
  return states;
}

// ---- the world and the API

/** The state of the session's world (the default namespace). */
export const stateOf = (ctx: StateContext) => ctx.sim.world().state;

/** An API or control-plane call in-process, as `token` in organization `org`; throws on any non-2xx. */
export async function call(
  ctx: StateContext,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  org?: string,
) {
  const res = await ctx.sim.app.request(path, {
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

/** Seeds through `/_sim/seed`, the control plane's own seeding. */
export async function seed(ctx: StateContext, input: Record<string, unknown>) {
  return call(ctx, 'POST', '/_sim/seed', input);
}

/**
 * Makes the next id of `table` be `id` (fails when that id is taken): ids the pact names exactly are
 * reached by starting the table's id sequence just below them.
 */
export function nextIdWillBe(ctx: StateContext, table: string, id: number) {
  const s = stateOf(ctx);
  const map = (s as unknown as Record<string, unknown>)[table];
  if (map instanceof Map && map.has(id)) throw new Error(`${table} ${id} exists already`);
  const current = s.seq[table] ?? 0;
  if (current >= id && map instanceof Map && [...map.keys()].some((k) => typeof k === 'number' && k > id)) {
    throw new Error(`${table} has ids above ${id}; cannot create ${table} ${id}`);
  }
  s.seq[table] = id - 1;
}

/** Waits until the delivery engine has sent (or given up on) everything queued. */
export async function settle(ctx: StateContext) {
  await call(ctx, 'POST', '/_sim/deliveries/idle');
}

/** Runs an action and returns the one change of `scope` it emitted. */
export async function capture(
  ctx: StateContext,
  scope: string,
  action: () => Promise<unknown>,
): Promise<ResourceChange> {
  const seen: ResourceChange[] = [];
  const off = ctx.sim.onChange((change) => {
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

// ---- users, projects, webhooks

export const userByName = (ctx: StateContext, username: string) =>
  [...stateOf(ctx).users.values()].find((u) => u.username === username);

export const projectById = (ctx: StateContext, id: number) => stateOf(ctx).projects.get(id);

/** A token of the user: theirs if the states gave one, else a new one (the world's token table). */
export function tokenOf(ctx: StateContext, userId: number): string {
  const { tokens } = stateOf(ctx);
  for (const [key, owner] of tokens) if (owner === userId) return key;
  const key = `pact${String(userId).padStart(36, '0')}`;
  tokens.set(key, userId);
  return key;
}

/** The user named `username`, seeded (with the next id) if missing. */
export async function ensureUser(ctx: StateContext, username: string) {
  const existing = userByName(ctx, username);
  if (existing) return existing;
  await seed(ctx, { users: [{ username }] });
  const created = userByName(ctx, username);
  if (!created) throw new Error(`seeding did not create user ${username}`);
  return created;
}

/**
 * Project `projectId`; when missing, it is seeded with that name, owned by `owner` (a user seeded if
 * missing too). An existing project is returned as it is.
 */
export async function ensureProject(
  ctx: StateContext,
  projectId: number,
  owner: string,
  name = `Project ${projectId}`,
) {
  const existing = projectById(ctx, projectId);
  if (existing) return existing;
  await ensureUser(ctx, owner);
  nextIdWillBe(ctx, 'projects', projectId);
  await seed(ctx, { projects: [{ name, owner }] });
  const created = projectById(ctx, projectId);
  if (!created || created.name !== name) throw new Error(`seeding did not create project ${projectId}`);
  return created;
}

/** Seeds `hook` (a `/_sim/seed` webhook) with id `webhookId`. */
export async function seedWebhook(ctx: StateContext, webhookId: number, hook: Record<string, unknown>) {
  nextIdWillBe(ctx, 'webhooks', webhookId);
  await seed(ctx, { webhooks: [hook] });
  const created = stateOf(ctx).webhooks.get(webhookId);
  if (!created) throw new Error(`seeding did not create webhook ${webhookId}`);
  return created;
}

/** The target URL of a message state's webhook `webhookId`, whose receiver now answers 200. */
export function listeningReceiver(ctx: StateContext, webhookId: number): string {
  const target = `https://receiver.example.com/webhooks/${webhookId}`;
  ctx.answers.set(target, 200);
  return target;
}
