/**
 * The whole suite as functions, shared by the tests (fixed seed, bounded counts) and the long mode
 * (`pnpm fuzz`: random seed, 100,000 requests per simulator).
 */
import { type CampaignOptions, type CampaignResult, failureLines, runCampaign } from './campaign';
import { describeOutcome, describeRequest } from './findings';
import { send } from './http';
import {
  annotationInjectedArb,
  clusterInjectedArb,
  type InjectedCase,
  runAnnotationInjected,
  runClusterInjected,
} from './injected';
import { checkOutcome, normalise } from './invariants';
import {
  annotationIsolation,
  clusterIsolation,
  type IsolationCase,
  isolationCaseArb,
  type SimIsolation,
} from './isolation';
import { checkProperty, type PropertyResult } from './properties';
import { annotationApiSetup } from './targets/annotation';
import { clusterApiSetup } from './targets/cluster';
import { controlSetup } from './targets/control';

export type CampaignName = 'cluster-api' | 'annotation-api' | 'cluster-control' | 'annotation-control';

export interface SweepResult {
  api: string;
  requests: number;
  /** Each list route (operationId) with the kinds of hostile query it was sent. */
  coverage: Map<string, Set<string>>;
  /** One line per distinct violation: what broke, on which request, with which answer. */
  failures: string[];
}

/**
 * The fixed sweep of an API (query-hostile.ts): every hostile query once on every list route of its
 * served document, on a seeded namespace, each answer held to the campaign's invariants.
 */
export async function listQuerySweep(name: 'cluster-api' | 'annotation-api'): Promise<SweepResult> {
  const setup = name === 'cluster-api' ? await clusterApiSetup() : await annotationApiSetup();
  const inst = await setup.create();
  const coverage = new Map<string, Set<string>>();
  const failures = new Map<string, string>();
  let requests = 0;
  try {
    await setup.prepare(inst, 0);
    for (const req of setup.listQuerySweep ?? []) {
      const outcome = await send(inst.app, req, setup.timeouts(req));
      requests++;
      const kinds = coverage.get(req.op) ?? new Set<string>();
      coverage.set(req.op, kinds);
      for (const tag of req.tags) kinds.add(tag.replace(/^hostile list query: /, ''));
      for (const v of checkOutcome(req, outcome, setup.invariants)) {
        if (!failures.has(v.signature)) {
          failures.set(
            v.signature,
            `${v.kind}: ${v.message}\n    ${describeRequest(req)}\n    ${describeOutcome(outcome)}`,
          );
        }
      }
    }
  } finally {
    await inst.close();
  }
  return { api: setup.api, requests, coverage, failures: [...failures.values()] };
}

export async function campaign(name: CampaignName, options: CampaignOptions): Promise<CampaignResult> {
  const setup =
    name === 'cluster-api'
      ? await clusterApiSetup()
      : name === 'annotation-api'
        ? await annotationApiSetup()
        : await controlSetup(name === 'cluster-control' ? 'cluster' : 'annotation');
  return runCampaign(setup, options);
}

export async function isolation(
  sim: 'cluster-sim' | 'annotation-sim',
  options: { seed: number; numRuns: number; write?: boolean },
): Promise<PropertyResult<IsolationCase>> {
  const iso: SimIsolation = sim === 'cluster-sim' ? clusterIsolation() : annotationIsolation();
  return checkProperty(
    `${sim} namespace isolation`,
    isolationCaseArb,
    async (c) => {
      const leaks = await iso.run(c);
      return {
        violations: leaks.map((l) => ({
          kind: 'isolation' as const,
          signature: `${sim}|isolation|${normalise(l)}`,
          message: l,
        })),
        detail: leaks.length ? `leaks: ${leaks.join('; ')}` : '',
      };
    },
    { ...options, describe: (c) => `\`${JSON.stringify(c)}\`` },
  );
}

export async function injected(
  sim: 'cluster-sim' | 'annotation-sim',
  options: { seed: number; numRuns: number; write?: boolean },
): Promise<PropertyResult<InjectedCase>> {
  const arb = sim === 'cluster-sim' ? clusterInjectedArb : annotationInjectedArb;
  const run = sim === 'cluster-sim' ? runClusterInjected : runAnnotationInjected;
  return checkProperty(
    `${sim} injected faults`,
    arb,
    async (c) => {
      const r = await run(c);
      return {
        violations: r.violations,
        detail: `fault rule \`${JSON.stringify(r.rule)}\`, then ${describeRequest(r.req)}\n    - response: ${describeOutcome(r.outcome)}`,
      };
    },
    { ...options, describe: (c) => `\`${JSON.stringify(c)}\`` },
  );
}

/** One line per distinct failure of a property, for assertion messages. */
export function propertyFailureLines(r: PropertyResult<unknown>): string[] {
  return r.failures.map((f) => `${f.violation.kind} ×${f.occurrences}: ${f.violation.signature}`);
}

export { failureLines };
