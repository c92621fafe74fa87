export type { BudgetMember, BudgetPoolStats } from './budget-pool';
export { BudgetPool } from './budget-pool';
export { BudgetQueue } from './budget-queue';
export type { BudgetedTable, BudgetedTableSpec } from './budgeted-table';
export { budgetedTable, forgetCounted } from './budgeted-table';
export type { StartedForCli } from './cli';
export { readCliFile, runSimulatorCli } from './cli';
export { isLoopbackHost, openControlPlaneWarning } from './cli-bind-warning';
export type { CliCommand, CliProcess } from './cli-commands';
export { CliUsageError, lazyCommand, loadOptionalModule, nodeProcess } from './cli-commands';
export { commonHelp, topLevelHelp } from './cli-help';
export type { CommonCliOptions } from './cli-options';
export { budgetFlag, cliKernelOptions, parseCommonArgs } from './cli-options';
export type { Clock, ClockMode, ClockOptions, ClockState } from './clock';
export { createClock, inTimeRange, parseTime } from './clock';
export type { ControlTools, DashboardAssets, FaultErrorEffect, SimulatorDefinition } from './definition';
export {
  formatDuration,
  isDurationString,
  joinPath,
  parseDuration,
  SimInputError,
  splitPath,
} from './duration';
export type {
  DomainEffectName,
  DomainEffects,
  DomainEffectValue,
  EffectSource,
} from './faults/domain-effects';
export { defineDomainEffects } from './faults/domain-effects';
export type { FaultEngine, FaultEngineOptions, FaultRule, RequestFacts } from './faults/engine';
export { createFaultEngine } from './faults/engine';
export type {
  ConnectionEffect,
  DelayEffect,
  DomainEffectSchemas,
  FaultMatch,
  FaultRuleSpec,
  FaultTrigger,
  HttpEffect,
} from './faults/rule-schema';
export { createFaultRuleSchema, defaultErrorEffectSchema } from './faults/rule-schema';
export type { GlobMatcher } from './glob';
export { compileGlob, globMatch } from './glob';
export { readBoundedText, readControlJson, readControlText } from './http/body';
export { DASHBOARD_HEADER } from './http/dashboard';
export { SimulatedConnectionFault } from './http/fault-phases';
export type { JsonBudget, JsonBudgetExcess } from './http/json-budget';
export { jsonBudgetMessage, measureJson } from './http/json-budget';
export type { KernelOptions, SimKernel } from './http/kernel';
export { createSimKernel } from './http/kernel';
export { NAMESPACE_HEADER, resolveNamespace } from './http/namespace';
export type { RequestSim, SimEnv } from './http/request-context';
export { type KnownBody, knownBody } from './http/request-entry';
export { controlError } from './http/responses';
export type {
  ExpandedPath,
  RouteAction,
  RouteEntry,
  RouteMethod,
  RoutePath,
  RouteRow,
} from './http/route-row';
export { openApiPathOf, routeEntries } from './http/route-row';
export type { RunningServer, ServeOptions } from './http/serve';
export { serve } from './http/serve';
export type { StreamEvents, StreamRequestEvent } from './http/stream';
export type { Journal, JournalEntry, JournalFilter, JournalStats } from './journal';
export {
  compileJournalFilter,
  createJournal,
  DeferredJournalEntry,
  formatRequestLog,
  journalMatches,
} from './journal';
export type { JournalBudget } from './journal-budget';
export { createJournalBudget, DEFAULT_JOURNAL_MAX_BYTES } from './journal-budget';
export type { JsonReadFs, JsonReadOptions } from './json-stream-read';
export { JsonStreamError, readJsonFile } from './json-stream-read';
export type { JsonSink, JsonWriteOptions } from './json-stream-write';
export { writeJson } from './json-stream-write';
export { lazy } from './lazy';
export type { BudgetKind, MemoryBudget, SlotMember, WorldBudget, WorldBudgetStats } from './memory-budget';
export { createMemoryBudget, JOURNAL_BUDGET_KIND } from './memory-budget';
export type { Random } from './random';
export { createRandom } from './random';
export type { Result } from './result';
export { fail, ok } from './result';
export type { Scenario, ScenarioResult } from './scenario';
export { applyScenario, loadScenario, parseScenario, scenarioSchema } from './scenario';
export type { AtomicWriteFs } from './state-file';
export { writeFileAtomic, writeJsonFileAtomic } from './state-file';
export type { WorkDelay, WorkKind, WorkPlan, WorkStep, WorldTimers } from './timers';
export { createWorldTimers, endStep, planWork, pollEnds, workTimes } from './timers';
export { describeIssues, inputRefusal, parseInput } from './validation';
export { isPlainObject } from './values';
export type { NamespacesOptions, WorldOptions } from './world';
export {
  createNamespaces,
  createWorld,
  DEFAULT_COLLECT_AFTER_DELETES,
  DEFAULT_MAX_NAMESPACES,
  DEFAULT_NAMESPACE,
  isValidNamespace,
  NamespaceLimitError,
} from './world';
export type { WorldSnapshot } from './world-snapshot';
export { exportWorldSnapshot, importWorldSnapshot } from './world-snapshot';
export type { Namespaces, World, WorldCore } from './world-types';
export type { ZodDefView } from './zod-def';
export { zodDef } from './zod-def';
