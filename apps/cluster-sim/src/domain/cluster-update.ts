import type { UpdateClusterRequestShape } from '@sims/cluster-schema';
import { type ChangeApplier, type ChangeOf, endUpgrade, showPoolFailure } from './change-applier';
import { startClusterOperation } from './cluster-operation';
import { CLUSTER_FIELD_UPDATES, clusterFieldChanges, fieldsGoTogether } from './cluster-update-fields';
import type { DomainContext } from './context';
import { instanceGroupUrls, regionOf } from './defaults';
import { fail, type Result } from './errors';
import { isZone } from './names';
import { writePool } from './node-pools';
import { setNodePoolAutoscaling } from './pool-methods';
import { updateNodePool } from './pool-requests';
import type { ClusterRecord, ClusterState, OperationRecord } from './state';
import { timestamp } from './timestamp';
import { checkMasterVersionChange, resolveMasterVersion } from './versions';

/** The ClusterUpdate fields the simulator applies; the others are refused (NOT_SIMULATED). */
const APPLIED_CLUSTER_UPDATE_FIELDS: ReadonlySet<string> = new Set([
  'desiredMasterVersion',
  'desiredNodeVersion',
  'desiredImageType',
  'desiredNodePoolId',
  'desiredNodePoolAutoscaling',
  'desiredLocations',
  ...Object.keys(CLUSTER_FIELD_UPDATES),
]);

/**
 * clusters.update: `desiredMasterVersion` starts an UPGRADE_MASTER operation (cluster-wide: nothing
 * else may run beside it); `desiredNodeVersion` and `desiredImageType` update a pool
 * (`desiredNodePoolId`, or the only one) with UPGRADE_NODES; `desiredNodePoolAutoscaling` sets that
 * pool's autoscaling; `desiredLocations` moves the nodes' zones with UPDATE_CLUSTER; the fields of
 * `CLUSTER_FIELD_UPDATES` (services, addons, logging and monitoring config, …) change the cluster with
 * UPDATE_CLUSTER. Other fields, and combinations the simulator does not apply together, are refused
 * (NOT_SIMULATED).
 */
export function updateCluster(
  state: ClusterState,
  record: ClusterRecord,
  update: UpdateClusterRequestShape['update'],
  ctx: DomainContext,
): Result<OperationRecord> {
  const u = update ?? {};
  const given = Object.entries(u)
    .filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0))
    .map(([field]) => field);
  if (given.length === 0) return fail({ code: 'CLUSTER_UPDATE_EMPTY' });
  // Every other ClusterUpdate field would change the cluster on GKE: refused until it is simulated, so
  // that no client is told DONE for a change that never happened.
  const refused = given.filter((field) => !APPLIED_CLUSTER_UPDATE_FIELDS.has(field)).sort();
  if (refused.length > 0) {
    return fail({
      code: 'NOT_SIMULATED',
      what: `ClusterUpdate ${refused.length === 1 ? 'field' : 'fields'} ${refused.map((f) => `"${f}"`).join(', ')}`,
    });
  }
  if (u.desiredLocations && u.desiredLocations.length > 0) {
    if (given.length > 1) {
      return fail({
        code: 'NOT_SIMULATED',
        what: 'A ClusterUpdate with desiredLocations and another field together',
      });
    }
    return setClusterLocations(state, record, u.desiredLocations, ctx);
  }
  const fieldUpdates = given.filter((field) => field in CLUSTER_FIELD_UPDATES);
  if (fieldUpdates.length > 0) {
    const others = given.filter((field) => !(field in CLUSTER_FIELD_UPDATES));
    if (others.length > 0 || !fieldsGoTogether(fieldUpdates)) {
      return fail({
        code: 'NOT_SIMULATED',
        what: `A ClusterUpdate with ${given
          .sort()
          .map((f) => `"${f}"`)
          .join(', ')} together`,
      });
    }
    const fields = clusterFieldChanges(record, u, fieldUpdates);
    if (!fields.ok) return fields;
    return startClusterOperation(
      state,
      record,
      'UPDATE_CLUSTER',
      { kind: 'setCluster', fields: fields.value },
      ctx,
    );
  }
  const nodeFields = [u.desiredNodeVersion, u.desiredImageType, u.desiredNodePoolAutoscaling].filter(
    (v) => v !== undefined && v !== '',
  ).length;
  if ((u.desiredMasterVersion && nodeFields > 0) || nodeFields > 1) {
    return fail({
      code: 'NOT_SIMULATED',
      what: u.desiredMasterVersion
        ? 'A ClusterUpdate with desiredMasterVersion and a node pool field together'
        : 'A ClusterUpdate with desiredNodePoolAutoscaling and desiredNodeVersion or desiredImageType together',
    });
  }
  if (u.desiredMasterVersion) {
    const master = resolveMasterVersion(
      u.desiredMasterVersion,
      state.serverConfig.validMasterVersions ?? [],
      record.cluster.currentMasterVersion ?? '',
    );
    if (!master.ok) return master;
    // The rules apply to the resolved version: no minor downgrade, no skipped minor (versions.ts).
    const allowed = record.cluster.currentMasterVersion
      ? checkMasterVersionChange(record.cluster.currentMasterVersion, master.value)
      : master;
    if (!allowed.ok) return allowed;
    const op = startClusterOperation(
      state,
      record,
      'UPGRADE_MASTER',
      { kind: 'upgradeMaster', version: master.value },
      ctx,
    );
    if (op.ok) {
      record.masterUpgrades ??= [];
      record.masterUpgrades.push({
        state: 'RUNNING',
        startTime: timestamp(op.value.startTime),
        ...(record.cluster.currentMasterVersion
          ? { initialVersion: record.cluster.currentMasterVersion }
          : {}),
        targetVersion: master.value,
        startType: 'MANUAL',
      });
    }
    return op;
  }
  if (u.desiredNodeVersion || u.desiredImageType || u.desiredNodePoolAutoscaling) {
    // "If there is only one pool in the cluster and desired_node_pool_id is not provided then the change
    // applies to that single node pool" (ClusterUpdate's reference).
    const pool = u.desiredNodePoolId || (record.pools.size === 1 ? [...record.pools.keys()][0] : undefined);
    if (!pool) return fail({ code: 'NODE_POOL_ID_REQUIRED' });
    if (u.desiredNodePoolAutoscaling)
      return setNodePoolAutoscaling(state, record, pool, u.desiredNodePoolAutoscaling, ctx);
    return updateNodePool(
      state,
      record,
      pool,
      { nodeVersion: u.desiredNodeVersion, imageType: u.desiredImageType },
      ctx,
    );
  }
  // Only desiredNodePoolId: it names the pool a node field applies to, and there is none.
  return fail({ code: 'CLUSTER_UPDATE_EMPTY' });
}

/**
 * ClusterUpdate `desiredLocations`: the zones of the cluster's nodes, which "must always include the
 * cluster's primary zone"; every pool moves to them when the UPDATE_CLUSTER operation is DONE. Texts of
 * the refusals are the simulator's (FIDELITY.md).
 */
function setClusterLocations(
  state: ClusterState,
  record: ClusterRecord,
  locations: string[],
  ctx: DomainContext,
): Result<OperationRecord> {
  const region = regionOf(record.location);
  for (const zone of locations) {
    if (!isZone(zone) || regionOf(zone) !== region) {
      return fail({
        code: 'INVALID_REQUEST',
        message: `Location "${zone}" is not a zone of the cluster's region "${region}".`,
        field: 'update.desired_locations',
      });
    }
  }
  if (new Set(locations).size !== locations.length) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'Locations must not contain duplicates.',
      field: 'update.desired_locations',
    });
  }
  if (isZone(record.location) && !locations.includes(record.location)) {
    return fail({
      code: 'INVALID_REQUEST',
      message: `Locations must include the cluster's primary zone "${record.location}".`,
      field: 'update.desired_locations',
    });
  }
  const change = { kind: 'setLocations' as const, locations: [...locations], hash: ctx.ids.hex(8) };
  return startClusterOperation(state, record, 'UPDATE_CLUSTER', change, ctx);
}

/** UPGRADE_MASTER is DONE: the master runs the new version; its upgrade history entry closes. */
export const UPGRADE_MASTER_CHANGE: ChangeApplier<ChangeOf<'upgradeMaster'>> = {
  apply({ op, change, record }) {
    record.cluster.currentMasterVersion = change.version;
    endUpgrade(record.masterUpgrades, op, 'SUCCEEDED');
  },
  fail(end, cancelled) {
    showPoolFailure(end);
    endUpgrade(end.record.masterUpgrades, end.op, cancelled ? 'CANCELED' : 'FAILED');
  },
};

/**
 * `desiredLocations` is DONE. "Changing cluster locations will update the locations of all node pools"
 * (ClusterUpdate's reference): each pool keeps its instance groups in the zones that stay and gets new
 * ones in the others.
 */
export const SET_LOCATIONS_CHANGE: ChangeApplier<ChangeOf<'setLocations'>> = {
  apply({ op, change, record }) {
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
  },
};
