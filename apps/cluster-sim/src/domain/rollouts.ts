import type { UpdateNodePoolRequestShape } from '@sims/cluster-schema';
import type {
  BlueGreenPhaseName,
  NodePoolShape,
  OperationRecord,
  PartialUpgrade,
  Rollout,
  RolloutStep,
  Settings,
} from './state';

/**
 * Node rollouts: how an UPGRADE_NODES operation that recreates nodes unfolds, as steps on the world
 * clock. Surge upgrades a zone at a time in batches of `maxSurge + maxUnavailable` nodes (GKE's REST
 * reference: "(maxUnavailable + maxSurge) determines the level of parallelism"; the strategies page: "In
 * a node pool spread across multiple zones, upgrades take place one zone at a time"). Blue-green walks
 * its phases: create the green pool, cordon the blue one, (wait, under the autoscaled policy,) drain it
 * batch by batch with a soak after each batch, soak the whole pool, delete the blue pool.
 */

/**
 * UpdateNodePoolRequest fields GKE applies to the nodes in place (the recorded taints update is an
 * UPGRADE_NODES operation whose only metric is `NODES_TOTAL: 0`); every other field recreates nodes,
 * and so does a `nodeVersion`, also the version the pool already runs.
 */
const IN_PLACE_FIELDS: ReadonlySet<string> = new Set([
  'tags',
  'taints',
  'labels',
  'resourceLabels',
  'resourceManagerTags',
  'upgradeSettings',
  'nodeDrainConfig',
  'maintenancePolicy',
  'locations',
  'queuedProvisioning',
]);

const DEPRECATED_IDS: ReadonlySet<string> = new Set([
  'projectId',
  'zone',
  'clusterId',
  'nodePoolId',
  'name',
  'etag',
]);

/** True when the update recreates the pool's nodes (a rollout), false when GKE applies it in place. */
export function recreatesNodes(req: UpdateNodePoolRequestShape): boolean {
  return Object.entries(req).some(
    ([field, value]) =>
      value !== undefined && value !== '' && !IN_PLACE_FIELDS.has(field) && !DEPRECATED_IDS.has(field),
  );
}

/** A protobuf Duration (`"3600s"`, `"1.5s"`) in ms. */
function durationMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number.parseFloat(value);
  return Number.isFinite(seconds) ? Math.max(0, Math.round(seconds * 1000)) : undefined;
}

/** The pool's zones (a pool without `locations` is in one). */
function zonesOf(pool: NodePoolShape): string[] {
  return pool.locations && pool.locations.length > 0 ? pool.locations : [''];
}

function strategyOf(pool: NodePoolShape): 'SURGE' | 'BLUE_GREEN' {
  return pool.upgradeSettings?.strategy === 'BLUE_GREEN' ? 'BLUE_GREEN' : 'SURGE';
}

/** Surge parallelism: `maxSurge` + `maxUnavailable` (GKE's default settings are maxSurge 1, maxUnavailable 0). */
function surgeSettings(pool: NodePoolShape) {
  const us = pool.upgradeSettings;
  const maxSurge = us === undefined ? 1 : (us.maxSurge ?? 0);
  const maxUnavailable = us?.maxUnavailable ?? 0;
  return { maxSurge, parallel: Math.max(1, maxSurge + maxUnavailable) };
}

/** The running time shared out when no explicit timing is set: an upgrade takes as long as any operation. */
function share(settings: Settings, units: number, explicit: number | undefined): number {
  if (explicit !== undefined) return explicit;
  return Math.round((settings.operationDurationMs * 0.9) / Math.max(1, units));
}

/**
 * Surge batches over `nodes` per zone: a batch starts at each step (its surge nodes exist while it
 * runs); the operation is DONE when the last batch ends.
 */
function surgeSteps(pool: NodePoolShape, perZone: number, settings: Settings) {
  const { maxSurge, parallel } = surgeSettings(pool);
  const batches: { zone: string; size: number }[] = [];
  for (const zone of zonesOf(pool)) {
    for (let left = perZone; left > 0; left -= parallel)
      batches.push({ zone, size: Math.min(parallel, left) });
  }
  const batchMs = share(settings, batches.length, settings.rollout.batchMs);
  let done = 0;
  const steps: RolloutStep[] = batches.map((b, i) => {
    const step: RolloutStep = {
      offset: i * batchMs,
      nodesDone: done,
      extraNodes: Math.min(maxSurge, b.size),
      batch: i + 1,
      ...(b.zone ? { zone: b.zone } : {}),
    };
    done += b.size;
    return step;
  });
  return { steps, total: batches.length * batchMs };
}

/** Blue-green phases (the rollout policy of the pool's blueGreenSettings, GKE's defaults otherwise). */
function blueGreenSteps(pool: NodePoolShape, settings: Settings) {
  const bg = pool.upgradeSettings?.blueGreenSettings ?? {};
  const total = (pool.initialNodeCount ?? 0) * zonesOf(pool).length;
  const autoscaled = bg.autoscaledRolloutPolicy !== undefined;
  const standard = bg.standardRolloutPolicy ?? {};
  // Batch size: batchNodeCount, or batchPercentage of the pool; 1 node by default; 0 drains all at once.
  let size = 1;
  if (autoscaled) size = total;
  else if (standard.batchNodeCount !== undefined) size = standard.batchNodeCount;
  else if (standard.batchPercentage !== undefined) size = Math.ceil(standard.batchPercentage * total);
  if (size <= 0) size = total;
  const batches = total === 0 ? 0 : Math.ceil(total / size);
  const batchMs = share(settings, 3 + batches, settings.rollout.batchMs);
  const phaseMs = share(settings, 3 + batches, settings.rollout.phaseMs);
  const batchSoak = durationMs(standard.batchSoakDuration) ?? 0;
  const poolSoak = durationMs(bg.nodePoolSoakDuration) ?? settings.rollout.defaultNodePoolSoakMs;
  const waitForDrain = autoscaled
    ? (durationMs(bg.autoscaledRolloutPolicy?.waitForDrainDuration) ?? settings.rollout.defaultWaitForDrainMs)
    : 0;
  const steps: RolloutStep[] = [];
  let t = 0;
  const at = (phase: BlueGreenPhaseName, nodesDone: number, extraNodes: number) =>
    steps.push({ offset: t, nodesDone, extraNodes, phase });
  at('CREATING_GREEN_POOL', 0, 0);
  t += phaseMs;
  at('CORDONING_BLUE_POOL', 0, total);
  t += phaseMs;
  if (autoscaled) {
    at('WAITING_TO_DRAIN_BLUE_POOL', 0, total);
    t += waitForDrain;
  }
  at('DRAINING_BLUE_POOL', 0, total);
  for (let k = 1; k <= batches; k++) {
    t += batchMs;
    const drained = Math.min(total, k * size);
    if (k < batches) {
      at('DRAINING_BLUE_POOL', drained, total);
      t += batchSoak;
    }
  }
  at('NODE_POOL_SOAKING', total, total);
  t += poolSoak;
  at('DELETING_BLUE_POOL', total, total);
  t += phaseMs;
  return { steps, total: t };
}

/** Plans the rollout of an update from `from` to `to` (the pool's upgrade settings as updated). */
export function planUpgrade(
  from: NodePoolShape,
  to: NodePoolShape,
  settings: Settings,
  now: number,
  greenInstanceGroupUrls: string[],
): Rollout {
  const strategy = strategyOf(to);
  const plan =
    strategy === 'BLUE_GREEN'
      ? blueGreenSteps(to, settings)
      : surgeSteps(to, from.initialNodeCount ?? 0, settings);
  return {
    strategy,
    kind: 'upgrade',
    steps: plan.steps,
    total: plan.total,
    reached: -1,
    from,
    startedAt: now,
    ...(strategy === 'BLUE_GREEN' ? { greenInstanceGroupUrls, greenPoolVersion: to.version } : {}),
  };
}

/**
 * Plans a rollback of a stopped upgrade: surge brings the upgraded nodes back batch by batch; blue-green
 * uncordons the blue pool and deletes the green one (phase ROLLBACK_STARTED).
 */
export function planRollback(
  pool: NodePoolShape,
  partial: PartialUpgrade,
  settings: Settings,
  now: number,
): Rollout {
  if (partial.strategy === 'BLUE_GREEN') {
    const all = (pool.initialNodeCount ?? 0) * zonesOf(pool).length;
    return {
      strategy: 'BLUE_GREEN',
      kind: 'rollback',
      steps: [{ offset: 0, nodesDone: 0, extraNodes: all, phase: 'ROLLBACK_STARTED' }],
      total: share(settings, 1, settings.rollout.phaseMs),
      reached: -1,
      from: partial.from,
      startedAt: now,
      ...(partial.greenInstanceGroupUrls ? { greenInstanceGroupUrls: partial.greenInstanceGroupUrls } : {}),
      greenPoolVersion: partial.to.version,
    };
  }
  const { maxSurge, parallel } = surgeSettings(pool);
  const sizes: number[] = [];
  for (let left = partial.nodesUpgraded; left > 0; left -= parallel) sizes.push(Math.min(parallel, left));
  const batchMs = share(settings, sizes.length, settings.rollout.batchMs);
  let done = 0;
  const steps = sizes.map((size, i) => {
    const step: RolloutStep = {
      offset: i * batchMs,
      nodesDone: done,
      extraNodes: Math.min(maxSurge, size),
      batch: i + 1,
    };
    done += size;
    return step;
  });
  return {
    strategy: 'SURGE',
    kind: 'rollback',
    steps,
    total: sizes.length * batchMs,
    reached: -1,
    from: partial.from,
    startedAt: now,
  };
}

/** Nodes the rollout has moved so far (all of them once DONE without error). */
export function rolloutNodesDone(op: OperationRecord): number {
  const r = op.rollout;
  if (!r) return 0;
  if (op.status === 'DONE' && !op.error) return op.nodesTotal;
  return r.steps[r.reached]?.nodesDone ?? 0;
}

/** The blue-green phase reached (undefined for surge, or before the first step). */
export function phaseOf(rollout: Rollout): BlueGreenPhaseName | undefined {
  return rollout.steps[rollout.reached]?.phase;
}

/** Index of the first step that enters `phase`, or -1. */
function phaseIndex(rollout: Rollout, phase: BlueGreenPhaseName): number {
  return rollout.steps.findIndex((s) => s.phase === phase);
}

/** The step index at which a fault on surge batch `batch` or blue-green phase `phase` takes effect. */
export function faultStep(
  rollout: Rollout,
  at: { batch?: number; phase?: BlueGreenPhaseName },
): number | undefined {
  if (at.batch !== undefined) {
    // Batch k ends where batch k+1 starts (index k), or when the rollout ends.
    if (rollout.strategy !== 'SURGE' || at.batch > rollout.steps.length) return undefined;
    return at.batch;
  }
  if (at.phase !== undefined) {
    const i = phaseIndex(rollout, at.phase);
    if (i < 0) return undefined;
    // The phase ends where a step enters another one.
    let end = i + 1;
    while (end < rollout.steps.length && rollout.steps[end]?.phase === at.phase) end++;
    return end;
  }
  return undefined;
}

/**
 * `completeUpgrade` during the node pool soak: the soak ends now, the blue pool's deletion starts.
 * Returns the ms taken off the rollout (what is left of the soak, at nominal timing).
 */
export function skipSoak(rollout: Rollout, elapsedNominal: number): number {
  const del = phaseIndex(rollout, 'DELETING_BLUE_POOL');
  const step = rollout.steps[del];
  if (!step) return 0;
  const cut = Math.max(0, step.offset - elapsedNominal);
  for (let i = del; i < rollout.steps.length; i++) {
    const s = rollout.steps[i];
    if (s) s.offset -= cut;
  }
  rollout.total -= cut;
  return cut;
}

/** The step index the rollout cannot pass: a stall, a failure, or its end. */
export function stepLimit(rollout: Rollout): number {
  return Math.min(rollout.stalledAt ?? Infinity, rollout.failsAt ?? Infinity, rollout.steps.length);
}

/** Where step `i` falls in the operation's run, in [0, 1] (`steps.length` is the end). */
export function stepFraction(rollout: Rollout, i: number): number {
  if (rollout.total <= 0) return 1;
  const step = rollout.steps[i];
  return step === undefined ? 1 : step.offset / rollout.total;
}

/** World time of step `i` under a time plan. */
export function stepTime(op: OperationRecord, rollout: Rollout, i: number): number {
  if (op.plan.mode !== 'time') return Number.POSITIVE_INFINITY;
  const { runningAt, doneAt } = op.plan;
  return runningAt + Math.round(stepFraction(rollout, i) * (doneAt - runningAt));
}

/** Nominal ms of the rollout elapsed at `now` (time plans), for completeUpgrade's cut. */
export function elapsedNominal(op: OperationRecord, rollout: Rollout, now: number): number {
  if (op.plan.mode !== 'time') {
    const fraction = op.plan.mode === 'polls' ? op.plan.seen / op.plan.polls : 0;
    return fraction * rollout.total;
  }
  const { runningAt, doneAt } = op.plan;
  if (doneAt <= runningAt) return rollout.total;
  return ((now - runningAt) / (doneAt - runningAt)) * rollout.total;
}

/** The blue-green info a pool shows at a step of its rollout. */
export function blueGreenInfo(rollout: Rollout, step: RolloutStep, deletionStart: string | undefined) {
  return {
    blueGreenInfo: {
      phase: step.phase,
      blueInstanceGroupUrls: rollout.from.instanceGroupUrls ?? [],
      greenInstanceGroupUrls: rollout.greenInstanceGroupUrls ?? [],
      ...(deletionStart ? { bluePoolDeletionStartTime: deletionStart } : {}),
      greenPoolVersion: rollout.greenPoolVersion,
    },
  };
}
