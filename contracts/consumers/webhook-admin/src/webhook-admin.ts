import {
  asArray,
  asObject,
  bool,
  type CvatHttp,
  type CvatResponse,
  type CvatResult,
  expectStatus,
  type Json,
  num,
  numOrNull,
  str,
  strings,
  strOrNull,
} from '../../cvat-http/src';

/** The fields of a CVAT `WebhookRead` the administrator uses. The secret is never returned. */
export interface Webhook {
  readonly id: number;
  readonly targetUrl: string;
  readonly type: string;
  readonly projectId: number | null;
  /** Sorted alphabetically by CVAT, whatever order they were sent in. */
  readonly events: readonly string[];
  readonly isActive: boolean;
}

/** The fields of a `WebhookDeliveryRead` the administrator uses. */
export interface WebhookDelivery {
  readonly id: number;
  readonly webhookId: number;
  readonly event: string;
  /** The receiver's HTTP status; CVAT records 502 for a connection error and 504 for a time-out. */
  readonly statusCode: number | null;
  readonly redelivery: boolean;
}

export interface WebhookDeliveryDetail extends WebhookDelivery {
  /** The payload that was sent. */
  readonly request: unknown;
  /** What the receiver answered (CVAT stores it as text). */
  readonly response: unknown;
}

export interface NewProjectWebhook {
  readonly projectId: number;
  readonly targetUrl: string;
  readonly events: readonly string[];
  readonly secret: string;
  readonly description?: string;
}

export interface WebhookChanges {
  readonly targetUrl?: string;
  readonly events?: readonly string[];
  readonly isActive?: boolean;
  readonly secret?: string;
}

function readWebhook(body: unknown): Webhook {
  const w = asObject(body, 'webhook');
  return {
    id: num(w, 'id'),
    targetUrl: str(w, 'target_url'),
    type: str(w, 'type'),
    projectId: numOrNull(w, 'project_id'),
    events: strings(w, 'events'),
    isActive: bool(w, 'is_active'),
  };
}

function readDelivery(body: unknown): WebhookDelivery {
  const d = asObject(body, 'delivery');
  return {
    id: num(d, 'id'),
    webhookId: num(d, 'webhook_id'),
    event: str(d, 'event'),
    statusCode: numOrNull(d, 'status_code'),
    redelivery: bool(d, 'redelivery'),
  };
}

/** A delivery that did not reach a 2xx answer (or never got an answer). */
export function isFailedDelivery(delivery: WebhookDelivery): boolean {
  return delivery.statusCode === null || delivery.statusCode < 200 || delivery.statusCode >= 300;
}

/**
 * Manages one team's CVAT project webhooks: create, list, update, ping, inspect deliveries, redeliver.
 *
 * @example
 * const admin = createWebhookAdmin({ http: createCvatHttp({ baseUrl, token }) });
 * const created = await admin.createProjectWebhook({ projectId: 1, targetUrl: 'https://hooks.example.com/cvat', events: ['create:task'], secret });
 */
export function createWebhookAdmin({ http }: { http: CvatHttp }) {
  /** Reads every page of a paginated list, following CVAT's absolute `next` links. */
  async function allPages<T>(first: CvatResponse, read: (item: unknown) => T): Promise<CvatResult<T[]>> {
    const items: T[] = [];
    let response = first;
    for (;;) {
      const page = expectStatus(response, 200, (r) => asObject(r.body, 'page'));
      if (!page.ok) return page;
      items.push(...asArray(page.value['results'], 'results').map(read));
      const next = strOrNull(page.value, 'next');
      if (next === null) return { ok: true, value: items };
      response = await http.follow(next);
    }
  }

  async function listDeliveries(id: number): Promise<CvatResult<WebhookDelivery[]>> {
    return allPages(await http.request('GET', `/api/webhooks/${id}/deliveries`), readDelivery);
  }

  /** Queues the stored payload again, unchanged; CVAT answers `{}` at once and delivers later. */
  async function redeliver(id: number, deliveryId: number): Promise<CvatResult<void>> {
    const response = await http.request('POST', `/api/webhooks/${id}/deliveries/${deliveryId}/redelivery`);
    return expectStatus(response, 200, () => undefined);
  }

  return {
    async createProjectWebhook(input: NewProjectWebhook): Promise<CvatResult<Webhook>> {
      const json: Json = {
        target_url: input.targetUrl,
        description: input.description ?? '',
        type: 'project',
        project_id: input.projectId,
        events: input.events,
        content_type: 'application/json',
        secret: input.secret,
        is_active: true,
        enable_ssl: true,
      };
      return expectStatus(await http.request('POST', '/api/webhooks', { json }), 201, (r) =>
        readWebhook(r.body),
      );
    },

    async listProjectWebhooks(projectId: number): Promise<CvatResult<Webhook[]>> {
      return allPages(
        await http.request('GET', '/api/webhooks', { query: { project_id: projectId } }),
        readWebhook,
      );
    },

    async updateWebhook(id: number, changes: WebhookChanges): Promise<CvatResult<Webhook>> {
      const json: Json = {};
      if (changes.targetUrl !== undefined) json['target_url'] = changes.targetUrl;
      if (changes.events !== undefined) json['events'] = changes.events;
      if (changes.isActive !== undefined) json['is_active'] = changes.isActive;
      if (changes.secret !== undefined) json['secret'] = changes.secret;
      return expectStatus(await http.request('PATCH', `/api/webhooks/${id}`, { json }), 200, (r) =>
        readWebhook(r.body),
      );
    },

    /** CVAT sends the ping synchronously and answers 200 whatever the receiver said; see `statusCode`. */
    async ping(id: number): Promise<CvatResult<WebhookDelivery>> {
      return expectStatus(await http.request('POST', `/api/webhooks/${id}/ping`), 200, (r) =>
        readDelivery(r.body),
      );
    },

    listDeliveries,

    async getDelivery(id: number, deliveryId: number): Promise<CvatResult<WebhookDeliveryDetail>> {
      return expectStatus(
        await http.request('GET', `/api/webhooks/${id}/deliveries/${deliveryId}`),
        200,
        (r) => {
          const body = asObject(r.body, 'delivery');
          return { ...readDelivery(body), request: body['request'], response: body['response'] };
        },
      );
    },

    redeliver,

    /** Redelivers every failed delivery of a webhook; returns the ids it redelivered. */
    async redeliverFailed(id: number): Promise<CvatResult<number[]>> {
      const deliveries = await listDeliveries(id);
      if (!deliveries.ok) return deliveries;
      const redelivered: number[] = [];
      for (const delivery of deliveries.value.filter(isFailedDelivery)) {
        const result = await redeliver(id, delivery.id);
        if (!result.ok) return result;
        redelivered.push(delivery.id);
      }
      return { ok: true, value: redelivered };
    },
  };
}

export type WebhookAdmin = ReturnType<typeof createWebhookAdmin>;
