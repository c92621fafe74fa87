import { type ApiVersion, operationSelfLink, targetLink } from './names';
import { progressOf } from './operation-schedule';
import { phaseOf, rolloutNodesDone } from './rollouts';
import type { ClusterState, OperationRecord } from './state';
import { timestamp } from './timestamp';

const pct = (k: number, n: number) => (n === 0 ? 0 : (100 * k) / n).toFixed(1);

/**
 * The wire form of an operation at `now`: links in the caller's API version, progress metrics derived
 * from the clock (reading never changes the operation).
 */
export function renderOperation(state: ClusterState, op: OperationRecord, now: number, version: ApiVersion) {
  const fraction = progressOf(op, now);
  const n = op.nodesTotal;
  const k = op.rollout ? rolloutNodesDone(op) : Math.floor(n * fraction);
  const metric = (name: string, value: number) => ({ name, intValue: String(value) });
  // A blue-green upgrade names its phase first (recorded: `{name: "UPGRADE_STAGE", stringValue: …}`).
  const stage = op.rollout?.strategy === 'BLUE_GREEN' ? phaseOf(op.rollout) : undefined;
  const stageMetric = stage ? [{ name: 'UPGRADE_STAGE', stringValue: stage }] : [];
  const isNodes = op.type === 'UPGRADE_NODES';
  const onPool = isNodes || (op.type === 'UPDATE_CLUSTER' && op.nodePool !== undefined);
  let progress:
    | { metrics: ({ name: string; intValue: string } | { name: string; stringValue: string })[] }
    | undefined;
  let detail: string | undefined;
  if (op.type === 'CREATE_CLUSTER') {
    // A created cluster's DONE operation counts its phases (recorded: CONFIGURING 8-10 of as many,
    // DEPLOYING 11-12 of as many, HEALTHCHECKING 1 of 2); the counts here are the raw 2024 cassette's.
    if (op.status === 'DONE' && !op.error) {
      progress = {
        metrics: [
          metric('CLUSTER_CONFIGURING', 10),
          metric('CLUSTER_CONFIGURING_TOTAL', 10),
          metric('CLUSTER_DEPLOYING', 12),
          metric('CLUSTER_DEPLOYING_TOTAL', 12),
          metric('CLUSTER_HEALTHCHECKING', 1),
          metric('CLUSTER_HEALTHCHECKING_TOTAL', 2),
        ],
      };
    }
  } else if (onPool && n === 0 && stageMetric.length === 0) {
    // Changes made in place (taints, autoscaling): the recordings end with only `NODES_TOTAL: 0`.
    if (op.status === 'DONE') progress = { metrics: [metric('NODES_TOTAL', 0)] };
  } else if (isNodes && op.status === 'RUNNING') {
    detail = `Updating ${op.nodePool}, processed ${k} out of ${n} nodes (${pct(k, n)}%)`;
    progress = {
      metrics: [
        ...stageMetric,
        metric('NODES_TOTAL', n),
        metric('NODES_COMPLETE', k),
        metric('NODES_DONE', k),
      ],
    };
  } else if (isNodes && op.status !== 'PENDING') {
    const failed = op.error && op.error.code !== 1 ? Math.min(1, n - k) : 0;
    progress = {
      metrics: [
        ...stageMetric,
        metric('NODES_TOTAL', n),
        metric('NODES_FAILED', failed),
        metric('NODES_COMPLETE', k),
        metric('NODES_DONE', k + failed),
        metric('NODE_PDB_DELAY_SECONDS', 0),
      ],
    };
  }
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
