import type { RpcCodeName } from '../domain/state';
import type { HttpError } from '../http/error-texts';

/**
 * How a Compute read refuses (rendered once, by `http/compute-errors.ts`): Compute's own 404 and 400,
 * its 403 for a missing permission, a method or form of a request the simulator does not serve, and
 * the front end's credential refusals, and a fault rule's error.
 */
export type ComputeError =
  | { code: 'COMPUTE_NOT_FOUND'; resource: string }
  | { code: 'COMPUTE_INVALID'; message: string }
  | { code: 'COMPUTE_FORBIDDEN'; permission: string; resource: string }
  /** A Compute method (or a form of a request) the simulator does not serve. */
  | { code: 'COMPUTE_NOT_SIMULATED'; method: string; what?: string }
  | { code: 'COMPUTE_AUTH'; error: HttpError }
  /** A fault rule's error on a Compute route, `resource` the path below `/compute/v1/`. */
  | { code: 'COMPUTE_INJECTED'; status: RpcCodeName; message?: string; reason?: string; resource: string };
