import type { SimEnv } from '@sims/sim-core';
import type { Context } from 'hono';
import type { ExportError } from '../../domain/events/export';
import { headerText } from '../respond';

/**
 * Responses of the events endpoints, in CVAT's shapes: DRF JSON as `application/vnd.cvat+json`,
 * Django's plain-text `HttpResponseBadRequest`/`HttpResponseNotFound`, Django's HTML 500 page. Every
 * response carries `X-Request-Id`.
 */

export const CVAT_JSON = 'application/vnd.cvat+json';
/** RFC 9745 `Deprecation` of the legacy `GET /api/events` (deprecated 2025-03-17 UTC). */
export const DEPRECATION_HEADER = '@1742169600';

type Ctx<S> = Context<SimEnv<S>>;

function base<S>(c: Ctx<S>, status: number, headers: Record<string, string>, body: string | null): Response {
  const h = new Headers(headers);
  h.set('x-request-id', c.var.sim.requestId);
  return new Response(body, { status, headers: h });
}

/** DRF `Response(data, status)`; a null body (DRF renders `b''`) has no Content-Type. */
export function drf<S>(
  c: Ctx<S>,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): Response {
  if (body === null) return base(c, status, extra, null);
  return base(c, status, { 'content-type': CVAT_JSON, ...extra }, JSON.stringify(body));
}

/** Django `HttpResponseBadRequest("…")` / `HttpResponseNotFound("…")`. */
export function plain<S>(c: Ctx<S>, status: number, text: string): Response {
  return base(c, status, { 'content-type': 'text/html; charset=utf-8' }, text);
}

/** Django's response to an unhandled exception (DEBUG off, no 500 template), with what the simulator meant. */
export function serverError<S>(c: Ctx<S>, reason = 'cvat-server-error'): Response {
  return base(
    c,
    500,
    { 'content-type': 'text/html; charset=utf-8', 'x-sim-reason': headerText(reason) },
    '<h1>Server Error (500)</h1>',
  );
}

export const PERMISSION_DENIED = 'You do not have permission to perform this action.';

/** The one place export errors become responses. */
export function renderExportError<S>(c: Ctx<S>, error: ExportError): Response {
  switch (error.code) {
    case 'FORBIDDEN':
      return drf(c, 403, { detail: error.detail ?? PERMISSION_DENIED });
    case 'INVALID_LIST':
      return drf(c, 400, error.messages);
    case 'CONFLICT':
      return drf(c, 409, { rq_id: error.rqId });
    case 'SERVER_ERROR':
      return serverError(c, error.reason);
  }
}
