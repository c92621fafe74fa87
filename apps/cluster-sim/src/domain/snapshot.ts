import { Cluster, NodePool, ServerConfig, UpgradeDetails } from '@sims/cluster-schema';
import { inputRefusal, joinPath, lazy } from '@sims/sim-core';
import * as z from 'zod';
import { fail, ok, type Result } from './errors';
import { settingsSchema } from './seed';
import { operationSnapshotSchema } from './snapshot-operations';
import {
  type ClusterState,
  clusterKey,
  DEFAULT_SETTINGS,
  mergeSettings,
  type OperationRecord,
  type PartialUpgrade,
  type Settings,
} from './state';

/** A world's cluster state as plain JSON (`GET /_sim/state`). */
export function exportClusterState(state: ClusterState) {
  return {
    clusters: [...state.clusters.values()].map((r) => ({
      projectId: r.projectId,
      location: r.location,
      name: r.name,
      generation: r.generation,
      cluster: r.cluster,
      ...(r.masterUpgrades ? { masterUpgrades: r.masterUpgrades } : {}),
      ...(r.credentials ? { credentials: r.credentials } : {}),
      pools: [...r.pools.values()].map((p) => ({
        pool: p.pool,
        generation: p.generation,
        ...(p.partial ? { partial: p.partial } : {}),
        ...(p.upgrades ? { upgrades: p.upgrades } : {}),
      })),
    })),
    operations: [...state.operations.values()],
    projectNumbers: state.projectNumbers,
    serverConfig: state.serverConfig,
    settings: state.settings,
  };
}

/** A cluster record of a snapshot, with its pools. */
const clusterSnapshotSchema = lazy(() =>
  z
    .object({
      projectId: z.string(),
      location: z.string(),
      name: z.string(),
      generation: z.number().int().default(0),
      cluster: Cluster,
      masterUpgrades: z.array(UpgradeDetails).optional(),
      credentials: z
        .object({
          rotations: z.number().int().nonnegative(),
          keyRotations: z.number().int().nonnegative(),
          rotation: z
            .object({
              credentials: z.boolean(),
              poolsToRecreate: z.array(z.string()),
              recreateFrom: z.number().optional(),
            })
            .optional(),
        })
        .optional(),
      pools: z.array(
        z.object({
          pool: NodePool.extend({ name: z.string() }),
          generation: z.number().int().default(0),
          partial: z
            .looseObject({
              strategy: z.enum(['SURGE', 'BLUE_GREEN']),
              from: NodePool,
              to: NodePool,
              nodesUpgraded: z.number().int().nonnegative(),
            })
            .optional(),
          upgrades: z.array(UpgradeDetails).optional(),
        }),
      ),
    })
    .strict(),
);

/** Built on first use (docs/decisions/0009): only `PUT /_sim/state` and `--state-file` need it. */
const snapshotSchema = lazy(() =>
  z
    .object({
      // A part left out starts as a new world has it (annotation-sim's parts do the same).
      clusters: z.array(clusterSnapshotSchema()).default([]),
      operations: z.array(operationSnapshotSchema()).default([]),
      projectNumbers: z.record(z.string(), z.string()).default({}),
      serverConfig: ServerConfig.optional(),
      settings: settingsSchema().optional(),
    })
    .strict(),
);

/** Why a snapshot was refused: the path of the first problem (from `state`) and the message, paths in it. */
export interface SnapshotRefusal {
  path: (string | number)[];
  message: string;
}

type Snapshot = z.output<ReturnType<typeof snapshotSchema>>;

/**
 * Parses a snapshot into a fresh state, checked whole: its shape (every operation record typed, so what
 * an import schedules cannot fail later), a cluster, a pool of a cluster or an operation id given twice,
 * a cluster whose wire `name`/`location` are not its own. Nothing changes on a refusal.
 */
export function importClusterState(
  snapshot: unknown,
  fresh: ClusterState,
): Result<ClusterState, SnapshotRefusal> {
  const parsed = snapshotSchema().safeParse(snapshot);
  if (!parsed.success) return fail(inputRefusal(parsed.error, ['state']));
  const s = parsed.data;
  const refusal = consistencyRefusal(s);
  if (!refusal) return ok(stateOf(s, fresh));
  const path = ['state', ...refusal.path];
  return fail({ path, message: `${joinPath(path)}: ${refusal.message}` });
}

/** The first key given twice or record that contradicts its own key, in one pass (Maps of what was seen). */
function consistencyRefusal(s: Snapshot): SnapshotRefusal | undefined {
  const clusters = new Map<string, number>();
  for (const [i, c] of s.clusters.entries()) {
    const key = clusterKey(c.projectId, c.location, c.name);
    const first = clusters.get(key);
    if (first !== undefined)
      return {
        path: ['clusters', i, 'name'],
        message: `cluster ${key} is there twice (also state.clusters[${first}])`,
      };
    clusters.set(key, i);
    for (const field of ['name', 'location'] as const) {
      const own = c.cluster[field];
      if (own !== undefined && own !== c[field])
        return {
          path: ['clusters', i, 'cluster', field],
          message: `"${own}" is not the cluster's ${field} "${c[field]}"`,
        };
    }
    const pools = new Map<string, number>();
    for (const [j, p] of c.pools.entries()) {
      const seen = pools.get(p.pool.name);
      if (seen !== undefined)
        return {
          path: ['clusters', i, 'pools', j, 'pool', 'name'],
          message: `node pool "${p.pool.name}" is there twice (also state.clusters[${i}].pools[${seen}])`,
        };
      pools.set(p.pool.name, j);
    }
  }
  const operations = new Map<string, number>();
  for (const [i, op] of s.operations.entries()) {
    const first = operations.get(op.id);
    if (first !== undefined)
      return {
        path: ['operations', i, 'id'],
        message: `operation ${op.id} is there twice (also state.operations[${first}])`,
      };
    operations.set(op.id, i);
  }
  return undefined;
}

function stateOf(s: Snapshot, fresh: ClusterState): ClusterState {
  return {
    clusters: new Map(
      s.clusters.map((c) => [
        `${c.projectId}/${c.location}/${c.name}`,
        {
          projectId: c.projectId,
          location: c.location,
          name: c.name,
          generation: c.generation,
          cluster: c.cluster,
          ...(c.masterUpgrades ? { masterUpgrades: c.masterUpgrades } : {}),
          ...(c.credentials ? { credentials: c.credentials } : {}),
          pools: new Map(
            c.pools.map((p) => [
              p.pool.name,
              {
                pool: p.pool,
                generation: p.generation,
                ...(p.partial ? { partial: p.partial as PartialUpgrade } : {}),
                ...(p.upgrades ? { upgrades: p.upgrades } : {}),
              },
            ]),
          ),
        },
      ]),
    ),
    operations: new Map(s.operations.map((op) => [op.id, op as OperationRecord])),
    projectNumbers: s.projectNumbers,
    serverConfig: s.serverConfig ?? fresh.serverConfig,
    settings: s.settings ? mergeSettings(DEFAULT_SETTINGS, s.settings as Partial<Settings>) : fresh.settings,
  };
}
