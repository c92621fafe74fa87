import * as z from 'zod';
import { WEBHOOK_EVENT_CATALOGUE } from './webhook-events';

/**
 * The choice lists that read and write shapes share. They live apart from the wire schemas so that the
 * request schemas (`requests.ts`) build without the read shapes (docs/decisions/0009).
 */

export const JobStage = z.enum(['annotation', 'validation', 'acceptance']);
export const JobState = z.enum(['new', 'in progress', 'completed', 'rejected']);

export const OrganizationRole = z.enum(['worker', 'supervisor', 'maintainer', 'owner']);
export type OrganizationRole = z.infer<typeof OrganizationRole>;

export const WebhookType = z.enum(['organization', 'project']);
export type WebhookType = z.infer<typeof WebhookType>;
export const WebhookContentType = z.enum(['application/json']);

/** `EventsEnum` (28 values in v2.73.0). */
export const EventsEnum = z.enum(
  [...WEBHOOK_EVENT_CATALOGUE.map((e) => e.key)].sort() as [string, ...string[]],
);
