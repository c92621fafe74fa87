import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type { PatchedWebhookWriteRequest, WebhookWriteRequest } from '@sims/annotation-schema/requests';
import { isPlainObject, lazy } from '@sims/sim-core';
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
  mayCreateWebhook,
  mayListWebhooks,
  updateWebhook,
  type WebhookClaim,
  webhookCreation,
} from '../../domain/webhook-rules';
import { webhookEventsFor, webhookFields } from '../../domain/webhooks';
import type { ApiRequest } from '../api';
import type { AppDeps } from '../deps';
import type { FilterTerms } from '../json-logic-columns';
import { checkListQuery, pageAnswer } from '../pagination';
import { cvatJson, noContent } from '../respond';
import { byId, type RouteRow, refused, withBody } from '../route-table';
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
  const auth = r.optionalAuth();
  if (!auth.ok) return refused(r, auth);
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
  const bounded = checkListQuery(r);
  if (!bounded.ok) return refused(r, bounded);
  const ctx = r.orgContext();
  if (!ctx.ok) return refused(r, ctx);
  const allowed = mayListWebhooks(r.state, user, ctx.value);
  if (!allowed.ok) return refused(r, allowed);
  const visible = [...r.state.webhooks.values()].filter((w) => webhookVisible(r.state, user, ctx.value, w));
  const items = queryList(r, visible, {
    terms: webhookTerms(r),
    simpleFilters: simpleFiltersOf('/api/webhooks'),
    search: [(w) => w.target_url, (w) => username(r, w.owner_id), (w) => w.description],
    defaultOrder: '-id',
  });
  return items.ok ? pageAnswer(r, items.value, (w) => webhookRead(r.state, w)) : refused(r, items);
}

/** PUT: the create fields but the write-once `type` and `project_id` (ignored when sent). */
const PUT_REQUEST = lazy(() => requestSchemas.WebhookWriteRequest().omit({ type: true, project_id: true }));

/**
 * What CVAT's permission check reads from `request.data` before the serializer runs: `type`, and
 * `project_id` unless it is absent, null or blank (looked up as a number, quoted as given).
 */
function webhookClaim(data: unknown): WebhookClaim {
  const raw = isPlainObject(data) ? data : {};
  const projectId = raw.project_id;
  return {
    type: typeof raw.type === 'string' ? raw.type : undefined,
    project:
      projectId === undefined || projectId === null || projectId === ''
        ? undefined
        : { id: Number(projectId), text: String(projectId) },
  };
}

/** The permission check on the raw body first, then the serializer's fields, then the row's own checks. */
function handleCreateWebhook(r: ApiRequest<WebhookWriteRequest>, deps: AppDeps): Response {
  const user = r.user();
  const ctx = r.orgContext();
  if (!ctx.ok) return refused(r, ctx);
  const data = r.parsedBody();
  if (!data.ok) return refused(r, data);
  const project = mayCreateWebhook(r.state, user, ctx.value, webhookClaim(data.value));
  if (!project.ok) return refused(r, project);
  const body = r.bodyFrom(data.value);
  if (!body.ok) return refused(r, body);
  const creation = webhookCreation(
    user,
    ctx.value,
    project.value,
    body.value,
    deps.quirks.webhookConstraint500,
  );
  if (!creation.ok) return refused(r, creation);
  return cvatJson(r.c, webhookRead(r.state, createWebhook(r.state, r.now, user.id, creation.value)), 201);
}

function handleRetrieveWebhook(r: ApiRequest): Response {
  const w = loadWebhook(r, 'view');
  return w.ok ? cvatJson(r.c, webhookRead(r.state, w.value)) : refused(r, w);
}

/** PUT and PATCH: `type` and `project_id` are write-once, so the stored webhook decides the events check. */
function handleUpdateWebhook(r: ApiRequest<PatchedWebhookWriteRequest>): Response {
  const w = loadWebhook(r, 'update');
  if (!w.ok) return refused(r, w);
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const input = webhookFields(body.value, w.value.type);
  if (!input.ok) return refused(r, input);
  return cvatJson(r.c, webhookRead(r.state, updateWebhook(r.state, r.now, w.value, input.value)));
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
  return w.ok ? pageAnswer(r, deliveriesOf(r.state, w.value), deliveryRead) : refused(r, w);
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
export function webhookRoutes(deps: AppDeps): readonly RouteRow[] {
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
    withBody({
      method: 'post',
      path: '/api/webhooks',
      operation: 'webhooks.create',
      body: requestSchemas.WebhookWriteRequest,
      handle: (r: ApiRequest<WebhookWriteRequest>) => handleCreateWebhook(r, deps),
    }),
    {
      method: 'get',
      path: '/api/webhooks/:id',
      operation: 'webhooks.retrieve',
      resource: WEBHOOK,
      handle: handleRetrieveWebhook,
    },
    withBody({
      method: 'put',
      path: '/api/webhooks/:id',
      operation: 'webhooks.update',
      resource: WEBHOOK,
      body: PUT_REQUEST,
      handle: handleUpdateWebhook,
    }),
    withBody({
      method: 'patch',
      path: '/api/webhooks/:id',
      operation: 'webhooks.partial_update',
      resource: WEBHOOK,
      body: requestSchemas.PatchedWebhookWriteRequest,
      handle: handleUpdateWebhook,
    }),
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
