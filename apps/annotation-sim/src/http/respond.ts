import type { Context } from 'hono';
import type { ApiError } from '../domain/errors';

/** CVAT's renderer media type: every JSON response of the API carries it. */
export const CVAT_JSON = 'application/vnd.cvat+json';

/** A JSON response as CVAT's `CVATAPIRenderer` writes it. */
export function cvatJson(
  c: Context,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return carriesRequestId(
    new Response(JSON.stringify(body), {
      status,
      headers: { 'Content-Type': CVAT_JSON, 'X-Request-Id': requestIdOf(c), ...headers },
    }),
  );
}

/** A JSON response as {@link cvatJson} writes it, from JSON already made as bytes (large answers). */
export function cvatJsonBytes(c: Context, body: Uint8Array, status = 200): Response {
  return carriesRequestId(
    new Response(body as Uint8Array<ArrayBuffer>, {
      status,
      headers: { 'Content-Type': CVAT_JSON, 'X-Request-Id': requestIdOf(c) },
    }),
  );
}

/** DRF's `Response(None, status)`: an empty body and no Content-Type. */
export function emptyBody(c: Context, status = 204, headers: Record<string, string> = {}): Response {
  return carriesRequestId(
    new Response(null, { status, headers: { 'X-Request-Id': requestIdOf(c), ...headers } }),
  );
}

export function noContent(c: Context): Response {
  return emptyBody(c, 204);
}

/** Responses made here with their X-Request-Id already set (see `hasRequestId`). */
const withRequestId = new WeakSet<Response>();

function carriesRequestId(res: Response): Response {
  withRequestId.add(res);
  return res;
}

/**
 * Whether a response already carries X-Request-Id. Responses made by `cvatJson` and `noContent` are
 * known to: asking their headers would make @hono/node-server turn its lightweight Response's plain
 * header record into a Headers object on every request (measured in bench/).
 */
export function hasRequestId(res: Response): boolean {
  return withRequestId.has(res) || res.headers.has('X-Request-Id');
}

function requestIdOf(c: Context): string {
  const sim = c.get('sim') as { requestId?: string } | undefined;
  return sim?.requestId ?? '';
}

/**
 * A text as a header value can carry it: printable ASCII, everything else escaped (`\u0100`), at most 200
 * characters. Reasons quote inputs (an `org_id`, a date), which may hold any character.
 */
function headerText(text: string): string {
  const ascii = text.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return ascii.length > 200 ? `${ascii.slice(0, 200)}...` : ascii;
}

/** The message of DRF's `PermissionDenied` and of CVAT's permission checks. */
export const PERMISSION_DENIED = 'You do not have permission to perform this action.';

/** Django's `ERROR_PAGE_TEMPLATE` (django/views/defaults.py): its error pages with DEBUG off and no template. */
function djangoErrorPage(title: string, details = ''): string {
  return `\n<!doctype html>\n<html lang="en">\n<head>\n  <title>${title}</title>\n</head>\n<body>\n  <h1>${title}</h1><p>${details}</p>\n</body>\n</html>\n`;
}

/** Django's 500 page: what CVAT returns for an unhandled exception. */
export const DJANGO_500_PAGE = djangoErrorPage('Server Error (500)');
/** Django's 400 page: its answer to a SuspiciousOperation such as RequestDataTooBig. */
export const DJANGO_400_PAGE = djangoErrorPage('Bad Request (400)');
/** Django's 404 page for a URL no route serves. */
export const DJANGO_404_PAGE = djangoErrorPage(
  'Not Found',
  'The requested resource was not found on this server.',
);

/**
 * A Django HTML response (`HttpResponse…(text)` or an error page), `text/html; charset=utf-8`.
 *
 * @example djangoHtml(c, 404, 'There is no request with specified id')
 */
export function djangoHtml(
  c: Context,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): Response {
  return carriesRequestId(
    new Response(body, {
      status,
      headers: { 'Content-Type': 'text/html; charset=utf-8', 'X-Request-Id': requestIdOf(c), ...headers },
    }),
  );
}

/**
 * One of Django's own error pages (`django.views.defaults`: 400, 404, 500). Django gives them
 * `content_type="text/html"` with no charset, unlike an `HttpResponse` a view returns.
 *
 * @example djangoErrorResponse(c, 404, DJANGO_404_PAGE)
 */
export function djangoErrorResponse(
  c: Context,
  status: 400 | 404 | 500,
  page: string,
  headers: Record<string, string> = {},
): Response {
  return djangoHtml(c, status, page, { ...headers, 'Content-Type': 'text/html' });
}

/** Django's answer to an unhandled exception, with what the simulator meant in `X-Sim-Reason`. */
export function djangoServerError(c: Context, reason: string): Response {
  return djangoErrorResponse(c, 500, DJANGO_500_PAGE, { 'X-Sim-Reason': headerText(reason) });
}

/** Longest message text a 400 answers: DRF quotes the value it refused, which may be 100 MiB long. */
const MAX_MESSAGE = 1000;

/**
 * An error body with every text cut at {@link MAX_MESSAGE} characters (then `…`): CVAT would quote a
 * refused value whole; the simulator never echoes an unbounded input (FIDELITY.md, Limits).
 */
function bounded<T>(body: T): T {
  if (typeof body === 'string')
    return (body.length > MAX_MESSAGE ? `${body.slice(0, MAX_MESSAGE)}…` : body) as T;
  if (Array.isArray(body)) return body.map((v) => bounded(v)) as T;
  if (body !== null && typeof body === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body))
      out[k.length > MAX_MESSAGE ? `${k.slice(0, MAX_MESSAGE)}…` : k] = bounded(v);
    return out as T;
  }
  return body;
}

/** The detail DRF's exception of each status gives by default (`APIException.default_detail`). */
const DEFAULT_DETAIL: Readonly<Record<number, string>> = {
  400: 'Invalid input.',
  409: 'This resource is currently busy with another operation. Please try again in a moment.',
  429: 'Request was throttled.',
  503: 'Service temporarily unavailable, try again later.',
};

/**
 * An injected fault's answer (a fault rule's `error` effect): the status with `message` as DRF's
 * `detail`, or that status's default detail. The statuses `renderApiError` knows (401, 403, 404) are
 * its answers, headers included; a 500 without a message is Django's error page.
 */
export function renderFaultError(c: Context, status: number, message: string | undefined): Response {
  switch (status) {
    case 401:
      return renderApiError(
        c,
        message === undefined
          ? { code: 'NOT_AUTHENTICATED' }
          : { code: 'AUTHENTICATION_FAILED', detail: message },
      );
    case 403:
      return renderApiError(c, {
        code: 'PERMISSION_DENIED',
        ...(message === undefined ? {} : { detail: message }),
      });
    case 404:
      return renderApiError(c, { code: 'NOT_FOUND', detail: message ?? 'Not found.' });
    case 500:
      if (message === undefined) return djangoErrorResponse(c, 500, DJANGO_500_PAGE);
  }
  return cvatJson(c, { detail: message ?? DEFAULT_DETAIL[status] ?? 'A server error occurred.' }, status);
}

/**
 * The one place domain errors become HTTP: DRF's bodies and statuses. Authentication failures carry
 * `WWW-Authenticate: Token` because TokenAuthentication is CVAT's first authentication class.
 */
export function renderApiError(c: Context, error: ApiError): Response {
  switch (error.code) {
    case 'NOT_AUTHENTICATED':
      return cvatJson(c, { detail: 'Authentication credentials were not provided.' }, 401, {
        'WWW-Authenticate': 'Token',
      });
    case 'AUTHENTICATION_FAILED':
      return cvatJson(c, { detail: error.detail }, 401, { 'WWW-Authenticate': 'Token' });
    case 'PERMISSION_DENIED':
      return cvatJson(c, { detail: error.detail ?? PERMISSION_DENIED }, 403);
    case 'NOT_FOUND':
      return cvatJson(c, { detail: error.detail }, 404);
    case 'INVALID':
      return cvatJson(c, bounded(error.errors), 400);
    case 'INVALID_LIST':
      return cvatJson(c, bounded(error.messages), 400);
    case 'INVALID_STRING':
      return cvatJson(c, bounded(error.message), 400);
    case 'PARSE_ERROR':
      return cvatJson(c, { detail: bounded(error.detail) }, 400);
    case 'METHOD_NOT_ALLOWED':
      return cvatJson(c, { detail: `Method "${error.method}" not allowed.` }, 405);
    case 'UNSUPPORTED_MEDIA_TYPE':
      return cvatJson(c, { detail: `Unsupported media type "${error.mediaType}" in request.` }, 415);
    case 'SERVER_ERROR':
      return djangoServerError(c, error.reason);
  }
}
