import type { ComputeError } from '../compute/errors';
import type { RpcCodeName } from '../domain/state';
import { describe } from './error-texts';
import { googleHeaders, RPC_STATUS } from './errors';

/**
 * Compute Engine's error answers. Compute's own refusals carry the legacy envelope without `status` or
 * details (`{error: {code, message, errors: [{message, domain: "global", reason}]}}`, e.g. a 404's
 * `The resource 'projects/p/zones/z/instanceGroupManagers/x' was not found`, reason `notFound`); the
 * front end's credential refusals are the same as the container API's, naming compute.googleapis.com.
 */
function legacy(http: number, message: string, reason: string) {
  return { error: { code: http, message, errors: [{ message, domain: 'global', reason }] } };
}

/**
 * Statuses Google's front end answers before Compute sees the request (credentials, rate limits): their
 * bodies carry `status` and details, as the front end's credential refusals here do.
 */
const FRONT_END_STATUSES: ReadonlySet<string> = new Set(['UNAUTHENTICATED', 'RESOURCE_EXHAUSTED']);

/** Compute's legacy `errors[].reason` where it differs from the front end's (its 400s say `invalid`). */
const COMPUTE_REASONS: Readonly<Record<string, string>> = { INVALID_ARGUMENT: 'invalid' };

/**
 * A fault rule's error on a Compute route, as Compute answers it: its legacy envelope, a 404 without a
 * message of its own in Compute's `The resource '…' was not found` (what Terraform's read tells apart);
 * a status the front end answers in the front end's envelope.
 */
function injectedBody(error: Extract<ComputeError, { code: 'COMPUTE_INJECTED' }>, requestId: string) {
  const { http, reason: frontEndReason } = RPC_STATUS[error.status];
  const r = describe(
    { code: 'INJECTED', status: error.status, message: error.message, reason: error.reason },
    { requestId },
  );
  const message =
    error.message === undefined && error.status === 'NOT_FOUND'
      ? `The resource '${error.resource}' was not found`
      : r.message;
  const reason = error.reason ?? COMPUTE_REASONS[error.status] ?? frontEndReason;
  const body = legacy(http, message, reason);
  if (!FRONT_END_STATUSES.has(error.status)) return { http, body };
  return { http, body: { error: { ...body.error, status: error.status, details: r.details } } };
}

/** The body and HTTP status of a Compute error; `rpc` names the method in a front-end ErrorInfo. */
function computeBody(error: ComputeError, rpc: string, requestId: string): { http: number; body: unknown } {
  switch (error.code) {
    case 'COMPUTE_NOT_FOUND':
      return { http: 404, body: legacy(404, `The resource '${error.resource}' was not found`, 'notFound') };
    case 'COMPUTE_INVALID':
      return { http: 400, body: legacy(400, error.message, 'invalid') };
    case 'COMPUTE_FORBIDDEN':
      return {
        http: 403,
        body: legacy(403, `Required '${error.permission}' permission for '${error.resource}'`, 'forbidden'),
      };
    case 'COMPUTE_NOT_SIMULATED': {
      const what = error.what ? `${error.what} of ${error.method}` : `Method ${error.method}`;
      const message = `${what} is not simulated by cluster-sim (its Compute Engine slice serves the node pools' managed instance groups). See cluster-sim's FIDELITY.md.`;
      const body = legacy(501, message, 'notImplemented');
      return { http: 501, body: { error: { ...body.error, status: 'UNIMPLEMENTED' } } };
    }
    case 'COMPUTE_INJECTED':
      return injectedBody(error, requestId);
    case 'COMPUTE_AUTH': {
      const r = describe(error.error, { requestId, method: rpc });
      const http = r.status === 'UNAUTHENTICATED' ? 401 : 403;
      const details = r.details.map((d) =>
        d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo'
          ? { ...d, metadata: { service: 'compute.googleapis.com', method: rpc } }
          : d,
      );
      const first = {
        message: r.legacy?.message ?? r.message,
        domain: 'global',
        reason: r.legacy?.reason ?? 'forbidden',
        ...(r.legacy?.location ? { location: r.legacy.location, locationType: r.legacy.locationType } : {}),
      };
      return {
        http,
        body: { error: { code: http, message: r.message, errors: [first], status: r.status, details } },
      };
    }
  }
}

/** Renders a Compute error with Google's front-end headers (a simulator refusal says so in `x-sim-reason`). */
export function renderComputeError(error: ComputeError, rpc: string, requestId: string): Response {
  const { http, body } = computeBody(error, rpc, requestId);
  const headers = googleHeaders(requestId);
  if (error.code === 'COMPUTE_NOT_SIMULATED') headers['x-sim-reason'] = 'not-simulated';
  return new Response(JSON.stringify(body), { status: http, headers });
}

/** `compute.instanceGroupManagers.get` → `compute.v1.InstanceGroupManagersService.Get` (the ErrorInfo's method). */
function rpcOf(operation: string): string {
  const [, collection = '', verb = ''] = operation.split('.');
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  return `compute.v1.${cap(collection)}Service.${cap(verb)}`;
}

/**
 * A fault rule's error on a Compute route (its operation `compute.…`) in Compute's envelope: the one
 * fault engine decides, this renders (the container API's routes keep Google's `google.rpc.Status`).
 */
export function renderComputeFault(
  fault: { status: RpcCodeName; message?: string; reason?: string },
  at: { operation: string; path: string; requestId: string },
): Response {
  const resource = at.path.replace(/^.*?\/compute\/v1\//, '');
  return renderComputeError(
    { code: 'COMPUTE_INJECTED', ...fault, resource },
    rpcOf(at.operation),
    at.requestId,
  );
}
