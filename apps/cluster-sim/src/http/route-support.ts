import { protoFieldName } from '@sims/cluster-schema';
import {
  type RouteAction as CoreRouteAction,
  type RouteRow as CoreRouteRow,
  parseDuration,
  type SimEnv,
  type World,
} from '@sims/sim-core';
import type { Context } from 'hono';
import type { z } from 'zod';
import { type ClusterRef, checkZonalAccess, findCluster } from '../domain/clusters';
import type { DomainContext } from '../domain/context';
import { fail, ok, type Result } from '../domain/errors';
import {
  clusterEffects,
  type OperationDurationEffect,
  type OperationFailsEffect,
  type OperationStallsEffect,
} from '../domain/fault-effects';
import { type ApiVersion, clusterName, nodePoolName, operationId } from '../domain/names';
import { renderOperation } from '../domain/operation-view';
import { OPERATION_WORK } from '../domain/operation-work';
import { recordDoneOperation } from '../domain/operations';
import type {
  ClusterRecord,
  ClusterState,
  OperationFailure,
  OperationRecord,
  OperationTypeName,
} from '../domain/state';
import { fromFaultRule, type HttpError } from './errors';

export type Ctx = Context<SimEnv<ClusterState>>;

/** What a handler gets: the request's target, parsed body, world and time. */
export interface Args<B> {
  c: Ctx;
  world: World<ClusterState>;
  state: ClusterState;
  version: ApiVersion;
  /** Project as given in the path (id or number). */
  project: string;
  /** Project id the state uses. */
  projectId: string;
  location: string;
  viaZones: boolean;
  cluster: string;
  pool: string;
  operation: string;
  body: B;
  now: number;
}

/** What a custom verb sharing a row's route (by the `:pool` it arrives in) is: its own method. */
export interface RouteVariant {
  /** The verb, after the last `:` of the path's last segment (`np1:fetchNodePoolUpgradeInfo`). */
  verb: string;
  operation: string;
  rpc: string;
  query: ReadonlySet<string>;
  response: z.ZodType;
}

/** What cluster-sim's edge reads of a row besides sim-core's fields. */
interface ClusterRowExtra {
  /** The RPC, for ErrorInfo metadata. */
  rpc: string;
  permission: string;
  /** What the permission is checked on. */
  level: 'cluster' | 'location';
  readOnly: boolean;
  /** Query fields of the request message besides the path's (a GET's `version`, `filter`, …). */
  query?: ReadonlySet<string>;
  /** The response message, for numeric enum encoding. */
  response: z.ZodType;
  /** A custom verb sharing the route (by the `:pool` it arrives in): its name, query fields and answer. */
  variant?: RouteVariant;
  /**
   * The custom verb the path's last parameter carries (`…/operations/op1:cancel` on `/operations/:operation`):
   * the OpenAPI document's path has it; the handler checks it.
   */
  verb?: string;
}

/**
 * A row's handler: its arguments in, a `Result` out. Declared through a method so that a row of a typed
 * body is still a row of `unknown` in a table (TypeScript checks method parameters bivariantly).
 */
type RouteHandler<B> = { bivarianceHack(args: Args<B>): Result<unknown, HttpError> }['bivarianceHack'];

/** A row served on paths another table decides (the discovery table, a pool's custom verbs). */
export type RouteAction<B> = CoreRouteAction<RouteHandler<B>, z.ZodType<B>, ClusterRowExtra>;

/** A path below `/projects/:project/locations/:location` (`loc`) and `/projects/:project/zones/:location`. */
export interface RoutePaths {
  loc?: string;
  zone?: string;
}

/** One row of a route table: served by a method on its paths, under both API versions. */
export type RouteRow<B = unknown> = CoreRouteRow<RouteHandler<B>, z.ZodType<B>, ClusterRowExtra, RoutePaths>;

/** A node pool id without the custom verb its route's pattern takes along (`np1:setSize` → `np1`). */
export function withoutVerb(pool: string): string {
  // Every pool read passes here (the journal's resource): no regex unless there is a verb at all.
  return pool.includes(':') ? pool.replace(/:[A-Za-z]+$/, '') : pool;
}

function timingOf(
  effect: OperationDurationEffect | undefined,
): { durationMs?: number; polls?: number } | undefined {
  if (!effect) return undefined;
  return {
    durationMs: effect.duration === undefined ? undefined : parseDuration(effect.duration),
    polls: effect.polls,
  };
}

function failureOf(effect: OperationFailsEffect | undefined): OperationFailure | undefined {
  if (!effect) return undefined;
  return {
    atProgress: effect.atProgress ?? 0.5,
    status: effect.status ?? 'INTERNAL',
    message: effect.message ?? 'Internal error encountered.',
  };
}

function ref(a: Args<unknown>): ClusterRef {
  return { project: a.project, location: a.location, cluster: a.cluster };
}

/** The cluster of the path, reached by a form (zonal or not) that may reach it. */
export function clusterOf(a: Args<unknown>): Result<ClusterRecord, HttpError> {
  const zonal = checkZonalAccess(a.location, a.viaZones);
  if (!zonal.ok) return zonal;
  return findCluster(a.state, a.projectId, ref(a));
}

/**
 * The id of the incompatible operation a `clusterBusy` rule without `operation` names: a real one,
 * recorded on the cluster already DONE (it stands for the GKE-initiated operation that was running), so
 * a client that polls it before retrying finds it, and it holds nothing afterwards.
 */
function busyOperation(a: Args<unknown>, type: OperationTypeName): string {
  const record = clusterOf(a);
  if (!record.ok) return operationId(a.now, a.world.ids);
  const { projectId, location, name } = record.value;
  return recordDoneOperation(a.state, { projectId, location, type, cluster: name }, a.now, a.world.ids).id;
}

/**
 * The domain context of a mutation. Domain fault effects are taken at the point of the domain flow
 * they belong to, so a rule is not used up by a request that fails earlier for another reason.
 */
export function domainContext(a: Args<unknown>): DomainContext {
  const sim = a.c.var.sim;
  return {
    now: a.now,
    ids: a.world.ids,
    // The answers these effects make name their rule (`X-Sim-Reason: fault:{rule id}`, http/errors.ts).
    injectedConflict() {
      const busy = clusterEffects.takeEffectRule(sim, 'clusterBusy');
      if (busy) {
        const operationType = busy.value.operationType ?? 'UPGRADE_MASTER';
        return fromFaultRule(
          {
            code: 'CLUSTER_BUSY',
            operation: busy.value.operation ?? busyOperation(a, operationType),
            operationType,
            cluster: a.cluster,
            style: a.state.settings.busyMessage,
          },
          busy.ruleId,
        );
      }
      const quota = clusterEffects.takeEffectRule(sim, 'quotaExhausted');
      if (quota) {
        return fromFaultRule(
          {
            code: 'TOO_MANY_OPERATIONS',
            cluster: a.cluster,
            quota: quota.value.quota ?? a.state.settings.concurrentOperationsQuota,
          },
          quota.ruleId,
        );
      }
      return undefined;
    },
    operationEffects: () => {
      const fails = clusterEffects.takeEffect(sim, 'operationFails');
      const stalls = clusterEffects.takeEffect(sim, 'operationStalls');
      const at = (e: OperationFailsEffect | OperationStallsEffect | undefined) =>
        e && (e.atBatch !== undefined || e.atPhase !== undefined)
          ? { batch: e.atBatch, phase: e.atPhase }
          : undefined;
      return {
        timing: timingOf(clusterEffects.takeEffect(sim, 'operationDuration')),
        failure: failureOf(fails),
        failsAt: at(fails),
        stallsAt: at(stalls),
      };
    },
  };
}

/** A started operation's answer, once it is on the world's timers. */
export function started(a: Args<unknown>, result: Result<OperationRecord>): Result<unknown, HttpError> {
  if (!result.ok) {
    // A stale etag after an etagBump rule's concurrent write is that rule's answer.
    if (result.error.code === 'ETAG_MISMATCH')
      return fail(fromFaultRule(result.error, clusterEffects.takenRule(a.c.var.sim, 'etagBump')));
    return result;
  }
  a.world.timers.arm(OPERATION_WORK, result.value);
  return ok(renderOperation(a.state, result.value, a.world.clock.now(), a.version));
}

/** The deprecated ids a request body may carry beside the path's. */
export type IdField = 'projectId' | 'zone' | 'clusterId' | 'nodePoolId' | 'name' | 'parent';

/** Deprecated ids in a body must agree with the path (the path is authoritative); `fields` in this order. */
export function checkIds(
  a: Args<unknown>,
  body: Partial<Record<IdField, string>>,
  fields: readonly IdField[],
): Result<void, HttpError> {
  const expected: Record<IdField, string[]> = {
    projectId: [a.project, a.projectId],
    zone: [a.location],
    clusterId: [a.cluster],
    nodePoolId: [a.pool],
    name: [
      a.pool,
      nodePoolName(a.project, a.location, a.cluster, a.pool),
      nodePoolName(a.projectId, a.location, a.cluster, a.pool),
    ],
    parent: [
      clusterName(a.project, a.location, a.cluster),
      clusterName(a.projectId, a.location, a.cluster),
      `projects/${a.project}/locations/${a.location}`,
      `projects/${a.projectId}/locations/${a.location}`,
    ],
  };
  for (const field of fields) {
    const given = body[field];
    if (given === undefined || given === '') continue;
    if (!expected[field].includes(given)) {
      const snake = protoFieldName(field);
      return fail({
        code: 'INVALID_REQUEST',
        message: `Invalid value for field '${snake}': "${given}" does not match the resource in the request URL.`,
        field: snake,
      });
    }
  }
  return ok(undefined);
}
