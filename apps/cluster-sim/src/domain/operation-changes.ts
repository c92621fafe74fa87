import { applyRotationEnd, applyRotationStart, markNodesRecreated } from './cluster-rotation';
import { instanceGroupUrls } from './defaults';
import { refreshCluster, writePool } from './node-pools';
import { phaseOf, rolloutNodesDone } from './rollouts';
import type { ClusterRecord, ClusterState, OperationRecord, UpgradeDetailsShape } from './state';
import { clusterKey } from './state';
import { timestamp } from './timestamp';

/**
 * What an operation does to its cluster and pool when it ends: the change it carried lands when it is
 * DONE, or the target shows the failure (and keeps a partly upgraded pool) when it fails or is cancelled.
 */

/** The cluster an operation works on, if it still exists. */
export function targetRecord(state: ClusterState, op: OperationRecord): ClusterRecord | undefined {
  return state.clusters.get(clusterKey(op.projectId, op.location, op.cluster));
}

export function completeChange(state: ClusterState, op: OperationRecord): void {
  const record = targetRecord(state, op);
  if (!record) return;
  const change = op.change;
  const poolRecord = op.nodePool === undefined ? undefined : record.pools.get(op.nodePool);
  switch (change.kind) {
    case 'updatePool':
      // Every completed mutation changes the etag, also one that leaves the content as it was (same version).
      if (poolRecord) {
        const { updateInfo: _, ...desired } = change.desired;
        const green = op.rollout?.strategy === 'BLUE_GREEN' ? op.rollout.greenInstanceGroupUrls : undefined;
        writePool(
          poolRecord,
          { ...desired, ...(green ? { instanceGroupUrls: green } : {}), status: 'RUNNING' },
          { bump: true },
        );
        if (op.rollout) {
          delete poolRecord.partial;
          markNodesRecreated(record, op.nodePool as string);
        }
        endUpgrade(poolRecord.upgrades, op, 'SUCCEEDED');
      }
      break;
    case 'setPool':
      if (poolRecord) writePool(poolRecord, { ...poolRecord.pool, ...change.fields }, { bump: true });
      break;
    case 'rollbackPool':
      if (poolRecord) {
        const { updateInfo: _, ...restore } = change.restore;
        writePool(poolRecord, { ...restore, status: 'RUNNING' }, { bump: true });
        delete poolRecord.partial;
      }
      break;
    case 'createPool':
      if (poolRecord) writePool(poolRecord, { ...poolRecord.pool, status: 'RUNNING' });
      break;
    case 'deletePool':
      if (op.nodePool !== undefined) {
        record.pools.delete(op.nodePool);
        // GKE drops the deprecated cluster.nodeConfig mirror with the default pool.
        if (op.nodePool === 'default-pool') delete record.cluster.nodeConfig;
      }
      break;
    case 'createCluster':
      record.cluster.status = 'RUNNING';
      for (const p of record.pools.values()) writePool(p, { ...p.pool, status: 'RUNNING' });
      break;
    case 'deleteCluster':
      state.clusters.delete(clusterKey(op.projectId, op.location, op.cluster));
      return;
    case 'upgradeMaster':
      record.cluster.currentMasterVersion = change.version;
      endUpgrade(record.masterUpgrades, op, 'SUCCEEDED');
      break;
    case 'setLocations':
      // "changing cluster locations will update the locations of all node pools" (ClusterUpdate's reference):
      // each pool keeps its instance groups in the zones that stay and gets new ones in the others.
      record.cluster.locations = [...change.locations];
      for (const p of record.pools.values()) {
        const urls = p.pool.instanceGroupUrls ?? [];
        const inZone = (zone: string) => urls.find((u) => u.includes(`/zones/${zone}/`));
        const template = urls[0];
        writePool(
          p,
          {
            ...p.pool,
            locations: [...change.locations],
            instanceGroupUrls: change.locations.map(
              (zone) =>
                inZone(zone) ??
                (template
                  ? template
                      .replace(/\/zones\/[^/]+\//, `/zones/${zone}/`)
                      .replace(/-[0-9a-f]{8}-grp$/, `-${change.hash}-grp`)
                  : (instanceGroupUrls(
                      op.projectId,
                      op.cluster,
                      p.pool.name ?? '',
                      [zone],
                      change.hash,
                    )[0] as string)),
            ),
          },
          { bump: true },
        );
      }
      break;
    case 'setCluster':
      Object.assign(record.cluster, change.fields);
      if (change.recreatesNodes) {
        for (const [name, p] of record.pools) {
          writePool(p, { ...p.pool }, { bump: true });
          markNodesRecreated(record, name);
        }
      }
      break;
    case 'startIpRotation':
      applyRotationStart(record, change.credentials, change.endpoint);
      break;
    case 'completeIpRotation':
      applyRotationEnd(record);
      break;
    case 'none':
      break;
  }
  refreshCluster(state, record);
}

/** Closes the upgrade's entry in a pool's or the master's upgrade history (fetch…UpgradeInfo). */
function endUpgrade(
  upgrades: UpgradeDetailsShape[] | undefined,
  op: OperationRecord,
  state: 'SUCCEEDED' | 'FAILED' | 'CANCELED',
): void {
  const entry = upgrades?.find((u) => u.state === 'RUNNING' && u.startTime === timestamp(op.startTime));
  if (!entry) return;
  entry.state = state;
  entry.endTime = timestamp(op.endTime ?? op.startTime);
}

export function failChange(state: ClusterState, op: OperationRecord, cancelled: boolean): void {
  const record = targetRecord(state, op);
  if (!record) return;
  const poolRecord = op.nodePool === undefined ? undefined : record.pools.get(op.nodePool);
  if (poolRecord) {
    // A cancelled update leaves the pool running; a failed one shows the error status.
    const status = cancelled && op.change.kind === 'updatePool' ? 'RUNNING' : state.settings.failedPoolStatus;
    const rollout = op.rollout;
    if (rollout?.kind === 'upgrade' && op.change.kind === 'updatePool') {
      // Nodes already upgraded stay upgraded (GKE: "Rolls back a previously Aborted or Failed NodePool
      // upgrade"): a mixed pool, kept for nodePools.rollback and shown in fetchNodePoolUpgradeInfo.
      const done = rolloutNodesDone(op);
      const phase = phaseOf(rollout);
      if (done > 0 || phase !== undefined) {
        poolRecord.partial = {
          strategy: rollout.strategy,
          from: rollout.from,
          to: op.change.desired,
          nodesUpgraded: done,
          ...(phase ? { phase } : {}),
          ...(rollout.greenInstanceGroupUrls
            ? { greenInstanceGroupUrls: rollout.greenInstanceGroupUrls }
            : {}),
        };
      }
      endUpgrade(poolRecord.upgrades, op, cancelled ? 'CANCELED' : 'FAILED');
    }
    writePool(poolRecord, { ...poolRecord.pool, status }, { bump: true });
  }
  if (op.change.kind === 'upgradeMaster')
    endUpgrade(record.masterUpgrades, op, cancelled ? 'CANCELED' : 'FAILED');
  if (op.change.kind === 'createCluster' || op.change.kind === 'deleteCluster')
    record.cluster.status = 'ERROR';
  refreshCluster(state, record);
}
