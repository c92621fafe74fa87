import * as z from 'zod';
import { WEBHOOK_EVENT_CATALOGUE } from './webhook-events';

/**
 * The choice lists that read and write shapes share, as functions that build them: `choices.ts` builds
 * each once for the read shapes, and the request schemas build theirs on first use (docs/decisions/0009).
 */
export const jobStage = () => z.enum(['annotation', 'validation', 'acceptance']);
export const jobState = () => z.enum(['new', 'in progress', 'completed', 'rejected']);
export const organizationRole = () => z.enum(['worker', 'supervisor', 'maintainer', 'owner']);
export const webhookType = () => z.enum(['organization', 'project']);
export const webhookContentType = () => z.enum(['application/json']);
/** `EventsEnum` (28 values in v2.73.0). */
export const eventsEnum = () =>
  z.enum([...WEBHOOK_EVENT_CATALOGUE.map((e) => e.key)].sort() as [string, ...string[]]);
