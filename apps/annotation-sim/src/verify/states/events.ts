/**
 * Events exports of the `events-exporter` pact, seeded in a given status through `/_sim/events/exports`:
 * the rq_id flow (`/api/events/file/export`) and the deprecated query-id flow (`GET /api/events`).
 */
import { annotationStates } from '@sims/contracts';
import { paramsOf, str } from '@sims/pact-verify';
import { call, type StateContext, type StateTable, stateOf } from '../state-support';

const a = annotationStates;

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

/** Seeds an export job of that user in that status (`message`: the error text of a failed one). */
async function seedExportJob(
  ctx: StateContext,
  queryId: string,
  user: { id: number; username: string },
  status: string,
  message?: string,
) {
  return call(ctx, 'POST', '/_sim/events/exports', {
    query_id: queryId,
    user_id: user.id,
    username: user.username,
    status,
    ...(message === undefined ? {} : { message }),
  });
}

/** The export request `rqId`, owned by the user whose id ends it, in that status. */
async function seedExport(ctx: StateContext, rqId: string, status: string, message?: string) {
  const { queryId, userId } = parseRqId(rqId);
  const user = stateOf(ctx).users.get(userId);
  if (!user) throw new Error(`no user ${userId} (the rq_id's owner): a user state must come first`);
  const job = await seedExportJob(ctx, queryId, user, status, message);
  if (job?.rq_id !== rqId) throw new Error(`the export was seeded as ${String(job?.rq_id)}, not ${rqId}`);
}

/** The deprecated-flow export `queryId` of the session's current user, in that status. */
async function seedLegacyExport(ctx: StateContext, queryId: string, status: string, message?: string) {
  if (!ctx.currentUser)
    throw new Error('a legacy export needs the user of a `user … authenticates …` state first');
  await seedExportJob(ctx, queryId, ctx.currentUser, status, message);
}

async function exportRunning(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.exportRunning.template, 'rqId');
  await seedExport(ctx, str(p.rqId, 'rqId'), 'started');
}

async function exportFinished(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.exportFinished.template, 'rqId');
  await seedExport(ctx, str(p.rqId, 'rqId'), 'finished');
}

async function exportFailed(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.exportFailed.template, 'rqId', 'message');
  await seedExport(ctx, str(p.rqId, 'rqId'), 'failed', str(p.message, 'message'));
}

async function legacyExportRunning(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.legacyExportRunning.template, 'queryId');
  await seedLegacyExport(ctx, str(p.queryId, 'queryId'), 'started');
}

async function legacyExportFinished(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.legacyExportFinished.template, 'queryId');
  await seedLegacyExport(ctx, str(p.queryId, 'queryId'), 'finished');
}

async function legacyExportFailed(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.legacyExportFailed.template, 'queryId', 'message');
  await seedLegacyExport(ctx, str(p.queryId, 'queryId'), 'failed', str(p.message, 'message'));
}

export const eventExportStates: StateTable = {
  [a.exportRunning.template]: exportRunning,
  [a.exportFinished.template]: exportFinished,
  [a.exportFailed.template]: exportFailed,
  [a.legacyExportRunning.template]: legacyExportRunning,
  [a.legacyExportFinished.template]: legacyExportFinished,
  [a.legacyExportFailed.template]: legacyExportFailed,
};
