import type * as z from 'zod';
import {
  eventsEnum,
  jobStage,
  jobState,
  organizationRole,
  webhookContentType,
  webhookType,
} from './choice-builders';

/**
 * The choice lists that read and write shapes share. They live apart from the wire schemas so that the
 * request schemas (`requests.ts`) build without the read shapes (docs/decisions/0009).
 */

export const JobStage = jobStage();
export const JobState = jobState();

export const OrganizationRole = organizationRole();
export type OrganizationRole = z.infer<typeof OrganizationRole>;

export const WebhookType = webhookType();
export type WebhookType = z.infer<typeof WebhookType>;
export const WebhookContentType = webhookContentType();

/** `EventsEnum` (28 values in v2.73.0). */
export const EventsEnum = eventsEnum();
