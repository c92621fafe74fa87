import { planWork } from '@sims/sim-core';
import { annotationEffects } from '../domain/fault-effects';
import type { RequestPlan } from '../domain/requests/lifecycle';
import type { RequestsState } from '../domain/requests/state';
import type { ApiRequest } from './api';

/**
 * How a new background request runs: the world's settings (`durationMs` its kind's, from enqueue to the
 * outcome), changed by a matching fault rule (`requestDelay`, `requestFails`, `requestLost`) as
 * sim-core's `planWork` reads a delay (the events exports' rule too).
 */
export function requestPlan(r: ApiRequest, rs: RequestsState, durationMs: number): RequestPlan {
  const sim = r.sim;
  const delay = annotationEffects.takeEffect(sim, 'requestDelay');
  const fails = annotationEffects.takeEffect(sim, 'requestFails');
  const plan: RequestPlan = planWork({ durationMs, queuedMs: rs.settings.queuedMs }, delay, fails?.after);
  if (fails) plan.failWith = fails.message;
  if (annotationEffects.takeEffect(sim, 'requestLost') !== undefined) plan.lost = true;
  return plan;
}
