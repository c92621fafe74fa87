import { defineDomainEffects, isDurationString, lazy } from '@sims/sim-core';
import * as z from 'zod';

/**
 * The annotation simulator's domain fault effects: the schemas fault rules are validated with, and the
 * typed reads of them (`annotationEffects.take(world.faults, facts, 'deliveryRefused')`,
 * `annotationEffects.takeEffect(sim, 'exportDelay')`).
 *
 * ```yaml
 * - match: { operation: webhooks.deliver }
 *   effect: { deliveryRefused: true }                 # or deliveryTimeout, deliveryDrop, … deliveryDelay: 30s
 * - match: { operation: events.create_export }
 *   effect: { exportDelay: { duration: 30s } }        # or { polls: 3 }, or { queued: 1h, duration: 1h }
 * - match: { operation: [events.create_export, events.list] }
 *   effect: { exportFails: { message: "MemoryError\n" } }
 * - match: { operation: [events.create, events.create_export, events.list] }
 *   effect: { analyticsStoreDown: true }               # events dropped (201 still), exports fail
 * - match: { operation: tasks.create_data }
 *   effect: { requestFails: { message: "ValueError: No media data found\n" } }   # or requestDelay, requestLost
 * ```
 */

/** An effect that takes no value: `true` or `{}`. */
const flag = lazy(() => z.union([z.literal(true), z.object({}).strict()]));

/**
 * Receiver-side faults of a webhook delivery (`webhooks.deliver`). The order is that of "an effect
 * needs one of: …" in a rule's validation error.
 */
const receiverFaults = {
  /** Nothing is sent; the row records a refused connection (502). */
  deliveryRefused: flag,
  /** Nothing is sent; the row records a read time-out (504). */
  deliveryTimeout: flag,
  /** The attempt waits this long on the world clock before it is sent. */
  deliveryDelay: () => z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?(ms|s|m|h|d)$/)]),
  /** Nothing is sent, no row, no retry: a lost job (the outbound journal says `dropped`). */
  deliveryDrop: flag,
  /** The same bytes are POSTed twice; the row records the second answer. */
  deliveryDuplicate: flag,
  /** Every hex digit of `X-Signature-256` is shifted by one. */
  corruptSignature: flag,
};

/** A receiver-side fault's name. */
export type ReceiverFault = keyof typeof receiverFaults;

const duration = lazy(() =>
  z.union([
    z.number().nonnegative(),
    z.string().refine(isDurationString, { message: 'expected a duration such as "500ms", "1.5s", "2m"' }),
  ]),
);

/**
 * A background job held on the world clock (`exportDelay`, `requestDelay`): for a duration, for N status
 * polls, and/or queued a while before a worker takes it.
 */
const delayOf = (name: string) => () =>
  z
    .object({
      /** Time from enqueue to the outcome. */
      duration: duration().optional(),
      /** Time spent `queued` before `started` (default: the world's setting, capped at the duration). */
      queued: duration().optional(),
      /** Status polls answered as `started` before it ends (on the next poll). */
      polls: z.int().min(0).optional(),
    })
    .strict()
    .refine((e) => !(e.duration !== undefined && e.polls !== undefined), {
      message: 'duration and polls cannot be combined',
    })
    .refine((e) => e.duration !== undefined || e.polls !== undefined || e.queued !== undefined, {
      message: `${name} needs duration, polls or queued`,
    });

/** A background job that fails with `message`, `after` a while from enqueue (default: its usual time). */
const failure = () =>
  z
    .object({
      message: z.string().min(1),
      after: duration().optional(),
    })
    .strict();

/** Faults of the events API. */
const eventsFaults = {
  /** The export stays queued/running for a duration on the world clock, or for N status polls. */
  exportDelay: delayOf('exportDelay'),
  /** The export fails with this message (what `GET /api/requests/{id}` shows as `message`). */
  exportFails: failure,
  /** The analytics store is unreachable for the matching request. */
  analyticsStoreDown: flag,
};

/**
 * Faults of background requests (task data creation, dataset and backup exports): matched on the
 * operation that enqueues them (`tasks.create_data`, …) or on the request id as `resource`.
 */
const requestFaults = {
  /** The request stays queued/running for a duration on the world clock, or for N status polls. */
  requestDelay: delayOf('requestDelay'),
  /**
   * The request fails with this `message`, taken as given: CVAT's is the worker's exception as
   * `format_exception_only` prints it, e.g. `"ValueError: No media data found\n"`. Its work is not done.
   */
  requestFails: failure,
  /** The worker dies with the request: it stays `started`, sends nothing, and never ends by itself. */
  requestLost: flag,
};

export const annotationEffects = defineDomainEffects({
  ...receiverFaults,
  ...eventsFaults,
  ...requestFaults,
});
