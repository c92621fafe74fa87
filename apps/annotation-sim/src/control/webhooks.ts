import { controlError, type SimEnv, SimInputError } from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import type { DeliveryEngine } from '../delivery/engine';
import type { AnnotationState } from '../domain/state';
import { DEFAULT_DELIVERY_LIMIT, type RedeliverResult, webhooksView } from './views';

/** A path id: decimal digits only (anything else names nothing). */
const idOf = (raw: string | undefined): number | undefined =>
  raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;

function limitOf(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_DELIVERY_LIMIT;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new SimInputError('limit must be a positive integer', 'limit');
  return n;
}

/**
 * `/_sim/webhooks`: the world's webhooks with their delivery rows (views.ts), and redelivery without
 * credentials. The control plane needs no permission: what the API checks (who may see or update a
 * webhook) does not apply.
 */
export function registerWebhookControlRoutes(
  control: Hono<SimEnv<AnnotationState>>,
  engineOf: (state: AnnotationState) => DeliveryEngine,
  worldOf: (c: Context) => { state: AnnotationState },
) {
  control.get('/webhooks', (c) => {
    const limit = limitOf(c.req.query('limit'));
    return c.json(webhooksView(worldOf(c).state, limit));
  });
  /** What `POST /api/webhooks/{id}/deliveries/{delivery_id}/redelivery` does, answered 200 with ids. */
  control.post('/webhooks/:id/deliveries/:deliveryId/redeliver', (c) => {
    const state = worldOf(c).state;
    const webhookId = idOf(c.req.param('id'));
    const webhook = webhookId === undefined ? undefined : state.webhooks.get(webhookId);
    if (!webhook) return controlError(c, 404, `no webhook ${c.req.param('id')}`);
    const deliveryId = idOf(c.req.param('deliveryId'));
    const delivery = deliveryId === undefined ? undefined : state.deliveries.get(deliveryId);
    if (!delivery || delivery.webhook_id !== webhook.id)
      return controlError(c, 404, `webhook ${webhook.id} has no delivery ${c.req.param('deliveryId')}`);
    // As the API's redelivery: the stored payload goes out unchanged (same webhook_id and event), queued
    // behind the webhook's other deliveries, skipped if the webhook is inactive when its turn comes.
    engineOf(state).enqueue(webhook.id, delivery.request as Record<string, unknown>, { redelivery: true });
    const result: RedeliverResult = { redelivered: true, webhook: webhook.id, delivery: delivery.id };
    return c.json(result);
  });
}

/** `/_sim/openapi.json` entries of the webhook control routes. */
export const WEBHOOK_CONTROL_OPENAPI: Record<string, unknown> = {
  '/_sim/webhooks': {
    get: {
      summary:
        "The world's webhooks (as GET /api/webhooks/{id} renders them) each with `deliveries` (rows as GET /api/webhooks/{id}/deliveries renders them, newest first) and `delivery_count`",
      parameters: [
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, default: DEFAULT_DELIVERY_LIMIT },
          description: 'Delivery rows per webhook (newest first)',
        },
      ],
      responses: {
        '200': { description: '{ webhooks: WebhookView[] }' },
        '400': { description: 'limit is not a positive integer' },
      },
    },
  },
  '/_sim/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    post: {
      summary:
        'Send a delivery row again, as POST /api/webhooks/{id}/deliveries/{delivery_id}/redelivery does (no credentials); its row (redelivery: true) appears when the attempt finishes',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
        { name: 'deliveryId', in: 'path', required: true, schema: { type: 'integer' } },
      ],
      responses: {
        '200': { description: '{ redelivered: true, webhook, delivery } (ids)' },
        '404': { description: 'no such webhook, or no such delivery of it' },
      },
    },
  },
};
