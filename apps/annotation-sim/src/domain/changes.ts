import type { ResourceKind } from './model';

/** Who made a change: a user through the API, or a background worker acting for a user. */
export type Actor =
  | {
      kind: 'user';
      id: number;
      username: string;
      email: string;
      requestId?: string;
      accessTokenId?: number | null;
      userAgent?: string | null;
    }
  | { kind: 'worker'; id: number; username: string; email: string; requestId?: string };

export type ChangeAction = 'create' | 'update' | 'delete';

/**
 * One create/update/delete of a CVAT resource. Every mutation in the domain appends one to its
 * context's list (`MutationContext.changes`); the edge hands the list to webhooks and the server event
 * log (`src/changes-dispatch.ts`).
 */
export interface ResourceChange {
  /** `create:task`, `update:job`, `delete:comment`, ... (the webhook event key). */
  scope: `${ChangeAction}:${ResourceKind}`;
  action: ChangeAction;
  kind: ResourceKind;
  id: number | string;
  /** The resource as its GET returns it (for delete: the snapshot taken before deletion). */
  resource: Record<string, unknown>;
  /** For updates: the representation before the change. */
  before?: Record<string, unknown>;
  /** For updates: CVAT 2.73 `before_update`: model attribute names → old values. */
  beforeUpdate?: Record<string, unknown>;
  /** For updates: `{field: {from, to}}` over the same keys. */
  changes?: Record<string, { from: unknown; to: unknown }>;
  actor: Actor | null;
  /** The organization the resource belongs to (after the change). */
  org: { id: number; slug: string } | null;
  /** For a project/task moved between organizations: the organization before the move. */
  previousOrg?: { id: number; slug: string } | null;
  projectId: number | null;
  taskId: number | null;
  jobId: number | null;
  /** Clock time of the change, ISO-8601. */
  time: string;
  /** `X-Request-Id` of the request that caused the change. */
  requestId?: string | null;
  /** The personal access token the request used, if any (server events record it). */
  accessTokenId?: number | null;
  /** The request's User-Agent (server events record it in `payload.request`). */
  userAgent?: string | null;
  /**
   * `false`: a change CVAT sends webhooks for but logs no server event of (a `touch()` of
   * `updated_date` by an annotation write).
   */
  logged?: false;
}
