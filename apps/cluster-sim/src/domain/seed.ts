import { Cluster, NodePool, OperationType, RpcCode, ServerConfig } from '@sims/cluster-schema';
import { lazy } from '@sims/sim-core';
import * as z from 'zod';
import { buildCluster } from './clusters';
import type { DomainContext } from './context';
import { type DomainError, fail, ok, type Result } from './errors';
import { checkMaintenancePolicy } from './maintenance-policy';
import { clusterName, nodePoolName } from './names';
import { checkCreateNetworkPolicy } from './network-policy';
import { nodeCount, nodePoolEtag, refreshCluster, writePool } from './node-pools';
import { createOperation } from './operations';
import { syncDoneOperations } from './operations-budget';
import { podRangesOf } from './pod-ranges';
import { seededPool } from './pool-requests';
import {
  type ClusterRecord,
  type ClusterShape,
  type ClusterState,
  clusterKey,
  mergeSettings,
  type OperationRecord,
  type Settings,
} from './state';
import { sortDescending } from './versions';

// The schemas here are built on first use (docs/decisions/0009): seeding and settings are control-plane
// requests, which a process that only serves the emulated API never gets.
const principalSchema = () =>
  z
    .object({
      scopes: z.array(z.string()).optional(),
      permissions: z.array(z.string()).optional(),
      deniedPermissions: z.array(z.string()).optional(),
    })
    .strict();

/** Settings as the control plane and seeds accept them (every field optional). */
export const settingsSchema = lazy(() =>
  z
    .object({
      strictUnknownFields: z.boolean(),
      operationDurationMs: z.number().int().nonnegative(),
      operationPolls: z.number().int().positive().optional(),
      abortingMs: z.number().int().nonnegative(),
      maxNodeSkewMinors: z.number().int().nonnegative(),
      concurrentOperationsQuota: z.number().int().positive(),
      maxOperations: z.number().int().positive(),
      busyMessage: z.enum(['current', 'legacy']),
      failedPoolStatus: z.enum(['RUNNING_WITH_ERROR', 'ERROR']),
      cancelError: z.object({ status: RpcCode, message: z.string() }).strict(),
      etagMismatchMessage: z.string().min(1),
      rollout: z
        .object({
          batchMs: z.number().int().nonnegative(),
          phaseMs: z.number().int().nonnegative(),
          defaultNodePoolSoakMs: z.number().int().nonnegative(),
          defaultWaitForDrainMs: z.number().int().nonnegative(),
        })
        .partial()
        .strict(),
      auth: z
        .object({
          principals: z.record(z.string(), principalSchema()),
          rejectedTokens: z.record(
            z.string(),
            z.enum(['ACCESS_TOKEN_EXPIRED', 'ACCESS_TOKEN_TYPE_UNSUPPORTED']),
          ),
          denyUnknownTokens: z.boolean(),
        })
        .partial()
        .strict(),
    })
    .partial()
    .strict(),
);

/** `POST /_sim/seed` and scenario `seed:`: resources created directly, already RUNNING. */
export const seedSchema = lazy(() => {
  const seedPool = NodePool.extend({ name: z.string().min(1) }).strict();
  const seedCluster = Cluster.extend({
    projectId: z.string().min(1),
    location: z.string().min(1),
    name: z.string().min(1),
    nodePools: z.array(seedPool).optional(),
  }).strict();

  /** A pool added to a cluster that exists (or is seeded earlier in the same document). */
  const seedClusterPool = seedPool.extend({
    projectId: z.string().min(1),
    location: z.string().min(1),
    cluster: z.string().min(1),
  });

  /** An operation in a given phase (provider states: "is running", "is done", "ended with error …"). */
  const seedOperation = z
    .object({
      id: z
        .string()
        .regex(/^operation-\d{13}-[0-9a-f-]+$/, 'expected operation-<13 digit ms>-<hex or uuid>')
        .optional(),
      projectId: z.string().min(1),
      location: z.string().min(1),
      cluster: z.string().min(1),
      nodePool: z.string().min(1).optional(),
      operationType: OperationType.optional(),
      status: z.enum(['PENDING', 'RUNNING', 'DONE']),
      startTime: z.string().optional(),
      endTime: z.string().optional(),
      error: z
        .object({ code: z.int().min(1).max(16), message: z.string() })
        .strict()
        .optional(),
      statusMessage: z.string().optional(),
    })
    .strict();

  return z
    .object({
      projects: z
        .array(z.object({ projectId: z.string().min(1), projectNumber: z.string().regex(/^\d+$/) }).strict())
        .optional(),
      serverConfig: ServerConfig.strict().optional(),
      settings: settingsSchema().optional(),
      clusters: z.array(seedCluster).optional(),
      nodePools: z.array(seedClusterPool).optional(),
      operations: z.array(seedOperation).optional(),
    })
    .strict();
});

export type SeedInput = z.infer<ReturnType<typeof seedSchema>>;

export interface SeedResult {
  clusters: string[];
  nodePools: { name: string; etag: string; version: string }[];
  operations: string[];
}

/** A domain refusal as one line of a seed error. */
function domainMessage(error: DomainError): string {
  if ('message' in error) return error.message;
  if ('what' in error) return `${error.what}: not simulated`;
  return JSON.stringify(error);
}

/**
 * A seed's working copy of the state: its tables are new maps over the same records, and a record of the
 * state is copied the first time the seed changes it (`own`). A seed then costs what it adds, not the
 * world it lands in (a copy of the whole state took seconds for one cluster seeded beside 10,000).
 */
class SeedDraft {
  readonly state: ClusterState;
  readonly #own = new Set<ClusterRecord>();
  constructor(from: ClusterState) {
    // Spread, not structuredClone. The budget (not enumerable) is left out: what the seed does to the
    // operations is counted once it is applied (applySeed), not for a draft a refusal throws away.
    this.state = {
      ...from,
      clusters: new Map(from.clusters),
      operations: new Map(from.operations),
      projectNumbers: { ...from.projectNumbers },
    };
  }
  /** A cluster the seed made: its own already. */
  made(record: ClusterRecord): void {
    this.#own.add(record);
  }
  /** The record under `key`, the seed's own copy of it (made now if the state's is shared). */
  cluster(key: string): ClusterRecord | undefined {
    const record = this.state.clusters.get(key);
    if (!record || this.#own.has(record)) return record;
    const copy = structuredClone(record);
    this.state.clusters.set(key, copy);
    this.#own.add(copy);
    return copy;
  }
}

/**
 * Applies a seed, all or nothing: everything is applied to a draft of the state (SeedDraft), which
 * replaces the state only when every item was accepted. Returns the operations it started (to be
 * scheduled).
 */
export function applySeed(
  state: ClusterState,
  input: SeedInput,
  ctx: DomainContext,
): Result<{ result: SeedResult; started: OperationRecord[] }, string> {
  const seedDraft = new SeedDraft(state);
  const draft = seedDraft.state;
  if (input.settings) draft.settings = mergeSettings(draft.settings, input.settings as Partial<Settings>);
  for (const p of input.projects ?? []) draft.projectNumbers[p.projectId] = p.projectNumber;
  if (input.serverConfig) applyServerConfig(draft, input.serverConfig);
  const result: SeedResult = { clusters: [], nodePools: [], operations: [] };
  // In insertion order (the answer lists their pools so); a set, as a seed may add pools to thousands.
  const touched = new Set<ClusterRecord>();
  // The pod ranges the world's clusters hold, found once: each seeded cluster then adds its own (a scan
  // of every cluster per cluster made seeding quadratic: 8,000 clusters took 81 s).
  const podRanges = input.clusters?.length ? podRangesOf(draft.clusters.values()) : undefined;
  for (const [i, c] of (input.clusters ?? []).entries()) {
    const key = clusterKey(c.projectId, c.location, c.name);
    if (draft.clusters.has(key)) {
      return fail(`clusters[${i}]: cluster "${clusterName(c.projectId, c.location, c.name)}" already exists`);
    }
    const { projectId, location, ...cluster } = c;
    // GKE's rules on what a cluster may hold, as clusters.create applies them (a seed is a world GKE
    // could have made, so that what a client reads back it can also send).
    for (const [field, checked] of [
      ['maintenancePolicy', checkMaintenancePolicy(cluster.maintenancePolicy, 'maintenance_policy', ctx.now)],
      ['networkPolicy', checkCreateNetworkPolicy(cluster as ClusterShape)],
    ] as const) {
      if (!checked.ok) return fail(`clusters[${i}].${field}: ${domainMessage(checked.error)}`);
    }
    const record = buildCluster(
      draft,
      projectId,
      location,
      { ...cluster, status: cluster.status ?? 'RUNNING' },
      ctx,
      podRanges,
    );
    if (!record.ok) return fail(`clusters[${i}].currentMasterVersion: ${JSON.stringify(record.error)}`);
    // In a seed an explicit empty list means no pools (clusters.create would add a default-pool).
    if (c.nodePools !== undefined && c.nodePools.length === 0) {
      record.value.pools.clear();
      refreshCluster(draft, record.value);
    }
    draft.clusters.set(key, record.value);
    seedDraft.made(record.value);
    podRanges?.add(record.value);
    result.clusters.push(clusterName(projectId, location, c.name));
    touched.add(record.value);
  }
  for (const [i, p] of (input.nodePools ?? []).entries()) {
    const { projectId, location, cluster, ...pool } = p;
    const record = seedDraft.cluster(clusterKey(projectId, location, cluster));
    if (!record)
      return fail(`nodePools[${i}]: cluster "${clusterName(projectId, location, cluster)}" does not exist`);
    if (record.pools.has(pool.name)) return fail(`nodePools[${i}]: node pool "${pool.name}" already exists`);
    const master = record.cluster.currentMasterVersion ?? draft.serverConfig.defaultClusterVersion ?? '';
    record.pools.set(pool.name, seededPool(record, pool, master, ctx));
    refreshCluster(draft, record);
    touched.add(record);
  }
  for (const record of touched) {
    for (const [name, pool] of record.pools) {
      result.nodePools.push({
        name: nodePoolName(record.projectId, record.location, record.name, name),
        etag: nodePoolEtag(pool),
        version: pool.pool.version ?? '',
      });
    }
  }
  const started: OperationRecord[] = [];
  for (const [i, o] of (input.operations ?? []).entries()) {
    const op = seedOperationRecord(seedDraft, o, ctx);
    if (!op.ok) return fail(`operations[${i}]: ${op.error}`);
    result.operations.push(op.value.id);
    if (op.value.status !== 'DONE') started.push(op.value);
  }
  Object.assign(state, draft);
  // The draft's table of operations is the state's now: its DONE ones count, those it dropped do not.
  syncDoneOperations(state);
  return ok({ result, started: started.map((op) => state.operations.get(op.id) as OperationRecord) });
}

function seedOperationRecord(
  seedDraft: SeedDraft,
  o: NonNullable<SeedInput['operations']>[number],
  ctx: DomainContext,
): Result<OperationRecord, string> {
  const state = seedDraft.state;
  const record = seedDraft.cluster(clusterKey(o.projectId, o.location, o.cluster));
  if (!record) return fail(`cluster "${clusterName(o.projectId, o.location, o.cluster)}" does not exist`);
  const poolRecord = o.nodePool === undefined ? undefined : record.pools.get(o.nodePool);
  if (o.nodePool !== undefined && !poolRecord) return fail(`node pool "${o.nodePool}" does not exist`);
  if (o.id !== undefined && state.operations.has(o.id)) return fail(`operation "${o.id}" already exists`);
  const start = o.startTime === undefined ? ctx.now : Date.parse(o.startTime);
  if (Number.isNaN(start)) return fail(`startTime "${o.startTime}" is not an RFC 3339 time`);
  const type = o.operationType ?? (o.nodePool ? 'UPGRADE_NODES' : 'UPDATE_CLUSTER');
  const op = createOperation(
    state,
    {
      projectId: o.projectId,
      location: o.location,
      type,
      cluster: o.cluster,
      nodePool: o.nodePool,
      nodesTotal: poolRecord ? nodeCount(poolRecord.pool) : 0,
      // A seeded running update changes nothing when it completes: it stands for work in progress.
      change:
        poolRecord && type === 'UPGRADE_NODES'
          ? { kind: 'updatePool', desired: structuredClone(poolRecord.pool) }
          : { kind: 'none' },
    },
    start,
    ctx.ids,
  );
  if (o.id !== undefined) {
    state.operations.delete(op.id);
    op.id = o.id;
    state.operations.set(op.id, op);
  }
  if (o.status === 'RUNNING') op.status = 'RUNNING';
  if (op.plan.mode === 'time' && o.status !== 'PENDING') {
    // Running from "now" on: it stays RUNNING until the clock moves past its duration.
    const duration = op.plan.doneAt - op.plan.runningAt;
    op.plan = {
      mode: 'time',
      runningAt: Math.min(start, ctx.now),
      doneAt: Math.max(ctx.now, start) + duration,
    };
  }
  if (o.status === 'DONE') {
    op.status = 'DONE';
    const end = o.endTime === undefined ? Math.max(start, ctx.now) : Date.parse(o.endTime);
    if (Number.isNaN(end)) return fail(`endTime "${o.endTime}" is not an RFC 3339 time`);
    op.endTime = end;
    if (o.error) {
      op.error = { ...o.error };
      op.statusMessage = o.statusMessage ?? o.error.message;
      op.endedAt = 0.5;
    } else if (o.statusMessage) op.statusMessage = o.statusMessage;
  } else if (poolRecord) {
    writePool(poolRecord, { ...poolRecord.pool, status: 'RECONCILING' });
  }
  refreshCluster(state, record);
  return ok(op);
}

/** Replaces the given ServerConfig fields; version lists are kept in descending order. */
export function applyServerConfig(state: ClusterState, patch: z.infer<typeof ServerConfig>): void {
  const next = { ...state.serverConfig, ...patch };
  if (next.validNodeVersions) next.validNodeVersions = sortDescending(next.validNodeVersions);
  if (next.validMasterVersions) next.validMasterVersions = sortDescending(next.validMasterVersions);
  state.serverConfig = next;
}
