import { type ApiVersion, operationSelfLink, targetLink } from './names';
import { progressOf } from './operation-schedule';
import { phaseOf, rolloutNodesDone } from './rollouts';
import type { ClusterState, OperationRecord } from './state';
import { timestamp } from './timestamp';

const pct = (k: number, n: number) => (n === 0 ? 0 : (100 * k) / n).toFixed(1);

type Metric = { name: string; intValue: string } | { name: string; stringValue: string };
type Progress = { progress?: { metrics: Metric[] }; detail?: string };

const metric = (name: string, value: number) => ({ name, intValue: String(value) });

/**
 * An operation's `progress` (and `detail`) by type, as the recordings show them:
 * - CREATE_CLUSTER: none while it runs; at DONE its phases counted (recorded: CONFIGURING 8-10 of as
 *   many, DEPLOYING 11-12 of as many, HEALTHCHECKING 1 of 2; the counts here are the raw 2024 cassette's).
 * - UPGRADE_NODES: the node counts while it runs and at the end, a blue-green upgrade's phase first
 *   (`UPGRADE_STAGE`); a change GKE makes in place (no node recreated) ends with only `NODES_TOTAL: 0`.
 * - UPDATE_CLUSTER aimed at a pool (autoscaling): `NODES_TOTAL: 0` at DONE (recorded); aimed at the
 *   cluster: none (recorded for addons, endpoints, logging and monitoring updates).
 * - CREATE_NODE_POOL, DELETE_NODE_POOL, DELETE_CLUSTER: none (recorded by gcloud and Config Connector).
 * - UPGRADE_MASTER, SET_NODE_POOL_SIZE, SET_NODE_POOL_MANAGEMENT and the cluster setters: none (no
 *   recording shows one).
 */
function progressFor(op: OperationRecord, now: number): Progress {
  switch (op.type) {
    case 'CREATE_CLUSTER':
      if (op.status !== 'DONE' || op.error) return {};
      return {
        progress: {
          metrics: [
            metric('CLUSTER_CONFIGURING', 10),
            metric('CLUSTER_CONFIGURING_TOTAL', 10),
            metric('CLUSTER_DEPLOYING', 12),
            metric('CLUSTER_DEPLOYING_TOTAL', 12),
            metric('CLUSTER_HEALTHCHECKING', 1),
            metric('CLUSTER_HEALTHCHECKING_TOTAL', 2),
          ],
        },
      };
    case 'UPGRADE_NODES':
      return nodeProgress(op, now);
    case 'UPDATE_CLUSTER':
      return op.nodePool !== undefined && op.nodesTotal === 0 && op.status === 'DONE'
        ? { progress: { metrics: [metric('NODES_TOTAL', 0)] } }
        : {};
    default:
      return {};
  }
}

/** UPGRADE_NODES: nodes processed of the pool's, per batch of a rollout or by the clock's fraction. */
function nodeProgress(op: OperationRecord, now: number): Progress {
  const n = op.nodesTotal;
  const k = op.rollout ? rolloutNodesDone(op) : Math.floor(n * progressOf(op, now));
  // A blue-green upgrade names its phase first (recorded: `{name: "UPGRADE_STAGE", stringValue: …}`).
  const stage = op.rollout?.strategy === 'BLUE_GREEN' ? phaseOf(op.rollout) : undefined;
  const stageMetric: Metric[] = stage ? [{ name: 'UPGRADE_STAGE', stringValue: stage }] : [];
  if (n === 0 && stageMetric.length === 0) {
    // Changes made in place (taints, labels, …): the recordings end with only `NODES_TOTAL: 0`.
    return op.status === 'DONE' ? { progress: { metrics: [metric('NODES_TOTAL', 0)] } } : {};
  }
  if (op.status === 'PENDING') return {};
  if (op.status === 'RUNNING') {
    return {
      detail: `Updating ${op.nodePool}, processed ${k} out of ${n} nodes (${pct(k, n)}%)`,
      progress: {
        metrics: [
          ...stageMetric,
          metric('NODES_TOTAL', n),
          metric('NODES_COMPLETE', k),
          metric('NODES_DONE', k),
        ],
      },
    };
  }
  const failed = op.error && op.error.code !== 1 ? Math.min(1, n - k) : 0;
  return {
    progress: {
      metrics: [
        ...stageMetric,
        metric('NODES_TOTAL', n),
        metric('NODES_FAILED', failed),
        metric('NODES_COMPLETE', k),
        metric('NODES_DONE', k + failed),
        metric('NODE_PDB_DELAY_SECONDS', 0),
      ],
    },
  };
}

/**
 * The wire form of an operation at `now`: links in the caller's API version, progress metrics derived
 * from the clock (reading never changes the operation).
 */
export function renderOperation(state: ClusterState, op: OperationRecord, now: number, version: ApiVersion) {
  const { progress, detail } = progressFor(op, now);
  return {
    name: op.id,
    zone: op.location,
    operationType: op.type,
    status: op.status,
    ...(detail ? { detail } : {}),
    ...(op.statusMessage ? { statusMessage: op.statusMessage } : {}),
    selfLink: operationSelfLink(state, version, op.projectId, op.location, op.id),
    targetLink: targetLink(state, version, op.projectId, op.location, op.cluster, op.nodePool),
    startTime: timestamp(op.startTime),
    ...(op.endTime !== undefined ? { endTime: timestamp(op.endTime) } : {}),
    ...(progress ? { progress } : {}),
    // No error.details: the GAPIC REST client cannot decode ErrorInfo/RequestInfo inside an Operation.
    ...(op.error ? { error: { code: op.error.code, message: op.error.message } } : {}),
  };
}
