import type { Result as CoreResult } from '@sims/sim-core';

/**
 * Domain errors: one discriminated union; `renderApiError` (`src/http/respond.ts`) renders each code into
 * CVAT's DRF body and status in one exhaustive switch.
 */
export type ApiError =
  /** 401 `{"detail": "Authentication credentials were not provided."}` */
  | { code: 'NOT_AUTHENTICATED' }
  /** 401 with DRF's message, e.g. "Invalid token." */
  | { code: 'AUTHENTICATION_FAILED'; detail: string }
  /** 403, default "You do not have permission to perform this action." */
  | { code: 'PERMISSION_DENIED'; detail?: string }
  /** 404 `{"detail": "No Webhook matches the given query."}` or "Not found." */
  | { code: 'NOT_FOUND'; detail: string }
  /** 400 serializer errors `{"field": ["msg"]}` */
  | { code: 'INVALID'; errors: Record<string, unknown> }
  /** 400 bare list `["msg"]` (a ValidationError raised outside a serializer) */
  | { code: 'INVALID_LIST'; messages: string[] }
  /** 400 bare JSON string */
  | { code: 'INVALID_STRING'; message: string }
  /** 400 `{"detail": "JSON parse error - ..."}` */
  | { code: 'PARSE_ERROR'; detail: string }
  /** 405 */
  | { code: 'METHOD_NOT_ALLOWED'; method: string }
  /** 415 */
  | { code: 'UNSUPPORTED_MEDIA_TYPE'; mediaType: string }
  /** 500: Django's HTML error page (an unhandled exception or a DB constraint in the real service). */
  | { code: 'SERVER_ERROR'; reason: string };

/**
 * What a domain decision (and an edge check: authentication, the organization context, a list's query)
 * returns: the value, or the error the HTTP layer renders once (`renderApiError`). No client error is
 * thrown past its function (the JSON Logic interpreter unwinds its own, `json-logic-python.ts`).
 */
export type Result<T, E = ApiError> = CoreResult<T, E>;

export { fail, ok } from '@sims/sim-core';

export const notFound = (model: string): ApiError => ({
  code: 'NOT_FOUND',
  detail: `No ${model} matches the given query.`,
});
export const denied = (detail?: string): ApiError => ({
  code: 'PERMISSION_DENIED',
  ...(detail ? { detail } : {}),
});
export const invalid = (errors: Record<string, unknown>): ApiError => ({ code: 'INVALID', errors });
