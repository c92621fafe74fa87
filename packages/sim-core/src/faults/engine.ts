import type { z } from 'zod';
import type { Clock } from '../clock';
import { parseDuration, SimInputError } from '../duration';
import { compileGlob } from '../glob';
import type { Random } from '../random';
import { parseInput } from '../validation';
import { createFaultRuleSchema, type DomainEffectSchemas, type FaultRuleSpec } from './rule-schema';

/** What a fault rule can be matched against: the facts of one emulated-API request. */
export interface RequestFacts {
  operation?: string;
  resource?: string;
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  query: Record<string, string>;
  /** The parsed JSON body, when there is one. */
  body?: unknown;
}

/** A rule as the engine holds it: the spec plus counters. */
export interface FaultRule extends FaultRuleSpec {
  id: string;
  /** Requests that matched `match` (and the window). */
  matched: number;
  /** Times the rule fired. */
  fired: number;
  /** Clock time at which the rule was added. */
  createdAt: string;
  /** True once `times`/`nth` can never fire again. */
  exhausted: boolean;
}

export interface FaultEngineOptions {
  clock: Clock;
  /** The world's fault-decision stream (probability triggers, delay ranges). */
  random: Random;
  /** The schema of `effect.error`, or a function that builds it (called with the rule schema). */
  errorEffect?: z.ZodType | (() => z.ZodType);
  /** Domain effects by name with their value schemas (`DomainEffects.schemas`). */
  domainEffects?: DomainEffectSchemas;
  /** Makes generated rule ids; default `rule-<n>`. */
  nextId?: () => string;
}

export interface FaultEngine {
  /** Validates and adds a rule; throws SimInputError with the offending path when it is invalid. */
  add(input: unknown): FaultRule;
  list(): FaultRule[];
  /** Number of rules (cheap: checked on every request). */
  size(): number;
  get(id: string): FaultRule | undefined;
  remove(id: string): boolean;
  clear(): void;
  /** Rules that never fired: a test whose fault silently stopped applying is caught by this. */
  unfired(): FaultRule[];
  /**
   * Evaluates the generic rules (error/http/delay/connection) of one phase. Rules are tried in the
   * order they were added; delay-only rules that fire add up; the first rule that fires with a
   * terminal effect (error, http, connection) ends the evaluation.
   */
  evaluate(facts: RequestFacts, phase: 'before' | 'after'): FaultRule[];
  /**
   * Finds the first domain rule of `kind` that matches and fires; returns its rule and effect value.
   * Simulators read through their `defineDomainEffects` declaration, which names `kind` and types the value.
   */
  take<T = unknown>(facts: RequestFacts, kind: string): { rule: FaultRule; value: T } | undefined;
  /** The delay in ms a fired rule asks for (a range is drawn from the seeded generator). */
  delayOf(rule: FaultRule): number;
  /** Serializable copy (for state snapshots). */
  snapshot(): FaultRule[];
  restore(rules: FaultRule[]): void;
  /**
   * Calls `listener` after every rule added (by `add` or `restore`); returns the unsubscribe function.
   * For work prepared ahead on the assumption that no rule applies (annotation-sim's deliveries).
   */
  onRuleAdded(listener: () => void): () => void;
}

function getPath(body: unknown, dotted: string): unknown {
  let cur: unknown = body;
  for (const key of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A rule's `match` compiled once, when the rule is added: its globs become matchers. */
function compileMatch(m: FaultRuleSpec['match']): (facts: RequestFacts) => boolean {
  const ops = m.operation === undefined ? undefined : [m.operation].flat().map(compileGlob);
  const resource = m.resource === undefined ? undefined : compileGlob(m.resource);
  const path = m.path === undefined ? undefined : compileGlob(m.path);
  const headers = m.headers
    ? Object.entries(m.headers).map(([name, want]) => [name.toLowerCase(), compileGlob(want)] as const)
    : undefined;
  const query = m.query
    ? Object.entries(m.query).map(([name, want]) => [name, compileGlob(want)] as const)
    : undefined;
  const body = m.body ? Object.entries(m.body) : undefined;
  const method = m.method;
  return (facts) => {
    if (ops !== undefined) {
      const operation = facts.operation;
      if (!operation || !ops.some((op) => op(operation))) return false;
    }
    if (resource !== undefined && !(facts.resource && resource(facts.resource))) return false;
    if (method !== undefined && method !== facts.method.toUpperCase()) return false;
    if (path !== undefined && !path(facts.path)) return false;
    if (headers) {
      for (const [name, want] of headers) {
        const got = facts.headers[name];
        if (got === undefined || !want(got)) return false;
      }
    }
    if (query) {
      for (const [name, want] of query) {
        const got = facts.query[name];
        if (got === undefined || !want(got)) return false;
      }
    }
    if (body) {
      for (const [at, want] of body) {
        if (!deepEqual(getPath(facts.body, at), want)) return false;
      }
    }
    return true;
  };
}

function isDomainRule(rule: FaultRule, domainKinds: Set<string>): boolean {
  return Object.keys(rule.effect).some((k) => domainKinds.has(k));
}

/**
 * Creates a fault engine for one world.
 *
 * @example
 * const faults = createFaultEngine({ clock, random });
 * faults.add({ match: { operation: 'nodePools.update' }, trigger: { times: 1 }, effect: { error: { status: 'ABORTED' } } });
 */
export function createFaultEngine(options: FaultEngineOptions): FaultEngine {
  return new RuleEngine(options);
}

/**
 * The fault engine of one world. Its tables are made by the first rule added (most worlds never get
 * one): until then a world's engine is this object and its options, and a request costs a null check.
 */
class RuleEngine implements FaultEngine {
  private rules: Map<string, FaultRule> | undefined;
  /** Each rule's compiled match, kept with the engine (and so with the world) that holds the rule. */
  private matchers: WeakMap<FaultRule, (facts: RequestFacts) => boolean> | undefined;
  private addedListeners: Set<() => void> | undefined;
  private domainKinds: Set<string> | undefined;
  /** Built on the first rule added (docs/decisions/0009). */
  private schema: ReturnType<typeof createFaultRuleSchema> | undefined;
  private counter = 0;

  constructor(private readonly options: FaultEngineOptions) {}

  private table(): Map<string, FaultRule> {
    this.rules ??= new Map();
    return this.rules;
  }

  private matches(rule: FaultRule, facts: RequestFacts): boolean {
    return (this.matchers?.get(rule) ?? this.compileAndKeep(rule))(facts);
  }

  private compileAndKeep(rule: FaultRule) {
    const matcher = compileMatch(rule.match);
    this.matchers ??= new WeakMap();
    this.matchers.set(rule, matcher);
    return matcher;
  }

  private isDomain(rule: FaultRule): boolean {
    this.domainKinds ??= new Set(Object.keys(this.options.domainEffects ?? {}));
    return isDomainRule(rule, this.domainKinds);
  }

  private decide(rule: FaultRule): boolean {
    const t = rule.trigger;
    if (rule.exhausted) {
      rule.matched++;
      return false;
    }
    if (t.window) {
      const created = Date.parse(rule.createdAt);
      const now = this.options.clock.now();
      const from = windowTime(t.window.from, created);
      const to = windowTime(t.window.to, created);
      if ((from !== undefined && now < from) || (to !== undefined && now >= to)) return false;
    }
    rule.matched++;
    if (t.after !== undefined && rule.matched <= t.after) return false;
    if (t.nth !== undefined && rule.matched !== t.nth) {
      if (rule.matched > t.nth) rule.exhausted = true;
      return false;
    }
    if (t.times !== undefined && rule.fired >= t.times) return false;
    if (t.probability !== undefined && !(this.options.random.next() < t.probability)) return false;
    rule.fired++;
    if ((t.times !== undefined && rule.fired >= t.times) || t.nth !== undefined) rule.exhausted = true;
    return true;
  }

  add(input: unknown): FaultRule {
    const { options } = this;
    this.schema ??= createFaultRuleSchema({
      errorEffect: options.errorEffect,
      domainEffects: options.domainEffects,
    });
    const spec = parseInput(this.schema, input) as FaultRuleSpec;
    const id = spec.id ?? options.nextId?.() ?? `rule-${++this.counter}`;
    const rules = this.table();
    if (rules.has(id)) throw new SimInputError(`a fault rule with id "${id}" already exists`, 'id');
    const createdAt = options.clock.iso();
    const rule: FaultRule = { ...spec, id, matched: 0, fired: 0, createdAt, exhausted: false };
    rules.set(id, rule);
    this.compileAndKeep(rule);
    if (this.addedListeners) for (const listener of this.addedListeners) listener();
    return rule;
  }
  list(): FaultRule[] {
    return this.rules ? [...this.rules.values()] : [];
  }
  size(): number {
    return this.rules?.size ?? 0;
  }
  get(id: string): FaultRule | undefined {
    return this.rules?.get(id);
  }
  remove(id: string): boolean {
    return this.rules?.delete(id) ?? false;
  }
  clear(): void {
    this.rules?.clear();
  }
  unfired(): FaultRule[] {
    return this.list().filter((r) => r.fired === 0);
  }
  evaluate(facts: RequestFacts, phase: 'before' | 'after'): FaultRule[] {
    const fired: FaultRule[] = [];
    if (this.rules === undefined) return fired;
    for (const rule of this.rules.values()) {
      if (rule.phase !== phase || this.isDomain(rule)) continue;
      if (!this.matches(rule, facts) || !this.decide(rule)) continue;
      fired.push(rule);
      const e = rule.effect;
      if (e.error !== undefined || e.http !== undefined || e.connection !== undefined) break;
    }
    return fired;
  }
  take<T = unknown>(facts: RequestFacts, kind: string): { rule: FaultRule; value: T } | undefined {
    if (this.rules === undefined) return undefined;
    for (const rule of this.rules.values()) {
      if (rule.effect[kind] === undefined) continue;
      if (!this.matches(rule, facts) || !this.decide(rule)) continue;
      return { rule, value: rule.effect[kind] as T };
    }
    return undefined;
  }
  delayOf(rule: FaultRule): number {
    const d = rule.effect.delay;
    if (d === undefined) return 0;
    if (typeof d === 'object') {
      const min = parseDuration(d.min);
      const max = parseDuration(d.max);
      return min + Math.floor(this.options.random.next() * (max - min + 1));
    }
    return parseDuration(d);
  }
  onRuleAdded(listener: () => void): () => void {
    this.addedListeners ??= new Set();
    const listeners = this.addedListeners;
    listeners.add(listener);
    return () => listeners.delete(listener);
  }
  snapshot(): FaultRule[] {
    return this.list().map((r) => structuredClone(r));
  }
  restore(list: FaultRule[]): void {
    this.rules?.clear();
    for (const r of list) {
      const spec = this.add({
        id: r.id,
        description: r.description,
        match: r.match,
        trigger: r.trigger,
        phase: r.phase,
        effect: r.effect,
      });
      Object.assign(spec, {
        matched: r.matched ?? 0,
        fired: r.fired ?? 0,
        exhausted: r.exhausted ?? false,
        createdAt: r.createdAt ?? spec.createdAt,
      });
    }
  }
}

function windowTime(value: number | string | undefined, createdAt: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  if (value.startsWith('+')) return createdAt + parseDuration(value.slice(1));
  return Date.parse(value);
}
