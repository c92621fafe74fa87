import { CancelOperationRequest, Empty, ListOperationsResponse, Operation } from '@sims/cluster-schema';
import { fail, ok, type Result } from '../../domain/errors';
import { renderOperation } from '../../domain/operation-view';
import { OPERATION_WORK, pollOperationWork } from '../../domain/operation-work';
import { cancelOperation } from '../../domain/operations';
import type { OperationRecord } from '../../domain/state';
import type { HttpError } from '../errors';
import type { Args, RouteRow } from '../route-support';

const OPERATION_PATH = { loc: '/operations/:operation', zone: '/operations/:operation' };

function findOperation(a: Args<unknown>): Result<OperationRecord, HttpError> {
  const op = a.state.operations.get(a.operation);
  if (!op || op.projectId !== a.projectId || (a.location !== '-' && op.location !== a.location)) {
    return fail({
      code: 'OPERATION_NOT_FOUND',
      project: a.project,
      location: a.location,
      operation: a.operation,
    });
  }
  return ok(op);
}

function handleGetOperation(a: Args<unknown>): Result<unknown, HttpError> {
  const op = findOperation(a);
  if (!op.ok) return op;
  // Only poll-driven plans (configured explicitly) progress on reads.
  pollOperationWork(a.state, op.value, a.now);
  return ok(renderOperation(a.state, op.value, a.now, a.version));
}

function handleListOperations(a: Args<unknown>): Result<unknown, HttpError> {
  const operations = [...a.state.operations.values()]
    .filter((op) => op.projectId === a.projectId && (a.location === '-' || op.location === a.location))
    .map((op) => renderOperation(a.state, op, a.now, a.version));
  return ok(operations.length > 0 ? { operations } : {});
}

/** `…/operations/op1:cancel`: the path's only POST, the verb arriving as part of `:operation`. */
function handleCancelOperation(a: Args<unknown>): Result<unknown, HttpError> {
  const raw = (a.c.req.param() as Record<string, string>).operation ?? '';
  if (!raw.endsWith(':cancel')) {
    return fail({ code: 'ROUTE_NOT_FOUND', method: a.c.req.method, path: a.c.req.path });
  }
  const op = findOperation(a);
  if (!op.ok) return op;
  const cancelled = cancelOperation(a.state, op.value, a.now);
  if (!cancelled.ok) return cancelled;
  // Its plan's events give way to the end of the abort.
  a.world.timers.arm(OPERATION_WORK, cancelled.value);
  return ok({});
}

export const operationRoutes: readonly RouteRow[] = [
  {
    method: 'get',
    path: OPERATION_PATH,
    operation: 'operations.get',
    response: Operation,
    rpc: 'GetOperation',
    permission: 'container.operations.get',
    level: 'location',
    readOnly: true,
    handle: handleGetOperation,
  },
  {
    method: 'get',
    path: { loc: '/operations', zone: '/operations' },
    operation: 'operations.list',
    response: ListOperationsResponse,
    rpc: 'ListOperations',
    permission: 'container.operations.list',
    level: 'location',
    readOnly: true,
    handle: handleListOperations,
  },
  {
    method: 'post',
    path: OPERATION_PATH,
    operation: 'operations.cancel',
    verb: 'cancel',
    response: Empty,
    rpc: 'CancelOperation',
    permission: 'container.operations.cancel',
    level: 'location',
    readOnly: false,
    body: CancelOperationRequest,
    handle: handleCancelOperation,
  },
];
