import { parseDuration } from '@sims/sim-core';
import { annotationEffects } from '../domain/fault-effects';
import type { RequestPlan } from '../domain/requests/lifecycle';
import type { RequestsState } from '../domain/requests/state';
import type { ApiRequest } from './api';

/**
 * How a new background request runs: the world's settings (`durationMs` its kind's), changed by a
 * matching fault rule (`requestDelay`, `requestFails`, `requestLost`).
 */
export function requestPlan(r: ApiRequest, rs: RequestsState, durationMs: number): RequestPlan {
  const sim = r.sim;
  const plan: RequestPlan = { durationMs, queuedMs: rs.settings.queuedMs };
  const delay = annotationEffects.takeEffect(sim, 'requestDelay');
  if (delay?.queued !== undefined) plan.queuedMs = parseDuration(delay.queued);
  if (delay?.duration !== undefined) plan.durationMs = parseDuration(delay.duration);
  // `queued` alone: the request waits that long, then takes its usual time.
  else if (delay?.queued !== undefined) plan.durationMs = plan.queuedMs + durationMs;
  if (delay?.polls !== undefined) plan.polls = delay.polls;
  const fails = annotationEffects.takeEffect(sim, 'requestFails');
  if (fails) {
    plan.failWith = fails.message;
    if (fails.after !== undefined) plan.durationMs = parseDuration(fails.after);
  }
  if (annotationEffects.takeEffect(sim, 'requestLost') !== undefined) plan.lost = true;
  return plan;
}
