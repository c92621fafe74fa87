import type { z } from 'zod';
import type { FaultEngine, FaultRule, RequestFacts } from './engine';
import type { DomainEffectSchemas } from './rule-schema';

/** The effect names of `E` (a `DomainEffects`). */
export type DomainEffectName<E extends { schemas: DomainEffectSchemas }> = keyof E['schemas'] & string;

/** The value a rule gives effect `K` of `E` (a `DomainEffects`), as its schema parses it. */
export type DomainEffectValue<
  E extends { schemas: DomainEffectSchemas },
  K extends DomainEffectName<E>,
> = z.output<E['schemas'][K]>;

/** What `takeEffect` reads through: the kernel's per-request `RequestSim` (`c.var.sim`). */
export interface EffectSource {
  takeEffect(kind: string): unknown;
  /**
   * Ids of the rules that fired for the request, in order (`RequestSim.fired`): a `takeEffect` that gives
   * a value has just added its rule's id last. Read by `takeEffectRule` and `takenRule`.
   */
  readonly fired?: readonly string[];
}

/** A domain effect taken for a request: its value and the id of the rule that gave it. */
interface TakenEffect<T> {
  value: T;
  /**
   * The rule's id: what `X-Sim-Reason: fault:{rule id}` names on an answer the effect makes. Always there
   * through a `RequestSim`; `undefined` only from a source that keeps no `fired` list.
   */
  ruleId: string | undefined;
}

/** Effect name → a function that builds its value schema (called on first use, then kept). */
export type DomainEffectBuilders = Record<string, () => z.ZodType>;

/** The schemas `M`'s builders return, by effect name. */
export type BuiltSchemas<M extends DomainEffectBuilders> = { [K in keyof M]: ReturnType<M[K]> };

/**
 * A simulator's domain fault effects, declared once: the schemas the fault rules are validated with
 * (`SimulatorDefinition.domainEffects`) and the typed reads of them. An effect is named by a key of
 * the schemas (another name does not compile) and read back as its schema's output.
 */
export interface DomainEffects<M extends DomainEffectSchemas> {
  /**
   * The value schemas by effect name: what `SimulatorDefinition.domainEffects` takes. Each is built the
   * first time it is read (a rule naming it is validated), so a process that never adds a fault rule
   * builds none of them; listing the names builds nothing.
   */
  readonly schemas: M;
  /** The effect names, in declaration order. */
  readonly names: readonly (keyof M & string)[];
  /**
   * The first rule with effect `kind` that matches `facts` and fires (counted as fired), and its value;
   * what a simulator uses outside a request (annotation-sim's deliveries).
   */
  take<K extends keyof M & string>(
    faults: Pick<FaultEngine, 'take'>,
    facts: RequestFacts,
    kind: K,
  ): { rule: FaultRule; value: z.output<M[K]> } | undefined;
  /**
   * The value of effect `kind` of the first rule that matches the current request and fires, through
   * the request's `c.var.sim` (which journals the rule as fired); `undefined` when none does.
   */
  takeEffect<K extends keyof M & string>(sim: EffectSource, kind: K): z.output<M[K]> | undefined;
  /**
   * `takeEffect` with the id of the rule that gave the value, for an answer the effect makes (it says
   * `X-Sim-Reason: fault:{rule id}`). Reads the id `takeEffect` adds to the request's `fired`.
   */
  takeEffectRule<K extends keyof M & string>(
    sim: EffectSource,
    kind: K,
  ): TakenEffect<z.output<M[K]>> | undefined;
  /**
   * The id of the rule whose effect `kind` this request took (through `takeEffect` or `takeEffectRule`
   * on this declaration), if one did: for an answer that an effect taken earlier in the request causes
   * (a stale etag after `etagBump`). A request is known by its `sim` object, held weakly.
   */
  takenRule<K extends keyof M & string>(sim: EffectSource, kind: K): string | undefined;
}

/**
 * Declares a simulator's domain fault effects from functions that build their schemas: zod schemas cost
 * time to build, and a process start should not pay for effects no rule names (docs/decisions/0009).
 *
 * @example
 * export const clusterEffects = defineDomainEffects({
 *   operationFails: () => z.object({ atProgress: z.number().min(0).max(1).optional() }).strict(),
 * });
 * // definition: { …, domainEffects: clusterEffects.schemas }
 * const fails = clusterEffects.takeEffect(c.var.sim, 'operationFails'); // { atProgress?: number } | undefined
 */
export function defineDomainEffects<B extends DomainEffectBuilders>(
  builders: B,
): DomainEffects<BuiltSchemas<B>> {
  type M = BuiltSchemas<B>;
  const schemas = {} as M;
  for (const [name, build] of Object.entries(builders)) {
    let built: z.ZodType | undefined;
    Object.defineProperty(schemas, name, {
      enumerable: true,
      get: () => {
        built ??= build();
        return built;
      },
    });
  }
  /** Per request (its `sim`): effect name → id of the rule whose effect it took. */
  let taken: WeakMap<EffectSource, Map<string, string>> | undefined;
  const takeOne = (sim: EffectSource, kind: string): { value: unknown; ruleId?: string } | undefined => {
    const value = sim.takeEffect(kind);
    if (value === undefined) return undefined;
    const ruleId = sim.fired?.at(-1);
    if (ruleId !== undefined) {
      taken ??= new WeakMap();
      let kinds = taken.get(sim);
      if (!kinds) {
        kinds = new Map();
        taken.set(sim, kinds);
      }
      kinds.set(kind, ruleId);
    }
    return { value, ruleId };
  };
  return {
    schemas,
    names: Object.keys(builders) as (keyof M & string)[],
    take<K extends keyof M & string>(faults: Pick<FaultEngine, 'take'>, facts: RequestFacts, kind: K) {
      return faults.take<z.output<M[K]>>(facts, kind);
    },
    takeEffect<K extends keyof M & string>(sim: EffectSource, kind: K) {
      return takeOne(sim, kind)?.value as z.output<M[K]> | undefined;
    },
    takeEffectRule<K extends keyof M & string>(sim: EffectSource, kind: K) {
      const one = takeOne(sim, kind);
      if (one === undefined) return undefined;
      return { value: one.value as z.output<M[K]>, ruleId: one.ruleId };
    },
    takenRule<K extends keyof M & string>(sim: EffectSource, kind: K) {
      return taken?.get(sim)?.get(kind);
    },
  };
}
