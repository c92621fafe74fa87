import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { DomainEffectSchemas } from './faults/rule-schema';
import type { SimEnv } from './http/request-context';
import type { BudgetKind } from './memory-budget';
import type { Namespaces, World, WorldCore } from './world-types';

/**
 * The dashboard's browser code, built into the simulator's package (no CDN: it works offline): what
 * `SimulatorDefinition.dashboard` resolves to.
 */
export interface DashboardAssets {
  js: string;
  css: string;
}

/** What `controlRoutes` gets besides the control app. */
export interface ControlTools<S> {
  /** The world of the namespace this control request selects. */
  world(c: Context): World<S>;
  namespaces: Namespaces<S>;
}

/** An `error` fault effect as given in a rule; the simulator renders it in its API's envelope. */
export interface FaultErrorEffect {
  status: string | number;
  message?: string;
  [key: string]: unknown;
}

/**
 * What a simulator tells the kernel about itself. The kernel knows nothing of either API: everything
 * API-specific (state, seeding, snapshots, the error envelope, domain fault effects) comes from here.
 */
export interface SimulatorDefinition<S> {
  /** e.g. `cluster-sim`. */
  name: string;
  version: string;
  /** Builds an empty state for a new world. */
  createState(world: WorldCore): S;
  /** Releases what a state holds (timers are dropped by the kernel already). */
  disposeState?(state: S, world: World<S>): void;
  /** A JSON-serializable snapshot of the state. */
  exportState(world: World<S>): unknown;
  /** Replaces the state from a snapshot; throws SimInputError on a bad one (nothing changes then). */
  importState(world: World<S>, snapshot: unknown): void;
  /** Creates resources directly (`POST /_sim/seed`, scenario `seed:`); throws SimInputError on bad input, its path relative to the seed document (the kernel adds the location). */
  seed(world: World<S>, input: unknown): unknown;
  /** Renders an `error` fault effect in the emulated API's own envelope. */
  renderFaultError(c: Context<SimEnv<S>>, error: FaultErrorEffect): Response | Promise<Response>;
  /**
   * Stricter schema for `effect.error` (e.g. Google status names), or a function that builds it when the
   * first fault rule is validated (a process start need not pay for it: docs/decisions/0009).
   */
  errorEffect?: z.ZodType | (() => z.ZodType);
  /**
   * Domain effects (`operationFails`, `exportDelay`, …) with their value schemas: the `schemas` of the
   * simulator's `defineDomainEffects`, whose typed reads take them back.
   */
  domainEffects?: DomainEffectSchemas;
  /**
   * Simulator-specific control routes, mounted under `/_sim`. `tools.world(c)` is the world of the
   * namespace the control request selects (header or `/_ns/<name>/` prefix).
   */
  controlRoutes?(control: Hono<SimEnv<S>>, tools: ControlTools<S>): void;
  /** Describes the simulator-specific control routes for `/_sim/openapi.json`. */
  controlOpenApiPaths?: Record<string, unknown>;
  /** The emulated API's answer to a path it does not serve. */
  renderNotFound?(c: Context<SimEnv<S>>): Response | Promise<Response>;
  /** The emulated API's answer to an unexpected exception (never a bare 500 with a stack). */
  renderInternalError?(c: Context<SimEnv<S>>, error: unknown): Response | Promise<Response>;
  /**
   * Input limits of the emulated API: the largest request body read (default 10 MiB) and the deepest
   * JSON nesting handed on (default 100); deeper JSON arrives as `jsonTooDeep` with `jsonError` set.
   * The JSON budget (http/json-budget.ts, what a value costs): a body past `maxJsonBytes` (default the
   * body limit) or holding more than `maxJsonValues` values (default 1,000,000) is not parsed: it arrives
   * as `jsonOverBudget` with `jsonError` set, for the API's parse error. `bytesBodies` names the content
   * types (undefined: none sent) whose bodies are file uploads: kept as `bodyBytes` up to the body
   * limit, never decoded or parsed as JSON (default none: every body is JSON).
   */
  limits?: {
    maxBodyBytes?: number;
    maxJsonDepth?: number;
    maxJsonBytes?: number;
    maxJsonValues?: number;
    bytesBodies?: (contentType: string | undefined) => boolean;
  };
  /**
   * The kinds of store the simulator's worlds fill besides the journal, each with its share of the
   * process's memory (`world.budget`; `--<kind>-max-bytes`; docs/decisions/0019).
   */
  budgetKinds?: readonly BudgetKind[];
  /** The emulated API's answer to a request body past `limits.maxBodyBytes` (never read to its end). */
  renderPayloadTooLarge?(c: Context<SimEnv<S>>, limit: number): Response | Promise<Response>;
  /**
   * The dashboard's browser code (`/_sim/ui/`), imported on the first request for it. Without it the
   * simulator serves no dashboard.
   */
  dashboard?(): Promise<DashboardAssets>;
  /** Header names whose values the journal redacts, beyond the kernel's defaults. */
  sensitiveHeaders?: string[];
  /**
   * Body fields and query parameters whose values the journal redacts, beyond the kernel's own
   * (`password`, `secret`, `token`, `access_token`, …); compared without case, `_` or `-`.
   */
  sensitiveFields?: string[];
}
