import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

const REASONS: Record<number, string> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  500: 'INTERNAL',
  /** The simulator holds as many namespaces as it may (`maxNamespaces`). */
  507: 'NAMESPACE_LIMIT',
};

/**
 * The control plane's own error envelope (never the emulated API's):
 * `{ "error": { "status": 400, "reason": "INVALID_INPUT", "message": "...", "path": "trigger.times" } }`.
 */
export function controlError(c: Context, status: number, message: string, path?: string): Response {
  return c.json(
    { error: { status, reason: REASONS[status] ?? 'ERROR', message, ...(path ? { path } : {}) } },
    status as ContentfulStatusCode,
  );
}
