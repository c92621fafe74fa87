import { Cluster, NodePool, RpcCode, ServerConfig } from '@sims/cluster-schema';
import { z } from 'zod';
import { buildCluster, type DomainContext } from './clusters';
import { fail, ok, type Result } from './errors';
import { clusterName, nodePoolName } from './names';
import { nodePoolEtag } from './node-pools';
import { type ClusterState, clusterKey, mergeSettings, type Settings } from './state';
import { sortDescending } from './versions';

const principalSchema = z.object({ scopes: z.array(z.string()), permissions: z.array(z.string()) }).strict();

/** Settings as the control plane and seeds accept them (every field optional). */
export const settingsSchema = z
  .object({
    strictUnknownFields: z.boolean(),
    operationDurationMs: z.number().int().nonnegative(),
    operationPolls: z.number().int().positive().optional(),
    abortingMs: z.number().int().nonnegative(),
    maxNodeSkewMinors: z.number().int().nonnegative(),
    concurrentOperationsQuota: z.number().int().positive(),
    busyMessage: z.enum(['current', 'legacy']),
    failedPoolStatus: z.enum(['RUNNING_WITH_ERROR', 'ERROR']),
    cancelError: z.object({ status: RpcCode, message: z.string() }).strict(),
    etagMismatchMessage: z.string().min(1),
    auth: z
      .object({
        principals: z.record(z.string(), principalSchema),
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
  .strict();

const seedPool = NodePool.extend({ name: z.string().min(1) }).strict();
const seedCluster = Cluster.extend({
  projectId: z.string().min(1),
  location: z.string().min(1),
  name: z.string().min(1),
  nodePools: z.array(seedPool).optional(),
}).strict();

/** `POST /_sim/seed` and scenario `seed:`: resources created directly, already RUNNING. */
export const seedSchema = z
  .object({
    projects: z
      .array(z.object({ projectId: z.string().min(1), projectNumber: z.string().regex(/^\d+$/) }).strict())
      .optional(),
    serverConfig: ServerConfig.strict().optional(),
    settings: settingsSchema.optional(),
    clusters: z.array(seedCluster).optional(),
  })
  .strict();

export type SeedInput = z.infer<typeof seedSchema>;

export interface SeedResult {
  clusters: string[];
  nodePools: { name: string; etag: string; version: string }[];
}

/** Applies a seed: all or nothing (every cluster is checked before any is stored). */
export function applySeed(
  state: ClusterState,
  input: SeedInput,
  ctx: DomainContext,
): Result<SeedResult, string> {
  if (input.settings) state.settings = mergeSettings(state.settings, input.settings as Partial<Settings>);
  for (const p of input.projects ?? []) state.projectNumbers[p.projectId] = p.projectNumber;
  if (input.serverConfig) applyServerConfig(state, input.serverConfig);
  const result: SeedResult = { clusters: [], nodePools: [] };
  const built = [];
  for (const [i, c] of (input.clusters ?? []).entries()) {
    const key = clusterKey(c.projectId, c.location, c.name);
    if (state.clusters.has(key))
      return fail(`clusters[${i}]: cluster "${clusterName(c.projectId, c.location, c.name)}" already exists`);
    const { projectId, location, ...cluster } = c;
    const record = buildCluster(
      state,
      projectId,
      location,
      { ...cluster, status: cluster.status ?? 'RUNNING' },
      ctx,
    );
    if (!record.ok) return fail(`clusters[${i}].currentMasterVersion: ${JSON.stringify(record.error)}`);
    built.push({ key, record: record.value });
  }
  for (const { key, record } of built) {
    state.clusters.set(key, record);
    result.clusters.push(clusterName(record.projectId, record.location, record.name));
    for (const [name, pool] of record.pools) {
      result.nodePools.push({
        name: nodePoolName(record.projectId, record.location, record.name, name),
        etag: nodePoolEtag(pool),
        version: pool.pool.version ?? '',
      });
    }
  }
  return ok(result);
}

/** Replaces the given ServerConfig fields; version lists are kept in descending order. */
export function applyServerConfig(state: ClusterState, patch: z.infer<typeof ServerConfig>): void {
  const next = { ...state.serverConfig, ...patch };
  if (next.validNodeVersions) next.validNodeVersions = sortDescending(next.validNodeVersions);
  if (next.validMasterVersions) next.validMasterVersions = sortDescending(next.validMasterVersions);
  state.serverConfig = next;
}
