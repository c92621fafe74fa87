import type { ComputeError } from '../compute/errors';
import { describe } from './error-texts';
import { googleHeaders } from './errors';

/**
 * Compute Engine's error answers. Compute's own refusals carry the legacy envelope without `status` or
 * details (`{error: {code, message, errors: [{message, domain: "global", reason}]}}`, e.g. a 404's
 * `The resource 'projects/p/zones/z/instanceGroupManagers/x' was not found`, reason `notFound`); the
 * front end's credential refusals are the same as the container API's, naming compute.googleapis.com.
 */
function legacy(http: number, message: string, reason: string) {
  return { error: { code: http, message, errors: [{ message, domain: 'global', reason }] } };
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
