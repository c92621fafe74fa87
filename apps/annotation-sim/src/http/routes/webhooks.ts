import { webhookVisible } from '../../domain/access';
import type { Result } from '../../domain/errors';
import type { DeliveryRec, WebhookRec } from '../../domain/model';
import { deleteWebhookCascade } from '../../domain/mutation';
import { createPingPayload } from '../../domain/payloads';
import { basicUser, deliveryRead, webhookRead } from '../../domain/serializers';
import {
  createWebhook,
  deliveriesOf,
  findDelivery,
  mayAccessWebhook,
  mayListWebhooks,
  updateWebhook,
  webhookCreation,
} from '../../domain/webhook-rules';
import { validateWebhookWrite, webhookEventsFor } from '../../domain/webhooks';
import type { ApiRequest } from '../api';
import type { AppDeps, Kernel } from '../deps';
import type { FilterTerms } from '../json-logic-columns';
import { checkListQuery, paginate } from '../pagination';
import { cvatJson, noContent } from '../respond';
import { byId, type RouteSpec, refused, registerRoutes } from '../route-table';
import { simpleFiltersOf } from './filter-terms';
import { queryList } from './list-query';
import { username } from './resource-support';

/** The webhook the path's `:id` names, if the caller may act on it in `scope`: 404 before 403. */
function loadWebhook(r: ApiRequest, scope: 'view' | 'update' | 'delete'): Result<WebhookRec> {
  const w = r.record(r.state.webhooks, 'Webhook');
  return w.ok ? mayAccessWebhook(r.state, r.user(), w.value, scope) : w;
}

/** The delivery the path's `:delivery_id` names, of webhook `w`. */
function loadDelivery(r: ApiRequest, deps: AppDeps, w: WebhookRec): Result<DeliveryRec> {
  const id = r.idParam('delivery_id');
  return id.ok ? findDelivery(r.state, w, id.value, deps.quirks.unknownDelivery500) : id;
}

/** `permission_classes=[]`: anonymous callers are fine, but bad credentials are still 401. */
function handleRetrieveEvents(r: ApiRequest): Response {
  r.optionalAuth();
  const events = webhookEventsFor(r.query('type') ?? 'all');
  return events.ok ? cvatJson(r.c, events.value) : refused(r, events);
}

/**
 * WebhookViewSet's `filter_fields` (also its `ordering_fields`), read through `lookup_fields`
 * (`owner` → `owner__username`): every one a field of the model.
 */
function webhookTerms(r: ApiRequest): FilterTerms<WebhookRec> {
  return {
    target_url: { type: 'str', get: (w) => w.target_url, modelField: true },
    owner: { type: 'str', get: (w) => username(r, w.owner_id), modelField: true },
    type: { type: 'str', get: (w) => w.type, modelField: true },
    description: { type: 'str', get: (w) => w.description, modelField: true },
    id: { type: 'int', get: (w) => w.id, modelField: true },
    project_id: { type: 'fk', get: (w) => w.project_id, modelField: true },
    updated_date: { type: 'datetime', get: (w) => w.updated_date, modelField: true },
  };
}

function handleListWebhooks(r: ApiRequest): Response {
  const user = r.user();
  checkListQuery(r);
  const ctx = r.orgContext();
  const allowed = mayListWebhooks(r.state, user, ctx);
  if (!allowed.ok) return refused(r, allowed);
  let items = [...r.state.webhooks.values()].filter((w) => webhookVisible(r.state, user, ctx, w));
  items = queryList(r, items, {
    terms: webhookTerms(r),
    simpleFilters: simpleFiltersOf('/api/webhooks'),
    search: [(w) => w.target_url, (w) => username(r, w.owner_id), (w) => w.description],
    defaultOrder: '-id',
  });
  return cvatJson(
    r.c,
    paginate(r, items, (w) => webhookRead(r.state, w)),
  );
}

function handleCreateWebhook(r: ApiRequest, deps: AppDeps): Response {
  const user = r.user();
  const ctx = r.orgContext();
  const body = r.parsedBody();
  if (!body.ok) return refused(r, body);
  const creation = webhookCreation(r.state, user, ctx, body.value, deps.quirks.webhookConstraint500);
  if (!creation.ok) return refused(r, creation);
  return cvatJson(r.c, webhookRead(r.state, createWebhook(r.state, r.now, user.id, creation.value)), 201);
}

function handleRetrieveWebhook(r: ApiRequest): Response {
  const w = loadWebhook(r, 'view');
  return w.ok ? cvatJson(r.c, webhookRead(r.state, w.value)) : refused(r, w);
}

/** PUT and PATCH: `type` and `project_id` are write-once, so the stored webhook decides the events check. */
function updateHandler(kind: 'put' | 'patch') {
  return (r: ApiRequest): Response => {
    const w = loadWebhook(r, 'update');
    if (!w.ok) return refused(r, w);
    const body = r.parsedBody();
    if (!body.ok) return refused(r, body);
    const input = validateWebhookWrite(body.value, { kind, stored: w.value });
    if (!input.ok) return refused(r, input);
    return cvatJson(r.c, webhookRead(r.state, updateWebhook(r.state, r.now, w.value, input.value)));
  };
}

function handleDestroyWebhook(r: ApiRequest): Response {
  const w = loadWebhook(r, 'delete');
  if (!w.ok) return refused(r, w);
  deleteWebhookCascade(r.state, w.value.id);
  return noContent(r.c);
}

/** Sends a `ping` event now and answers its delivery. */
async function handlePing(r: ApiRequest, deps: AppDeps): Promise<Response> {
  const w = loadWebhook(r, 'update');
  if (!w.ok) return refused(r, w);
  const payload = createPingPayload(webhookRead(r.state, w.value), basicUser(r.state, r.user().id));
  const row = await deps.delivery(r.state).sendNow(w.value.id, payload);
  return cvatJson(r.c, deliveryRead(row));
}

function handleListDeliveries(r: ApiRequest): Response {
  const w = loadWebhook(r, 'view');
  return w.ok ? cvatJson(r.c, paginate(r, deliveriesOf(r.state, w.value), deliveryRead)) : refused(r, w);
}

function handleRetrieveDelivery(r: ApiRequest, deps: AppDeps): Response {
  const w = loadWebhook(r, 'view');
  if (!w.ok) return refused(r, w);
  const d = loadDelivery(r, deps, w.value);
  return d.ok ? cvatJson(r.c, deliveryRead(d.value)) : refused(r, d);
}

/** Queues the stored payload again, unchanged (same webhook_id and event), as a redelivery. */
function handleRedelivery(r: ApiRequest, deps: AppDeps): Response {
  const w = loadWebhook(r, 'update');
  if (!w.ok) return refused(r, w);
  const d = loadDelivery(r, deps, w.value);
  if (!d.ok) return refused(r, d);
  deps
    .delivery(r.state)
    .enqueue(w.value.id, d.value.request as Record<string, unknown>, { redelivery: true });
  return cvatJson(r.c, {});
}

const WEBHOOK = byId('webhooks');

/** `/api/webhooks`: CVAT's WebhookViewSet, with the delivery engine and quirks of `deps`. */
function webhookRoutes(deps: AppDeps): readonly RouteSpec[] {
  const withDeps =
    (handle: (r: ApiRequest, deps: AppDeps) => Response | Promise<Response>) =>
    (r: ApiRequest): Response | Promise<Response> =>
      handle(r, deps);
  return [
    {
      method: 'get',
      path: '/api/webhooks/events',
      operation: 'webhooks.retrieve_events',
      handle: handleRetrieveEvents,
      anonymous: true,
    },
    { method: 'get', path: '/api/webhooks', operation: 'webhooks.list', handle: handleListWebhooks },
    {
      method: 'post',
      path: '/api/webhooks',
      operation: 'webhooks.create',
      handle: withDeps(handleCreateWebhook),
    },
    {
      method: 'get',
      path: '/api/webhooks/:id',
      operation: 'webhooks.retrieve',
      resource: WEBHOOK,
      handle: handleRetrieveWebhook,
    },
    {
      method: 'put',
      path: '/api/webhooks/:id',
      operation: 'webhooks.update',
      resource: WEBHOOK,
      handle: updateHandler('put'),
    },
    {
      method: 'patch',
      path: '/api/webhooks/:id',
      operation: 'webhooks.partial_update',
      resource: WEBHOOK,
      handle: updateHandler('patch'),
    },
    {
      method: 'delete',
      path: '/api/webhooks/:id',
      operation: 'webhooks.destroy',
      resource: WEBHOOK,
      handle: handleDestroyWebhook,
    },
    {
      method: 'post',
      // The second is the path the seed document names.
      path: ['/api/webhooks/:id/ping', '/webhooks/:id/ping'],
      operation: 'webhooks.create_ping',
      resource: WEBHOOK,
      handle: withDeps(handlePing),
    },
    {
      method: 'get',
      path: '/api/webhooks/:id/deliveries',
      operation: 'webhooks.list_deliveries',
      resource: WEBHOOK,
      handle: handleListDeliveries,
    },
    {
      method: 'get',
      path: '/api/webhooks/:id/deliveries/:delivery_id',
      operation: 'webhooks.retrieve_deliveries',
      resource: WEBHOOK,
      handle: withDeps(handleRetrieveDelivery),
    },
    {
      method: 'post',
      path: '/api/webhooks/:id/deliveries/:delivery_id/redelivery',
      operation: 'webhooks.create_deliveries_redelivery',
      resource: WEBHOOK,
      handle: withDeps(handleRedelivery),
    },
  ];
}

/** Registers the webhook routes on the kernel's app. */
export function registerWebhookRoutes(kernel: Kernel, deps: AppDeps): void {
  registerRoutes(kernel, deps, webhookRoutes(deps));
}
