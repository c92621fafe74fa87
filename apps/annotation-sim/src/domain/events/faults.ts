import { isDurationString } from '@sims/sim-core';
import * as z from 'zod';

/**
 * Domain fault effects of the events API, to merge into the simulator definition's `domainEffects`:
 *
 * ```yaml
 * - match: { operation: events.create_export }
 *   effect: { exportDelay: { duration: 30s } }        # or { polls: 3 }, or { queued: 1h, duration: 1h }
 * - match: { operation: [events.create_export, events.list] }
 *   effect: { exportFails: { message: "MemoryError\n" } }
 * - match: { operation: [events.create, events.create_export, events.list] }
 *   effect: { analyticsStoreDown: true }               # events dropped (201 still), exports fail
 * ```
 */

const duration = z.union([
  z.number().nonnegative(),
  z.string().refine(isDurationString, { message: 'expected a duration such as "500ms", "1.5s", "2m"' }),
]);

/** The export stays queued/running for a duration on the world clock, or for N status polls. */
export const exportDelayEffectSchema = z
  .object({
    /** Time from enqueue to the outcome. */
    duration: duration.optional(),
    /** Time spent `queued` before `started` (default: the world's setting, capped at the duration). */
    queued: duration.optional(),
    /** Status polls answered as `started` before the job finishes (on the next poll). */
    polls: z.int().min(0).optional(),
  })
  .strict()
  .refine((e) => !(e.duration !== undefined && e.polls !== undefined), {
    message: 'duration and polls cannot be combined',
  })
  .refine((e) => e.duration !== undefined || e.polls !== undefined || e.queued !== undefined, {
    message: 'exportDelay needs duration, polls or queued',
  });
export type ExportDelayEffect = z.infer<typeof exportDelayEffectSchema>;

/** The export fails with this message (what `GET /api/requests/{id}` shows as `message`). */
export const exportFailsEffectSchema = z
  .object({
    message: z.string().min(1),
    /** When it fails, from enqueue (default: the world's export duration). */
    after: duration.optional(),
  })
  .strict();
export type ExportFailsEffect = z.infer<typeof exportFailsEffectSchema>;

/** The analytics store is unreachable for the matching request. */
export const analyticsStoreDownEffectSchema = z.union([z.literal(true), z.object({}).strict()]);

/** `domainEffects` entries of the events API. */
export const eventsDomainEffects: Record<string, z.ZodType> = {
  exportDelay: exportDelayEffectSchema,
  exportFails: exportFailsEffectSchema,
  analyticsStoreDown: analyticsStoreDownEffectSchema,
};
