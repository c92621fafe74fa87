import {
  controlError,
  lazy,
  parseInput,
  readControlJson,
  type SimEnv,
  SimInputError,
  type World,
} from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import * as z from 'zod';
import { endRequestNow, findRequest, viewRequest } from '../domain/requests/lifecycle';
import type { BackgroundRequest } from '../domain/requests/model';
import {
  applyRequestSettings,
  describeRequestSettings,
  type RequestsState,
  requestsOf,
} from '../domain/requests/state';
import type { AnnotationState } from '../domain/state';

/** What `/_sim/requests` shows of one request. */
interface RequestControlView {
  rq_id: string;
  type: string;
  status: string;
  owner: { id: number; username: string };
  /** When it ends by itself (ISO); null while it waits for polls, the control plane, or forever (lost). */
  finishAt: string | null;
  pollsLeft: number | null;
  lost: boolean;
  message: string;
}

/** `GET /_sim/requests`. */
interface RequestsControlView {
  settings: ReturnType<typeof describeRequestSettings>;
  requests: RequestControlView[];
}

function view(rs: RequestsState, r: BackgroundRequest, now: number): RequestControlView {
  const v = viewRequest(rs, r, now);
  return {
    rq_id: r.id,
    type: r.operation.type,
    status: v.status,
    owner: v.owner,
    finishAt: r.outcome === null && r.finishAt !== null ? new Date(r.finishAt).toISOString() : null,
    pollsLeft: r.pollsLeft,
    lost: r.lost,
    message: v.message,
  };
}

const completeSchema = lazy(() =>
  z.object({ rq_id: z.string(), fail: z.string().min(1).optional() }).strict(),
);
/** `POST /_sim/requests/{id}/fail`: the message `GET /api/requests/{id}` then shows, as `requestFails` takes it. */
const failSchema = lazy(() => z.object({ message: z.string().min(1) }).strict());

/** Ends a request by hand: its timer cancelled, its work done or failed with `fail`. */
function endNow(
  world: World<AnnotationState>,
  r: BackgroundRequest,
  now: number,
  fail: string | undefined,
): void {
  endRequestNow(world.timers, r, now, fail);
}

/**
 * `/_sim/requests`: the background requests' settings (how long task creation takes, …), the list, and
 * a request ended by hand, which is also how a lost request (its worker died) is ended:
 * `POST /_sim/requests/{id}/complete` (its work done) and `POST /_sim/requests/{id}/fail` (`{ message }`),
 * in the control plane's dialect (a missing request 404, one that has ended 409;
 * docs/decisions/0020-control-plane-dialect.md). `POST /_sim/requests/complete` with `{ rq_id, fail? }`
 * is the older form, kept as it was (a missing request is a 400 on `rq_id`, its body's field).
 *
 * @example registerRequestControlRoutes(control, tools.world)
 */
export function registerRequestControlRoutes(
  control: Hono<SimEnv<AnnotationState>>,
  worldOf: (c: Context) => World<AnnotationState>,
): void {
  const at = (c: Context) => {
    const world = worldOf(c);
    return { world, rs: requestsOf(world.state), now: world.clock.now() };
  };
  control.get('/requests', (c) => {
    const { rs, now } = at(c);
    return c.json<RequestsControlView>({
      settings: describeRequestSettings(rs),
      requests: [...rs.requests.values()].map((r) => view(rs, r, now)),
    });
  });
  control.get('/requests/settings', (c) => c.json(describeRequestSettings(at(c).rs)));
  control.patch('/requests/settings', async (c) => {
    const { rs } = at(c);
    applyRequestSettings(rs, (await readControlJson(c)) ?? {});
    return c.json(describeRequestSettings(rs));
  });
  const settle = (failing: boolean) => async (c: Context) => {
    const { world, rs, now } = at(c);
    const id = c.req.param('id') ?? '';
    // The request first: a missing one is a 404 whatever the body says.
    const r = findRequest(rs, id, now);
    if (!r) return controlError(c, 404, `no request "${id}"`);
    const fail = failing ? parseInput(failSchema(), (await readControlJson(c)) ?? {}).message : undefined;
    if (r.outcome !== null) return controlError(c, 409, `request "${id}" has already ended`);
    endNow(world, r, now, fail);
    return c.json(view(rs, r, now));
  };
  control.post('/requests/:id/complete', settle(false));
  control.post('/requests/:id/fail', settle(true));
  control.post('/requests/complete', async (c) => {
    const { world, rs, now } = at(c);
    const input = parseInput(completeSchema(), (await readControlJson(c)) ?? {});
    const r = findRequest(rs, input.rq_id, now);
    if (!r) throw new SimInputError(`no request "${input.rq_id}"`, 'rq_id');
    if (r.outcome !== null) throw new SimInputError(`request "${input.rq_id}" has already ended`, 'rq_id');
    endNow(world, r, now, input.fail);
    return c.json(view(rs, r, now));
  });
}
