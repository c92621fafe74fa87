/**
 * Wire shapes of the control plane (`/_sim/…`) as this client sees them. They mirror the kernel's
 * (`@sims/sim-core`) on purpose instead of importing it: a client of a running simulator (CLI, Docker,
 * testcontainers) must not pull the whole simulator kernel into a consumer's test dependencies.
 */

/** A duration: milliseconds, or a string of `<number><unit>` parts with units ms, s, m, h, d (`'1.5s'`, `'2m30s'`). */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}` | (string & {});

/** An absolute clock time (ISO-8601 string or epoch ms), or `+<duration>` relative to a rule's creation. */
export type ClockTime = number | string;

/** What a fault rule matches against; every given condition must hold. */
export interface FaultMatch {
  /** The emulated API's own method name, e.g. `nodePools.update`; a list matches any; globs allowed. */
  operation?: string | string[];
  /** Resource name glob: `*` within a segment, `**` across segments. */
  resource?: string;
  /** HTTP method, e.g. `PUT`. */
  method?: string;
  /** Path glob, matched against the path without any `/_ns/<name>` prefix; starts with `/`. */
  path?: string;
  /** Header name (case-insensitive) → value or glob. */
  headers?: Record<string, string>;
  /** Query parameter → value or glob. */
  query?: Record<string, string>;
  /** Dotted JSON path in the request body → the value it must deep-equal. */
  body?: Record<string, unknown>;
}

/** When a matching request makes a rule fire. `nth` and `times` exclude each other. */
export interface FaultTrigger {
  /** Fire on the first N matching requests, then stop. */
  times?: number;
  /** Fire only on the N-th matching request (1-based). */
  nth?: number;
  /** Let the first N matching requests through untouched, then fire. */
  after?: number;
  /** Fire with this probability (0..1), drawn from the world's seeded generator. */
  probability?: number;
  /** Fire only while the world's clock is inside [from, to). */
  window?: { from?: ClockTime; to?: ClockTime };
}

/** A raw HTTP answer replacing the emulated API's. */
export interface HttpEffect {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** An `error` effect, rendered by the simulator in its API's own envelope (e.g. `{ status: 'ABORTED' }`). */
export interface ErrorEffect {
  status: string | number;
  message?: string;
  [key: string]: unknown;
}

export type DelayEffect = Duration | { min: Duration; max: Duration };
export type ConnectionEffect = 'reset' | 'hang' | 'truncate';

/**
 * One terminal effect (`error`, `http` or `connection`), optionally with `delay`; or a delay alone; or
 * exactly one domain effect registered by the simulator (an open record: `operationFails: {…}`).
 */
export interface FaultEffect {
  error?: ErrorEffect;
  http?: HttpEffect;
  /** Waits on the WORLD clock: under a manual clock the response arrives when the test advances time. */
  delay?: DelayEffect;
  connection?: ConnectionEffect;
  [domainKind: string]: unknown;
}

/** A fault rule as a test writes it (`POST /_sim/faults`); see docs/decisions/0004-fault-rule-shape.md. */
export interface FaultRuleInput {
  /** 1-100 letters, digits, `.`, `_`, `:` or `-`; `rule-<n>` when absent. */
  id?: string;
  description?: string;
  match?: FaultMatch;
  trigger?: FaultTrigger;
  /** `before` (default): the request is not applied. `after`: applied, then the response is replaced. */
  phase?: 'before' | 'after';
  effect: FaultEffect;
}

/** A fault rule as the simulator holds it: the input with defaults, plus counters. */
export interface FaultRule {
  id: string;
  description?: string;
  match: FaultMatch;
  trigger: FaultTrigger;
  phase: 'before' | 'after';
  effect: FaultEffect;
  /** Requests that matched `match` (and the window); exhausted rules keep counting. */
  matched: number;
  /** Times the rule fired. */
  fired: number;
  /** World-clock time at which the rule was added. */
  createdAt: string;
  /** True once `times`/`nth` can never fire again. */
  exhausted: boolean;
}

/** One emulated-API request as the journal keeps it. */
export interface JournalEntry {
  /** Position in this namespace's journal, from 1; never reused. */
  seq: number;
  requestId: string;
  /** World-clock time at which the request arrived. */
  time: string;
  namespace: string;
  operation?: string;
  resource?: string;
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names; credentials redacted. */
  headers: Record<string, string>;
  requestBody?: unknown;
  /** 0 when a connection fault answered on the socket itself. */
  status: number;
  responseBody?: unknown;
  /** Wall-clock milliseconds spent answering. */
  durationMs: number;
  /** Ids of the fault rules that fired for this request. */
  faults: string[];
}

/** Selects journal entries; every given condition must hold. */
export interface JournalFilter {
  /** Operation name or glob, e.g. `nodePools.*`. */
  operation?: string;
  /** Resource name glob. */
  resource?: string;
  method?: string;
  /** Path glob. */
  path?: string;
  status?: number;
  /** Only entries for which this rule fired. */
  fault?: string;
  /** Only entries with `seq` greater than this. */
  since?: number;
}

export interface JournalStats {
  capacity: number;
  size: number;
  /** Entries pushed out of the ring since the last clear. */
  dropped: number;
  /** Entries recorded since the last clear. */
  total: number;
}

export type ClockMode = 'real' | 'manual';

export interface ClockState {
  mode: ClockMode;
  speed: number;
  /** World-clock time, ISO-8601 with milliseconds. */
  now: string;
  pendingTimers: number;
}

export interface HealthStatus {
  status: 'ok';
  simulator: string;
  version: string;
  /** Namespaces that exist right now. */
  namespaces: number;
}

/** A world snapshot (`GET /_sim/state`); `state` is the simulator's own shape. */
export interface SimStateSnapshot<S = unknown> {
  simulator?: string;
  version?: string;
  namespace?: string;
  clock?: { mode?: ClockMode; speed?: number; now?: string };
  faults?: FaultRule[];
  state: S;
}

/** What `PUT /_sim/namespaces/:name` answers (201 when it created the namespace, 200 when it existed). */
export interface NamespaceCreateResult {
  namespace: string;
  /** False when the namespace already existed. */
  created: boolean;
}

export interface SeedResult<T = unknown> {
  namespace: string;
  /** What the simulator reports it created (its own shape). */
  seeded: T;
}

export interface ScenarioResult {
  name?: string;
  /** Ids of the fault rules the scenario added. */
  faults: string[];
  seeded: unknown;
  clock: { mode: string; now: string };
}

/** A scenario given as an object (sent as JSON); text may be YAML or JSON. */
export interface ScenarioInput {
  name?: string;
  description?: string;
  clock?: { mode?: ClockMode; speed?: number; set?: ClockTime; advance?: Duration };
  seed?: unknown;
  faults?: FaultRuleInput[];
}
