import type { SimEnv, World } from '@sims/sim-core';
import type { Context } from 'hono';
import type { EventsCaller } from '../../domain/events/export';
import type { EventsState } from '../../domain/events/state';
import type { IdFilter } from '../../domain/events/store';

/**
 * What the events API needs from the rest of the simulator. Everything about users, credentials and
 * organizations stays with the resource layer; this module only asks these questions.
 */
export interface EventsDeps<S> {
  /** This module's part of a world's state (e.g. `world.state.extensions.get('events')`). */
  events(world: World<S>): EventsState;
  /**
   * Authenticates the request and resolves its organization context (`X-Organization`, `org`,
   * `org_id`): the caller, or the response to send as it is (401 without or with bad credentials,
   * 400 on conflicting org selectors, 404 for an unknown organization, …).
   */
  identify(c: Context<SimEnv<S>>): EventsCaller | Response | Promise<EventsCaller | Response>;
  /**
   * `find_minimal_date_for_filter` (epoch ms): the `created_date` of the most specific of job, task,
   * project; else the earliest of the organization and its projects and tasks; else 0. Default: 0.
   */
  minimalFrom?(world: World<S>, ids: Partial<Record<IdFilter, number>>): number;
  /** Scheme, host and any `/_ns/<name>` prefix for `result_url`; default: taken from the request. */
  baseUrl?(c: Context<SimEnv<S>>): string;
}
