import * as z from 'zod';
import { parseTime } from './clock';
import { SimInputError } from './duration';
import { createFaultEngine, type FaultRule } from './faults/engine';
import { lazy } from './lazy';
import type { SimulatorDefinition } from './simulator';
import { parseInput } from './validation';
import type { World } from './world';

/**
 * A whole world as `GET /_sim/state` answers it and `PUT /_sim/state` and `--state-file` take it back:
 * the simulator's own state beside the clock and the fault rules.
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
    throw new SimInputError(`this snapshot is of ${body.simulator}, not ${def.name}`, 'simulator');
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
  if (body.clock?.mode || body.clock?.speed)
    w.clock.configure({ mode: body.clock.mode, speed: body.clock.speed });
  if (now !== undefined) w.clock.set(now);
}

/** `parseTime` with the input's path in its error. */
function timeAt(value: string, path: (string | number)[]): number {
  try {
    return parseTime(value);
  } catch (err) {
    if (err instanceof SimInputError) throw new SimInputError(`${path.join('.')}: ${err.message}`, path);
    throw err;
  }
}
