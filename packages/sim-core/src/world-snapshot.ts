import * as z from 'zod';
import { parseTime } from './clock';
import type { SimulatorDefinition } from './definition';
import { SimInputError } from './duration';
import { createFaultEngine, type FaultRule } from './faults/engine';
import { CONTROL_JSON_DEPTH } from './http/body';
import { lazy } from './lazy';
import { parseInput } from './validation';
import type { World } from './world-types';

/**
 * A whole world as `GET /_sim/state` answers it and `PUT /_sim/state` and `--state-file` take it back:
 * the simulator's own state beside the clock and the fault rules. On import every clock field is
 * optional, and one left out keeps the world's; `clock.now`, when given, is a time (`GET` always writes
 * one), so `""` is refused rather than read as "keep the clock".
 */
export interface WorldSnapshot {
  simulator: string;
  version: string;
  namespace: string;
  clock: { mode: string; speed: number; now: string };
  faults: unknown[];
  state: unknown;
}

const snapshotSchema = lazy(() =>
  z
    .object({
      simulator: z.string().optional(),
      version: z.string().optional(),
      namespace: z.string().optional(),
      clock: z
        .object({ mode: z.enum(['real', 'manual']), speed: z.number().positive(), now: z.string() })
        .partial()
        .passthrough()
        .optional(),
      faults: z.array(z.record(z.string(), z.unknown())).optional(),
      state: z.unknown(),
    })
    .strict(),
);

/**
 * Levels a snapshot adds around a value the API or the control plane took as given, with margin.
 * Measured, the deepest: annotation-sim's organization `contact` is 2 levels down its request body and
 * 8 down a snapshot in a delivery's payload (`state.deliveries[i][1].request.organization.contact`); a
 * cluster-sim pool's opaque `config` member, 4 down `nodePools.create`'s body and 10 down a snapshot in
 * a stopped upgrade (`state.clusters[i].pools[j].partial.from.config`): 6 more in both.
 */
const SNAPSHOT_NESTING = 16;

/**
 * Deepest nesting of a world's snapshot that `PUT /_sim/state` and `--state-file` take back: whatever
 * the simulator's API (`limits.maxJsonDepth`) or the control plane's own documents took, and the
 * snapshot's levels around it. Nothing that reads a snapshot recurses on its depth (JSON.parse and the
 * file reader are iterative; zod takes stored values as `unknown`); past it, what later renders a
 * value might.
 *
 * @example snapshotJsonDepth({ limits: { maxJsonDepth: 1000 } }) // 1016
 */
export function snapshotJsonDepth(def: Pick<SimulatorDefinition<unknown>, 'limits'>): number {
  // The kernel's default API depth (100) is below the control plane's.
  return Math.max(def.limits?.maxJsonDepth ?? 0, CONTROL_JSON_DEPTH) + SNAPSHOT_NESTING;
}

/** The world's snapshot (`GET /_sim/state`). */
export function exportWorldSnapshot<S>(def: SimulatorDefinition<S>, w: World<S>): WorldSnapshot {
  return {
    simulator: def.name,
    version: def.version,
    namespace: w.namespace,
    clock: { mode: w.clock.mode, speed: w.clock.speed, now: w.clock.iso() },
    faults: w.faults.snapshot(),
    state: def.exportState(w),
  };
}

/**
 * Replaces the world from a snapshot (`PUT /_sim/state`, `--state-file`). A bad one is a SimInputError
 * with the field path, and the world is left as it was: everything is checked before anything changes.
 */
export function importWorldSnapshot<S>(def: SimulatorDefinition<S>, w: World<S>, input: unknown): void {
  const body = parseInput(snapshotSchema(), input);
  if (body.simulator !== undefined && body.simulator !== def.name) {
    throw new SimInputError(`simulator: this snapshot is of ${body.simulator}, not ${def.name}`, 'simulator');
  }
  // Validate the rules on a scratch engine before anything changes: an import is all or nothing.
  const rules = (body.faults ?? []) as unknown as FaultRule[];
  const scratch = createFaultEngine({
    clock: w.clock,
    random: w.random,
    errorEffect: def.errorEffect,
    domainEffects: def.domainEffects,
  });
  rules.forEach((rule, i) => {
    try {
      scratch.add({
        id: rule.id,
        description: rule.description,
        match: rule.match,
        trigger: rule.trigger,
        phase: rule.phase,
        effect: rule.effect,
      });
    } catch (err) {
      if (err instanceof SimInputError)
        throw new SimInputError(`faults[${i}].${err.message}`, ['faults', i, ...err.segments]);
      throw err;
    }
  });
  // The clock's time too: a bad one found after the state was replaced would leave the world half imported.
  const now = body.clock?.now === undefined ? undefined : timeAt(body.clock.now, ['clock', 'now']);
  def.importState(w, body.state);
  w.faults.restore(rules);
  if (body.clock?.mode !== undefined || body.clock?.speed !== undefined)
    w.clock.configure({ mode: body.clock.mode, speed: body.clock.speed });
  if (now !== undefined) w.clock.set(now);
}

/**
 * `parseTime` with the input's path in its error. An empty time used to be skipped (it kept the
 * clock): its refusal says how to keep the clock.
 */
function timeAt(value: string, path: (string | number)[]): number {
  try {
    return parseTime(value);
  } catch (err) {
    if (!(err instanceof SimInputError)) throw err;
    const hint = value === '' ? ` (leave ${path.join('.')} out to keep the world's clock)` : '';
    throw new SimInputError(`${path.join('.')}: ${err.message}${hint}`, path);
  }
}
