import type { RpcCodeName } from '../domain/state';
import { describe, type ErrorContext, type HttpError, type Rendered } from './error-texts';

export type { ErrorContext, HttpError } from './error-texts';

/** `google.rpc.Code` → HTTP status and the front end's legacy `errors[].reason` (reference 5.2, 5.3). */
export const RPC_STATUS: Readonly<Record<RpcCodeName, { http: number; reason: string }>> = {
  OK: { http: 200, reason: 'ok' },
  CANCELLED: { http: 499, reason: 'cancelled' },
  UNKNOWN: { http: 500, reason: 'backendError' },
  INVALID_ARGUMENT: { http: 400, reason: 'badRequest' },
  DEADLINE_EXCEEDED: { http: 504, reason: 'deadlineExceeded' },
  NOT_FOUND: { http: 404, reason: 'notFound' },
  ALREADY_EXISTS: { http: 409, reason: 'alreadyExists' },
  PERMISSION_DENIED: { http: 403, reason: 'forbidden' },
  RESOURCE_EXHAUSTED: { http: 429, reason: 'rateLimitExceeded' },
  FAILED_PRECONDITION: { http: 400, reason: 'failedPrecondition' },
  ABORTED: { http: 409, reason: 'aborted' },
  OUT_OF_RANGE: { http: 400, reason: 'outOfRange' },
  UNIMPLEMENTED: { http: 501, reason: 'notImplemented' },
  INTERNAL: { http: 500, reason: 'backendError' },
  UNAVAILABLE: { http: 503, reason: 'backendError' },
  DATA_LOSS: { http: 500, reason: 'backendError' },
  UNAUTHENTICATED: { http: 401, reason: 'authError' },
};

/** Headers Google's front end puts on every JSON answer. */
export function googleHeaders(requestId: string): Record<string, string> {
  return {
    'content-type': 'application/json; charset=UTF-8',
    vary: 'Origin, X-Origin, Referer',
    server: 'ESF',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
    'x-xss-protection': '0',
    'x-sim-request-id': requestId,
  };
}

/** Longest error message answered: texts that quote an input (a version, a name) are cut, never echo it whole. */
const MAX_MESSAGE = 4096;

function errorBody(error: HttpError, ctx: ErrorContext) {
  const r = describe(error, ctx);
  const message = r.message.length > MAX_MESSAGE ? `${r.message.slice(0, MAX_MESSAGE)}…` : r.message;
  const { http, reason } = RPC_STATUS[r.status];
  return {
    http,
    body: {
      error: {
        code: http,
        message,
        errors: [
          {
            message: r.legacy?.message ?? message,
            ...(r.legacy?.noDomain ? {} : { domain: 'global' }),
            reason: r.legacy?.reason ?? reason,
            ...legacyLocation(r),
          },
        ],
        status: r.status,
        ...(r.details.length > 0 ? { details: r.details } : {}),
      },
    },
  };
}

function legacyLocation(r: Rendered) {
  return r.legacy?.location ? { location: r.legacy.location, locationType: r.legacy.locationType } : {};
}

/** An error a fault rule's domain effect made (busy cluster, quota, the stale etag after etagBump). */
type FromRule = { faultRule?: string };

/**
 * `error` as the answer of fault rule `ruleId` (a domain effect's): it is rendered with
 * `X-Sim-Reason: fault:{ruleId}`, as the answers the kernel makes for generic rules are. The rule id
 * travels on the error itself (no module-level table: ARCHITECTURE.md).
 */
export function fromFaultRule<E extends HttpError>(error: E, ruleId: string | undefined): E {
  return ruleId === undefined ? error : { ...error, faultRule: ruleId };
}

/**
 * The one renderer from an error to Google's REST error response: `{error: {code, message, errors,
 * status, details}}`, HTTP status from the canonical code, `application/json; charset=UTF-8`.
 */
export function renderError(error: HttpError, ctx: ErrorContext): Response {
  const { http, body } = errorBody(error, ctx);
  const headers: Record<string, string> = googleHeaders(ctx.requestId);
  // The simulator's own refusals say so, for the test reading them (GKE sends no such header).
  if (error.code === 'NOT_SIMULATED' || error.code === 'METHOD_NOT_SIMULATED')
    headers['x-sim-reason'] = 'not-simulated';
  // GKE's own 500, emulated: the header says why, so that it is not taken for a simulator fault.
  if (error.code === 'POOL_NAME_REPEATED') headers['x-sim-reason'] = 'gke-internal-error-repeated-pool-name';
  // An answer a fault rule's domain effect made says which rule (FIDELITY.md: `fault:{rule id}`).
  const rule = (error as FromRule).faultRule;
  if (rule !== undefined) headers['x-sim-reason'] = `fault:${rule}`;
  return new Response(JSON.stringify(body), { status: http, headers });
}
