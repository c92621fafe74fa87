import type { DomainError } from '../domain/errors';
import { locationSegment } from '../domain/names';
import { EMPTY_UPDATE_MESSAGE } from '../domain/node-pools';
import { DEFAULT_SETTINGS, type RpcCodeName } from '../domain/state';

/**
 * What Google answers for each error, as texts and details: the table `errors.ts` renders into the
 * envelope. Split from the renderer so each half reads whole (the domain's refusals; the edge's).
 */

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

export interface Rendered {
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

/** What every rendering shares: the request's RequestInfo, an ErrorInfo maker, and a plain body. */
function parts(ctx: ErrorContext) {
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
  return { requestInfo, errorInfo, plain };
}

/** GKE's text for a cluster another operation holds (the older per-kind text, or today's). */
function busyMessage(error: Extract<DomainError, { code: 'CLUSTER_BUSY' }>): string {
  if (error.style !== 'legacy') return `Cluster is running incompatible operation ${error.operation}.`;
  const doing =
    error.operationType === 'DELETE_NODE_POOL'
      ? 'deleting a node pool for'
      : error.operationType === 'CREATE_NODE_POOL'
        ? 'creating a node pool for'
        : 'upgrading';
  return `Operation ${error.operation} is currently ${doing} cluster ${error.cluster}. Please wait and try again once it is done.`;
}

/** The errors only the HTTP edge makes (auth, parsing, routing, faults): the rest are the domain's. */
type EdgeError = Exclude<HttpError, DomainError>;
const EDGE_CODES: ReadonlySet<string> = new Set<EdgeError['code']>([
  'CREDENTIALS_MISSING',
  'CREDENTIALS_INVALID',
  'SCOPE_INSUFFICIENT',
  'PERMISSION_DENIED',
  'BAD_PAYLOAD',
  'INVALID_ENUM',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_SIMULATED',
  'INJECTED',
  'PAYLOAD_TOO_LARGE',
  'INTERNAL',
]);
const isEdgeError = (error: HttpError): error is EdgeError => EDGE_CODES.has(error.code);

/** The status, message and details of `error`. */
export function describe(error: HttpError, ctx: ErrorContext): Rendered {
  return isEdgeError(error) ? describeEdgeError(error, ctx) : describeDomainError(error, ctx);
}

/** GKE's answer to a refusal of the domain (not found, versions, busy clusters, bad requests). */
function describeDomainError(error: DomainError, ctx: ErrorContext): Rendered {
  const { requestInfo, plain } = parts(ctx);
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
    case 'CLUSTER_BUSY':
      return plain('FAILED_PRECONDITION', busyMessage(error));
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
  }
}

/** The front end's answer to what the edge refused: credentials, permissions, payloads, URLs, faults. */
function describeEdgeError(error: EdgeError, ctx: ErrorContext): Rendered {
  const { requestInfo, errorInfo, plain } = parts(ctx);
  switch (error.code) {
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
