import { Cluster, NodePool, ServerConfig, UpgradeDetails } from '@sims/cluster-schema';
import { lazy } from '@sims/sim-core';
import * as z from 'zod';
import { settingsSchema } from './seed';
import {
  type ClusterState,
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

/** Built on first use (docs/decisions/0009): only `PUT /_sim/state` and `--state-file` need it. */
const snapshotSchema = lazy(() =>
  z
    .object({
      clusters: z.array(
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
      ),
      operations: z.array(
        z.looseObject({
          id: z.string().regex(/^operation-\d{13}-[0-9a-f-]+$/),
          projectId: z.string(),
          location: z.string(),
          cluster: z.string(),
          status: z.enum(['PENDING', 'RUNNING', 'ABORTING', 'DONE']),
          startTime: z.number(),
          plan: z.looseObject({ mode: z.enum(['time', 'polls']) }),
          change: z.looseObject({ kind: z.string() }),
        }),
      ),
      projectNumbers: z.record(z.string(), z.string()).default({}),
      serverConfig: ServerConfig,
      settings: settingsSchema().default({}),
    })
    .strict(),
);

/** Parses a snapshot into a fresh state; throws the zod error on a bad one (nothing changes then). */
export function importClusterState(snapshot: unknown): ClusterState | z.ZodError {
  const parsed = snapshotSchema().safeParse(snapshot);
  if (!parsed.success) return parsed.error;
  const s = parsed.data;
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
    operations: new Map(s.operations.map((op) => [op.id, op as unknown as OperationRecord])),
    projectNumbers: s.projectNumbers,
    serverConfig: s.serverConfig,
    settings: mergeSettings(DEFAULT_SETTINGS, s.settings as Partial<Settings>),
  };
}
