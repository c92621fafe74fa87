import type { DomainError } from '../domain/errors';
import { locationSegment } from '../domain/names';
import { EMPTY_UPDATE_MESSAGE } from '../domain/node-pools';
import { DEFAULT_SETTINGS, type RpcCodeName } from '../domain/state';

/** Errors the HTTP edge adds to the domain's: auth, request parsing, routing, injected faults. */
export type HttpError =
  | DomainError
  | { code: 'CREDENTIALS_MISSING'; apiKey: boolean }
  | { code: 'CREDENTIALS_INVALID'; reason: 'ACCESS_TOKEN_EXPIRED' | 'ACCESS_TOKEN_TYPE_UNSUPPORTED' }
  | { code: 'SCOPE_INSUFFICIENT' }
  | { code: 'PERMISSION_DENIED'; permission: string; resource: string }
  | { code: 'BAD_PAYLOAD'; violations: { field?: string; description: string }[] }
  /** A bad enum value: `field` the snake_case path, `enumType` the enum's full v1beta1 name, `value` as quoted. */
  | { code: 'INVALID_ENUM'; field: string; enumType: string; value: string }
  | { code: 'ROUTE_NOT_FOUND'; method: string; path: string }
  /** A method of the API the simulator refuses as a whole: its RPC, discovery id and why. */
  | { code: 'METHOD_NOT_SIMULATED'; rpc: string; id: string; reason: string }
  | { code: 'INJECTED'; status: RpcCodeName; message?: string; reason?: string }
  | { code: 'PAYLOAD_TOO_LARGE'; limit: number }
  | { code: 'INTERNAL' };

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

/** Generic front-end texts for injected errors without a message of their own. */
const DEFAULT_MESSAGES: Partial<Record<RpcCodeName, string>> = {
  UNAVAILABLE: 'The service is currently unavailable.',
  INTERNAL: 'Internal error encountered.',
  DEADLINE_EXCEEDED: 'The request deadline was exceeded.',
  ABORTED: 'The operation was aborted.',
  RESOURCE_EXHAUSTED: 'Resource has been exhausted (e.g. check quota).',
  UNKNOWN: 'Unknown error.',
};

const AUTH_HELP =
  'Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

export interface ErrorContext {
  requestId: string;
  /** The RPC, e.g. `google.container.v1beta1.ClusterManager.UpdateNodePool`. */
  method?: string;
  /** The world's ABORTED text template for a stale etag. */
  etagMessage?: string;
}

interface Rendered {
  status: RpcCodeName;
  message: string;
  /**
   * The legacy `errors[0]`; its `message` defaults to the top-level one (the front end's 401s differ), its
   * `domain` is `global` unless `noDomain`.
   */
  legacy?: {
    reason?: string;
    location?: string;
    locationType?: string;
    message?: string;
    noDomain?: boolean;
  };
  details: Record<string, unknown>[];
}

/** The front end's request id form: `0x` and 16 hex digits (taken from the journal's request id). */
function googleRequestId(requestId: string): string {
  return `0x${requestId.replace(/-/g, '').slice(0, 16)}`;
}

function describe(error: HttpError, ctx: ErrorContext): Rendered {
  const requestInfo = {
    '@type': 'type.googleapis.com/google.rpc.RequestInfo',
    requestId: googleRequestId(ctx.requestId),
  };
  const errorInfo = (reason: string, domain = 'googleapis.com') => ({
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason,
    domain,
    metadata: { service: 'container.googleapis.com', ...(ctx.method ? { method: ctx.method } : {}) },
  });
  const plain = (status: RpcCodeName, message: string): Rendered => ({
    status,
    message,
    details: [requestInfo],
  });
  switch (error.code) {
    case 'CLUSTER_NOT_FOUND':
      return {
        status: 'NOT_FOUND',
        message: `Not found: projects/${error.project}/${locationSegment(error.location)}/${error.location}/clusters/${error.cluster}.`,
        details: [],
      };
    case 'NODE_POOL_NOT_FOUND':
      return {
        status: 'NOT_FOUND',
        message: `Not found: node pool "${error.nodePool}" not found.`,
        details: [],
      };
    case 'OPERATION_NOT_FOUND':
      return {
        status: 'NOT_FOUND',
        message: `Not found: projects/${error.project}/${locationSegment(error.location)}/${error.location}/operations/${error.operation}.`,
        details: [],
      };
    case 'ETAG_MISMATCH':
      return plain(
        'ABORTED',
        etagMessage(ctx.etagMessage ?? DEFAULT_SETTINGS.etagMismatchMessage, error.nodePool, error.given),
      );
    case 'EMPTY_UPDATE':
      return plain('INVALID_ARGUMENT', EMPTY_UPDATE_MESSAGE);
    case 'NOT_SIMULATED':
      // Not a text GKE gives: GKE would apply the change. 501 with X-Sim-Reason (renderError) tells the
      // test what happened instead of answering DONE for a change that never happens.
      return plain(
        'UNIMPLEMENTED',
        `${error.what}: not simulated by cluster-sim, so the request is refused rather than accepted and ignored (see cluster-sim's FIDELITY.md).`,
      );
    case 'CLUSTER_UPDATE_EMPTY':
      // The real body (recorded by mockgcp's authors) has no details.
      return { status: 'INVALID_ARGUMENT', message: 'Must specify a field to update.', details: [] };
    case 'NODE_POOL_ID_REQUIRED':
      // Sic: the real text ends with two periods (terraform-provider-google#1274).
      return plain(
        'INVALID_ARGUMENT',
        'Node pool id must be specified if cluster has more than one node pool..',
      );
    case 'VERSION_UNSUPPORTED':
      return plain('INVALID_ARGUMENT', `Node version "${error.version}" is unsupported.`);
    case 'MASTER_VERSION_UNSUPPORTED':
      return plain('INVALID_ARGUMENT', `Master version "${error.version}" is unsupported.`);
    case 'VERSION_MINOR_ABOVE_MASTER':
      return plain(
        'INVALID_ARGUMENT',
        `Node version "${error.version}" must not have a greater minor version than master version "${error.master}".`,
      );
    case 'VERSION_ABOVE_MASTER':
      return plain(
        'INVALID_ARGUMENT',
        `desired node version "${error.version}" cannot be greater than current master version "${error.master}".`,
      );
    case 'VERSION_TOO_OLD':
      return plain(
        'INVALID_ARGUMENT',
        `Node version "${error.version}" is too old: node versions may be at most ${error.maxSkew} minor versions older than master version "${error.master}".`,
      );
    case 'CLUSTER_BUSY': {
      if (error.style === 'legacy') {
        const doing =
          error.operationType === 'DELETE_NODE_POOL'
            ? 'deleting a node pool for'
            : error.operationType === 'CREATE_NODE_POOL'
              ? 'creating a node pool for'
              : 'upgrading';
        return plain(
          'FAILED_PRECONDITION',
          `Operation ${error.operation} is currently ${doing} cluster ${error.cluster}. Please wait and try again once it is done.`,
        );
      }
      return plain('FAILED_PRECONDITION', `Cluster is running incompatible operation ${error.operation}.`);
    }
    case 'TOO_MANY_OPERATIONS':
      return plain(
        'RESOURCE_EXHAUSTED',
        `Too many operations: cluster "${error.cluster}" hits the concurrent operations quota ${error.quota}, please try again later.`,
      );
    case 'NODE_POOL_ALREADY_EXISTS':
      return {
        status: 'ALREADY_EXISTS',
        message: `Already exists: projects/${error.project}/locations/${error.location}/clusters/${error.cluster}/nodePools/${error.nodePool}.`,
        details: [requestInfo],
      };
    case 'CLUSTER_ALREADY_EXISTS':
      return {
        status: 'ALREADY_EXISTS',
        message: `Already exists: projects/${error.project}/locations/${error.location}/clusters/${error.cluster}.`,
        details: [requestInfo],
      };
    case 'OPERATION_ALREADY_DONE':
      return plain(
        'FAILED_PRECONDITION',
        `Operation ${error.operation} is already done and cannot be cancelled.`,
      );
    case 'REGIONAL_CLUSTER_VIA_ZONE':
      return plain(
        'INVALID_ARGUMENT',
        "'zone' field cannot be used to access GKE regional clusters. Use 'name' field instead.",
      );
    case 'INVALID_REQUEST':
      return {
        status: 'INVALID_ARGUMENT',
        message: error.message,
        details: [
          requestInfo,
          ...(error.field
            ? [
                {
                  '@type': 'type.googleapis.com/google.rpc.BadRequest',
                  fieldViolations: [{ field: error.field, description: error.message }],
                },
              ]
            : []),
        ],
      };
    case 'FAILED_PRECONDITION':
      return plain('FAILED_PRECONDITION', error.message);
    case 'POOL_NAME_REPEATED':
      return plain('INTERNAL', 'Internal error encountered.');
    case 'CREDENTIALS_MISSING':
      return {
        status: 'UNAUTHENTICATED',
        message: error.apiKey
          ? 'API keys are not supported by this API. Expected OAuth2 access token or other authentication credentials that assert a principal. See https://cloud.google.com/docs/authentication'
          : `Request is missing required authentication credential. ${AUTH_HELP}`,
        legacy: error.apiKey
          ? { reason: 'required' }
          : {
              reason: 'required',
              location: 'Authorization',
              locationType: 'header',
              message: 'Login Required.',
            },
        details: [errorInfo('CREDENTIALS_MISSING')],
      };
    case 'CREDENTIALS_INVALID':
      return {
        status: 'UNAUTHENTICATED',
        message: `Request had invalid authentication credentials. ${AUTH_HELP}`,
        legacy: {
          reason: 'authError',
          location: 'Authorization',
          locationType: 'header',
          message: 'Invalid Credentials',
        },
        details: [errorInfo(error.reason)],
      };
    case 'SCOPE_INSUFFICIENT':
      return {
        status: 'PERMISSION_DENIED',
        message: 'Request had insufficient authentication scopes.',
        legacy: { reason: 'insufficientPermissions', message: 'Insufficient Permission' },
        details: [errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT')],
      };
    case 'PERMISSION_DENIED':
      return plain(
        'PERMISSION_DENIED',
        `Required "${error.permission}" permission(s) for "${error.resource}".`,
      );
    case 'BAD_PAYLOAD':
      return {
        status: 'INVALID_ARGUMENT',
        message: error.violations.map((v) => v.description).join('\n'),
        details: [
          { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: error.violations },
        ],
      };
    case 'INVALID_ENUM': {
      // GKE's body for a bad enum value (recorded, docs/research/gke-recordings.md): the enum's type URL
      // under the request's API version, errors[0] with reason "invalid" and no domain, no details.
      const version = /^google\.container\.(v1beta1|v1)\./.exec(ctx.method ?? '')?.[1] ?? 'v1beta1';
      const type = error.enumType.replace(/^google\.container\.v1beta1\./, `google.container.${version}.`);
      return {
        status: 'INVALID_ARGUMENT',
        message: `Invalid value at '${error.field}' (type.googleapis.com/${type}), ${error.value}`,
        legacy: { reason: 'invalid', noDomain: true },
        details: [],
      };
    }
    case 'ROUTE_NOT_FOUND':
      return {
        status: 'NOT_FOUND',
        message: `The requested URL ${error.path} was not found on this server.`,
        details: [],
      };
    case 'METHOD_NOT_SIMULATED':
      // Google's own 501 says "Operation is not implemented, or supported, or enabled."; this one names
      // the method and the reason, for the test that reaches it.
      return plain(
        'UNIMPLEMENTED',
        `Method ${error.rpc} (${error.id}) is not simulated by cluster-sim: ${error.reason}. See cluster-sim's FIDELITY.md.`,
      );
    case 'INJECTED':
      return {
        status: error.status,
        message: error.message ?? DEFAULT_MESSAGES[error.status] ?? `Injected ${error.status}.`,
        legacy: error.reason ? { reason: error.reason } : undefined,
        details: [requestInfo],
      };
    case 'PAYLOAD_TOO_LARGE':
      // Google's front end on a JSON API request body past its limit (10 MiB; the same text from
      // speech, vision and other googleapis.com APIs, e.g. PsychoinformaticsLab/pliers#481).
      return {
        status: 'INVALID_ARGUMENT',
        message: `Request payload size exceeds the limit: ${error.limit} bytes.`,
        details: [],
      };
    case 'INTERNAL':
      return plain('INTERNAL', 'Internal error encountered.');
  }
}

/** The ABORTED text for a stale etag is configurable (the real one is unknown). */
function etagMessage(template: string, nodePool: string, given: string): string {
  return template.replaceAll('{nodePool}', nodePool).replaceAll('{etag}', given);
}

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

/** The body of an error in Google's envelope (exported for tests and the OpenAPI examples). */
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

/** Errors a fault rule's domain effect made (busy cluster, quota, the stale etag after etagBump) → rule id. */
const FAULT_RULES = new WeakMap<HttpError, string>();

/**
 * Marks `error` as the answer of fault rule `ruleId` (a domain effect's): it is rendered with
 * `X-Sim-Reason: fault:{ruleId}`, as the answers the kernel makes for generic rules are. Returns `error`.
 */
export function fromFaultRule<E extends HttpError>(error: E, ruleId: string | undefined): E {
  if (ruleId !== undefined) FAULT_RULES.set(error, ruleId);
  return error;
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
  const rule = FAULT_RULES.get(error);
  if (rule !== undefined) headers['x-sim-reason'] = `fault:${rule}`;
  return new Response(JSON.stringify(body), { status: http, headers });
}
