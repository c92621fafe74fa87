import { Operation } from '@sims/cluster-schema';
import type { z } from 'zod';
import type { DomainContext } from '../../domain/context';
import { fail, ok, type Result } from '../../domain/errors';
import type { ClusterRecord, ClusterState, OperationRecord } from '../../domain/state';
import type { HttpError } from '../errors';
import { type Args, checkIds, clusterOf, domainContext, type RouteAction, started } from '../route-support';

/**
 * A method that starts an operation on the cluster (a setter, a rotation): its route spec from the rule
 * that starts the operation.
 */

/** A body's deprecated ids and `name` must agree with the path (the path wins). */
function checkClusterIds(a: Args<unknown>, body: Record<string, unknown>): Result<void, HttpError> {
  const ids = checkIds(a, body, ['projectId', 'zone', 'clusterId']);
  if (!ids.ok) return ids;
  const name = body.name;
  if (typeof name !== 'string' || name === '') return ok(undefined);
  const names = [a.project, a.projectId].flatMap((p) =>
    ['locations', 'zones'].map((seg) => `projects/${p}/${seg}/${a.location}/clusters/${a.cluster}`),
  );
  if (names.includes(name)) return ok(undefined);
  return fail({
    code: 'INVALID_REQUEST',
    message: `Invalid value for field 'name': "${name}" does not match the resource in the request URL.`,
    field: 'name',
  });
}

type Setter<B> = (
  state: ClusterState,
  record: ClusterRecord,
  body: B,
  ctx: DomainContext,
) => Result<OperationRecord>;

/**
 * A setter's route spec: ids checked, the cluster found, the operation started. `verb` is the method's
 * name in the discovery document (`setResourceLabels` for SetLabels), the name fault rules match.
 */
export function setter<B extends Record<string, unknown>>(
  rpc: string,
  verb: string,
  body: z.ZodType<B>,
  set: Setter<B>,
): RouteAction<B> {
  return {
    operation: `clusters.${verb}`,
    rpc,
    permission: 'container.clusters.update',
    level: 'cluster',
    readOnly: false,
    body,
    response: Operation,
    handle(a) {
      const ids = checkClusterIds(a, a.body);
      if (!ids.ok) return ids;
      const record = clusterOf(a);
      if (!record.ok) return record;
      return started(a, set(a.state, record.value, a.body, domainContext(a)));
    },
  };
}
