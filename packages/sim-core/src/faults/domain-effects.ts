import type { z } from 'zod';
import type { FaultEngine, FaultRule, RequestFacts } from './engine';

/** A simulator's domain fault effects: effect name → schema of its value in a rule. */
export type DomainEffectSchemas = Record<string, z.ZodType>;

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
  return {
    schemas,
    names: Object.keys(builders) as (keyof M & string)[],
    take<K extends keyof M & string>(faults: Pick<FaultEngine, 'take'>, facts: RequestFacts, kind: K) {
      return faults.take<z.output<M[K]>>(facts, kind);
    },
    takeEffect<K extends keyof M & string>(sim: EffectSource, kind: K) {
      return sim.takeEffect(kind) as z.output<M[K]> | undefined;
    },
  };
}
