import {
  canAccessWebhook,
  canCreateWebhook,
  canListWebhooks,
  canView,
  isAdmin,
  webhookVisible,
} from '../../domain/access';
import { formatDrfDate } from '../../domain/dates';
import { ApiFailure, denied, notFound } from '../../domain/errors';
import type { WebhookRec } from '../../domain/model';
import { createPingPayload } from '../../domain/payloads';
import { deleteWebhookCascade } from '../../domain/resources';
import { basicUser, deliveryRead, webhookRead } from '../../domain/serializers';
import { nextId } from '../../domain/state';
import { validateWebhookWrite, webhookEventsFor } from '../../domain/webhooks';
import { type ApiRequest, api } from '../api';
import type { AppDeps, Kernel } from '../deps';
import { jsonLogicFilter, paginate, searchFilter, sortBy } from '../pagination';
import { cvatJson, noContent } from '../respond';

const username = (r: ApiRequest, id: number | null) =>
  id === null ? null : (r.state.users.get(id)?.username ?? null);

function loadWebhook(r: ApiRequest, scope: 'view' | 'update' | 'delete'): WebhookRec {
  // The object is fetched first: an unknown id is 404 before any permission check.
  const w = r.get(r.state.webhooks, r.intParam('id'), 'Webhook');
  if (!canAccessWebhook(r.state, r.user(), w, scope)) throw new ApiFailure(denied());
  return w;
}

export function registerWebhookRoutes(kernel: Kernel, deps: AppDeps): void {
  const { app, operation } = kernel;
  const res = (c: { req: { param(n: string): string | undefined } }) => `webhooks/${c.req.param('id')}`;

  app.get(
    '/api/webhooks/events',
    operation('webhooks.retrieve_events'),
    api(
      deps,
      (r) => {
        // permission_classes=[]: anonymous callers are fine, but bad credentials are still 401.
        r.optionalAuth();
        const body = webhookEventsFor(r.query('type') ?? 'all');
        if (!body)
          throw new ApiFailure({ code: 'INVALID_STRING', message: 'Incorrect value of type parameter' });
        return cvatJson(r.c, body);
      },
      { anonymous: true },
    ),
  );

  app.get(
    '/api/webhooks',
    operation('webhooks.list'),
    api(deps, (r) => {
      const user = r.user();
      const ctx = r.orgContext();
      if (!canListWebhooks(r.state, user, ctx)) throw new ApiFailure(denied());
      let items = [...r.state.webhooks.values()].filter((w) => webhookVisible(r.state, user, ctx, w));
      const type = r.query('type');
      if (type !== undefined && type !== '') {
        if (type !== 'project' && type !== 'organization') {
          throw new ApiFailure({
            code: 'INVALID',
            errors: { type: [`Select a valid choice. ${type} is not one of the available choices.`] },
          });
        }
        items = items.filter((w) => w.type === type);
      }
      const eq = (name: string, get: (w: WebhookRec) => unknown) => {
        const v = r.query(name);
        if (v !== undefined && v !== '') items = items.filter((w) => String(get(w)) === v);
      };
      eq('target_url', (w) => w.target_url);
      eq('owner', (w) => username(r, w.owner_id));
      eq('project_id', (w) => w.project_id);
      items = searchFilter(items, r.query('search'), [
        (w) => w.target_url,
        (w) => username(r, w.owner_id),
        (w) => w.description,
      ]);
      const fields = {
        description: (w: WebhookRec) => w.description,
        id: (w: WebhookRec) => w.id,
        owner: (w: WebhookRec) => username(r, w.owner_id),
        project_id: (w: WebhookRec) => w.project_id,
        target_url: (w: WebhookRec) => w.target_url,
        type: (w: WebhookRec) => w.type,
        updated_date: (w: WebhookRec) => w.updated_date,
      };
      items = jsonLogicFilter(items, r.query('filter'), fields);
      items = sortBy(items, r.query('sort'), fields, '-id');
      return cvatJson(
        r.c,
        paginate(r, items, (w) => webhookRead(r.state, w)),
      );
    }),
  );

  app.post(
    '/api/webhooks',
    operation('webhooks.create'),
    api(deps, (r) => {
      const user = r.user();
      const ctx = r.orgContext();
      const body = r.body();
      const raw = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<
        string,
        unknown
      >;
      // The permission check reads type and project_id from the raw body, before validation.
      const projectIdRaw = raw.project_id;
      let project: ReturnType<typeof r.state.projects.get>;
      if (projectIdRaw !== undefined && projectIdRaw !== null && projectIdRaw !== '') {
        project = r.state.projects.get(Number(projectIdRaw));
        if (!project)
          throw new ApiFailure({
            code: 'INVALID_LIST',
            messages: [`Could not find project with provided id: ${String(projectIdRaw)}`],
          });
        if (!canView(r.state, user, { kind: 'project', rec: project })) throw new ApiFailure(denied());
      }
      if (!canCreateWebhook(r.state, user, ctx, raw.type, project)) throw new ApiFailure(denied());
      const result = validateWebhookWrite(body, { kind: 'create' });
      if (!result.ok) throw new ApiFailure(result.error);
      const v = result.value;
      const type = v.type as 'project' | 'organization';
      const projectId = v.project_id ?? null;
      if (type === 'project' && projectId === null)
        constraint(deps, 'project_id', 'A project webhook needs project_id.');
      if (type === 'organization' && projectId !== null)
        constraint(deps, 'project_id', 'An organization webhook cannot have a project.');
      // The organization is copied from the project, whatever org parameter was sent.
      const organizationId = project ? project.organization_id : (ctx.org?.id ?? null);
      if (type === 'organization' && organizationId === null) {
        if (!isAdmin(user)) throw new ApiFailure(denied());
        constraint(deps, 'organization', 'An organization webhook needs an organization.');
      }
      const now = formatDrfDate(r.now);
      const w: WebhookRec = {
        id: nextId(r.state, 'webhooks'),
        target_url: v.target_url as string,
        description: v.description ?? '',
        events: v.events ?? [],
        type,
        content_type: 'application/json',
        secret: v.secret ?? '',
        is_active: v.is_active ?? true,
        enable_ssl: v.enable_ssl ?? true,
        owner_id: user.id,
        project_id: projectId,
        organization_id: organizationId,
        created_date: now,
        updated_date: now,
      };
      r.state.webhooks.set(w.id, w);
      return cvatJson(r.c, webhookRead(r.state, w), 201);
    }),
  );

  app.get(
    '/api/webhooks/:id',
    operation('webhooks.retrieve', res),
    api(deps, (r) => cvatJson(r.c, webhookRead(r.state, loadWebhook(r, 'view')))),
  );

  for (const method of ['put', 'patch'] as const) {
    app[method](
      '/api/webhooks/:id',
      operation(method === 'put' ? 'webhooks.update' : 'webhooks.partial_update', res),
      api(deps, (r) => {
        const w = loadWebhook(r, 'update');
        const result = validateWebhookWrite(r.body(), { kind: method, stored: w });
        if (!result.ok) throw new ApiFailure(result.error);
        const v = result.value;
        // A new record in place of the old (the table's records are frozen: it sees every change).
        const next: Record<string, unknown> = { ...w };
        for (const key of [
          'target_url',
          'description',
          'content_type',
          'secret',
          'is_active',
          'enable_ssl',
          'events',
        ] as const) {
          if (v[key] !== undefined) next[key] = v[key];
        }
        next.updated_date = formatDrfDate(r.now);
        const updated = next as unknown as WebhookRec;
        r.state.webhooks.set(updated.id, updated);
        return cvatJson(r.c, webhookRead(r.state, updated));
      }),
    );
  }

  app.delete(
    '/api/webhooks/:id',
    operation('webhooks.destroy', res),
    api(deps, (r) => {
      const w = loadWebhook(r, 'delete');
      deleteWebhookCascade(r.state, w.id);
      return noContent(r.c);
    }),
  );

  const ping = api(deps, async (r) => {
    const w = loadWebhook(r, 'update');
    const payload = createPingPayload(webhookRead(r.state, w), basicUser(r.state, r.user().id));
    const row = await deps.delivery(r.state).sendNow(w.id, payload);
    return cvatJson(r.c, deliveryRead(row));
  });
  app.post('/api/webhooks/:id/ping', operation('webhooks.create_ping', res), ping);
  // The path the seed document names.
  app.post('/webhooks/:id/ping', operation('webhooks.create_ping', res), ping);

  app.get(
    '/api/webhooks/:id/deliveries',
    operation('webhooks.list_deliveries', res),
    api(deps, (r) => {
      const w = loadWebhook(r, 'view');
      const rows = [...r.state.deliveries.values()]
        .filter((d) => d.webhook_id === w.id)
        .sort((a, b) =>
          a.updated_date === b.updated_date ? b.id - a.id : a.updated_date < b.updated_date ? 1 : -1,
        );
      return cvatJson(r.c, paginate(r, rows, deliveryRead));
    }),
  );

  const loadDelivery = (r: ApiRequest, w: WebhookRec) => {
    const raw = r.c.req.param('delivery_id') ?? '';
    if (!/^\d+$/.test(raw)) throw new ApiFailure({ code: 'NOT_FOUND', detail: 'Not found.' });
    const d = r.state.deliveries.get(Number(raw));
    if (!d || d.webhook_id !== w.id) {
      // Faithful: WebhookDelivery.objects.get(...) raises DoesNotExist, unhandled → 500.
      if (deps.quirks.unknownDelivery500)
        throw new ApiFailure({ code: 'SERVER_ERROR', reason: 'WebhookDelivery.DoesNotExist' });
      throw new ApiFailure(notFound('WebhookDelivery'));
    }
    return d;
  };

  app.get(
    '/api/webhooks/:id/deliveries/:delivery_id',
    operation('webhooks.retrieve_deliveries', res),
    api(deps, (r) => cvatJson(r.c, deliveryRead(loadDelivery(r, loadWebhook(r, 'view'))))),
  );

  app.post(
    '/api/webhooks/:id/deliveries/:delivery_id/redelivery',
    operation('webhooks.create_deliveries_redelivery', res),
    api(deps, (r) => {
      const w = loadWebhook(r, 'update');
      const d = loadDelivery(r, w);
      // The stored payload goes out unchanged (same webhook_id and event), as a redelivery.
      deps.delivery(r.state).enqueue(w.id, d.request as Record<string, unknown>, { redelivery: true });
      return cvatJson(r.c, {});
    }),
  );
}

/** A row that breaks CVAT's DB check constraint: 500 (quirk) or, when switched off, a 400 field error. */
function constraint(deps: AppDeps, field: string, message: string): never {
  if (deps.quirks.webhookConstraint500) {
    throw new ApiFailure({
      code: 'SERVER_ERROR',
      reason: `IntegrityError: webhooks_project_or_organization (${message})`,
    });
  }
  throw new ApiFailure({ code: 'INVALID', errors: { [field]: [message] } });
}
