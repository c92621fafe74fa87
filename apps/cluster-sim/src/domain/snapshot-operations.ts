import { BlueGreenPhase, NodePool, OperationType, RpcCode } from '@sims/cluster-schema';
import { lazy } from '@sims/sim-core';
import * as z from 'zod';
import { pendingChangeSchema } from './pending-change';

/**
 * An operation record as a snapshot holds it (state.ts `OperationRecord`), every field typed: an import
 * schedules what a live operation has left to do and lands its change when it is DONE, so a record that
 * would break that (a time plan without its times, an `updatePool` without `desired`) is refused before
 * the world is replaced, never found by a timer afterwards. Built on first use (docs/decisions/0009).
 */
export const operationSnapshotSchema = lazy(() => {
  const time = z.number();
  const count = z.int().nonnegative();
  const change = pendingChangeSchema();
  const plan = z.discriminatedUnion('mode', [
    z.object({ mode: z.literal('time'), runningAt: time, doneAt: time }).strict(),
    z.object({ mode: z.literal('polls'), polls: z.int().positive(), seen: count }).strict(),
  ]);
  const step = z
    .object({
      offset: z.number().nonnegative(),
      nodesDone: count,
      extraNodes: count,
      phase: BlueGreenPhase.optional(),
      zone: z.string().optional(),
      batch: z.int().positive().optional(),
    })
    .strict();
  const rollout = z
    .object({
      strategy: z.enum(['SURGE', 'BLUE_GREEN']),
      kind: z.enum(['upgrade', 'rollback']),
      steps: z.array(step),
      total: z.number().nonnegative(),
      reached: z.int().min(-1),
      from: NodePool,
      greenInstanceGroupUrls: z.array(z.string()).optional(),
      greenPoolVersion: z.string().optional(),
      stalledAt: count.optional(),
      failsAt: count.optional(),
      startedAt: time,
    })
    .strict();
  return z
    .object({
      id: z.string().regex(/^operation-\d{13}-[0-9a-f-]+$/),
      projectId: z.string(),
      location: z.string(),
      type: OperationType,
      cluster: z.string(),
      nodePool: z.string().optional(),
      status: z.enum(['PENDING', 'RUNNING', 'ABORTING', 'DONE']),
      startTime: time,
      endTime: time.optional(),
      plan,
      nodesTotal: count,
      failure: z
        .object({ atProgress: z.number().min(0).max(1), status: RpcCode, message: z.string() })
        .strict()
        .optional(),
      endedAt: z.number().min(0).max(1).optional(),
      abortDoneAt: time.optional(),
      statusMessage: z.string().optional(),
      error: z.object({ code: z.int(), message: z.string() }).strict().optional(),
      change,
      rollout: rollout.optional(),
    })
    .strict();
});
