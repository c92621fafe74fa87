import type { ChangeAppliers } from './change-applier';
import { COMPLETE_IP_ROTATION_CHANGE, START_IP_ROTATION_CHANGE } from './cluster-rotation';
import { SET_CLUSTER_CHANGE } from './cluster-setters';
import { SET_LOCATIONS_CHANGE, UPGRADE_MASTER_CHANGE } from './cluster-update';
import { CREATE_CLUSTER_CHANGE, DELETE_CLUSTER_CHANGE } from './clusters';
import { ROLLBACK_POOL_CHANGE, SET_POOL_CHANGE } from './pool-methods';
import { CREATE_POOL_CHANGE, DELETE_POOL_CHANGE, UPDATE_POOL_CHANGE } from './pool-requests';

/**
 * Every kind of change an operation carries, with what it does when the operation ends, each written in
 * the module that starts it (change-applier.ts says why). The one place that imports them all: the
 * lifecycle (operations.ts) is handed this table by operation-work.ts (the world's timers, polls and the
 * control plane's complete, all at the edge), so it never imports a module that starts operations.
 */
export const OPERATION_CHANGES: ChangeAppliers = Object.freeze({
  updatePool: UPDATE_POOL_CHANGE,
  setPool: SET_POOL_CHANGE,
  rollbackPool: ROLLBACK_POOL_CHANGE,
  createPool: CREATE_POOL_CHANGE,
  deletePool: DELETE_POOL_CHANGE,
  createCluster: CREATE_CLUSTER_CHANGE,
  deleteCluster: DELETE_CLUSTER_CHANGE,
  upgradeMaster: UPGRADE_MASTER_CHANGE,
  setLocations: SET_LOCATIONS_CHANGE,
  setCluster: SET_CLUSTER_CHANGE,
  startIpRotation: START_IP_ROTATION_CHANGE,
  completeIpRotation: COMPLETE_IP_ROTATION_CHANGE,
  // An operation that changes nothing: a rollback with nothing to roll back, a busy-cluster fault's record.
  none: { apply() {} },
});
