/**
 * Webhook decisions: who may list, create, see or change webhooks (CVAT's `webhooks.rego`, in
 * `access.ts`), what a create may carry beyond the serializer (`webhooks.ts`), and the writes that store
 * them. Each decision returns a `Result` whose error is the answer CVAT gives.
 */
import { canAccessWebhook, canCreateWebhook, canListWebhooks, canView, isAdmin } from './access';
import { formatDrfDate } from './dates';
import { type ApiError, denied, fail, invalid, notFound, ok, type Result } from './errors';
import type { DeliveryRec, ProjectRec, UserRec, WebhookRec } from './model';
import type { OrgContext } from './org-context';
import { deliveriesOfWebhook } from './relations';
import { type AnnotationState, nextId } from './state';
import { type WebhookInput, webhookFields } from './webhooks';

/** What a new webhook is made of: the checked body and where it belongs. */
export interface WebhookCreation {
  input: WebhookInput;
  type: 'project' | 'organization';
  projectId: number | null;
  organizationId: number | null;
}

/** Listing webhooks: any member in an organization context; non-members 403. */
export function mayListWebhooks(state: AnnotationState, user: UserRec, ctx: OrgContext): Result<void> {
  return canListWebhooks(state, user, ctx) ? ok(undefined) : fail(denied());
}

/** The webhook if `user` may act on it in `scope` (ping, deliveries and redelivery are `update`/`view`). */
export function mayAccessWebhook(
  state: AnnotationState,
  user: UserRec,
  w: WebhookRec,
  scope: 'view' | 'update' | 'delete',
): Result<WebhookRec> {
  return canAccessWebhook(state, user, w, scope) ? ok(w) : fail(denied());
}

/**
 * What CVAT's permission check reads from the raw body before the serializer validates it (the edge
 * reads it from the parsed JSON): `type` when it is a string, and `project_id` when it is given (not
 * null or blank) as the id it looks up and the text its error quotes.
 */
export interface WebhookClaim {
  type: string | undefined;
  project: { id: number; text: string } | undefined;
}

/**
 * Creating a webhook, decided on the raw body's claim before its fields are checked: the project it
 * names exists (else DRF's bare-list 400) and is visible, and the caller may create a webhook of that
 * type there. Gives the project, if one is named.
 */
export function mayCreateWebhook(
  state: AnnotationState,
  user: UserRec,
  ctx: OrgContext,
  claim: WebhookClaim,
): Result<ProjectRec | undefined> {
  let project: ProjectRec | undefined;
  if (claim.project !== undefined) {
    project = state.projects.get(claim.project.id);
    if (!project)
      return fail({
        code: 'INVALID_LIST',
        messages: [`Could not find project with provided id: ${claim.project.text}`],
      });
    if (!canView(state, user, { kind: 'project', rec: project })) return fail(denied());
  }
  if (!canCreateWebhook(state, user, ctx, claim.type, project)) return fail(denied());
  return ok(project);
}

/**
 * A new webhook from its checked fields, once {@link mayCreateWebhook} allowed it: the events suit its
 * type; a row CVAT's DB check constraint would refuse is its 500 (`constraint500`) or else a 400 on the
 * field. The organization is copied from the project, whatever organization context the request names.
 */
export function webhookCreation(
  user: UserRec,
  ctx: OrgContext,
  project: ProjectRec | undefined,
  fields: WebhookInput,
  constraint500: boolean,
): Result<WebhookCreation> {
  const type = fields.type as 'project' | 'organization';
  const result = webhookFields(fields, type);
  if (!result.ok) return result;
  const input = result.value;
  const projectId = input.project_id ?? null;
  if (type === 'project' && projectId === null)
    return constraint(constraint500, 'project_id', 'A project webhook needs project_id.');
  if (type === 'organization' && projectId !== null)
    return constraint(constraint500, 'project_id', 'An organization webhook cannot have a project.');
  const organizationId = project ? project.organization_id : (ctx.org?.id ?? null);
  if (type === 'organization' && organizationId === null) {
    if (!isAdmin(user)) return fail(denied());
    return constraint(constraint500, 'organization', 'An organization webhook needs an organization.');
  }
  return ok({ input, type, projectId, organizationId });
}

/** A row that breaks CVAT's DB check constraint: 500 (quirk) or, when switched off, a 400 field error. */
function constraint(constraint500: boolean, field: string, message: string): Result<never> {
  const error: ApiError = constraint500
    ? { code: 'SERVER_ERROR', reason: `IntegrityError: webhooks_project_or_organization (${message})` }
    : invalid({ [field]: [message] });
  return fail(error);
}

export function createWebhook(
  state: AnnotationState,
  now: number,
  ownerId: number,
  { input, type, projectId, organizationId }: WebhookCreation,
): WebhookRec {
  const date = formatDrfDate(now);
  const w: WebhookRec = {
    id: nextId(state, 'webhooks'),
    target_url: input.target_url as string,
    description: input.description ?? '',
    events: input.events ?? [],
    type,
    content_type: 'application/json',
    secret: input.secret ?? '',
    is_active: input.is_active ?? true,
    enable_ssl: input.enable_ssl ?? true,
    owner_id: ownerId,
    project_id: projectId,
    organization_id: organizationId,
    created_date: date,
    updated_date: date,
  };
  state.webhooks.set(w.id, w);
  return w;
}

const UPDATABLE = [
  'target_url',
  'description',
  'content_type',
  'secret',
  'is_active',
  'enable_ssl',
  'events',
] as const;

/**
 * Stores a PUT or PATCH: a new record in place of the old (the table's records are frozen, so it sees
 * every change), with the fields the body carries.
 */
export function updateWebhook(
  state: AnnotationState,
  now: number,
  w: WebhookRec,
  input: WebhookInput,
): WebhookRec {
  const next: Record<string, unknown> = { ...w };
  for (const key of UPDATABLE) if (input[key] !== undefined) next[key] = input[key];
  next.updated_date = formatDrfDate(now);
  const updated = next as unknown as WebhookRec;
  state.webhooks.set(updated.id, updated);
  return updated;
}

/** A webhook's deliveries, most recently updated first (ties: newest id first). */
export function deliveriesOf(state: AnnotationState, w: WebhookRec): DeliveryRec[] {
  return deliveriesOfWebhook(state, w.id).sort((a, b) =>
    a.updated_date === b.updated_date ? b.id - a.id : a.updated_date < b.updated_date ? 1 : -1,
  );
}

/**
 * One of the webhook's deliveries. CVAT's `WebhookDelivery.objects.get(...)` raises DoesNotExist for
 * another's or an unknown id, unhandled: 500 (`unknown500`), else 404.
 */
export function findDelivery(
  state: AnnotationState,
  w: WebhookRec,
  id: number,
  unknown500: boolean,
): Result<DeliveryRec> {
  const d = state.deliveries.get(id);
  if (d && d.webhook_id === w.id) return ok(d);
  return fail(
    unknown500
      ? { code: 'SERVER_ERROR', reason: 'WebhookDelivery.DoesNotExist' }
      : notFound('WebhookDelivery'),
  );
}
