/**
 * A fuzz campaign: batches of generated requests against one API, each batch on a freshly reset and
 * seeded namespace, every response checked (invariants.ts), health and Object.prototype checked after
 * every batch. Distinct failures are then shrunk one by one with fast-check (replaying the failing
 * batch on a fresh simulator) and appended to the findings file.
 */
import fc from 'fast-check';
import { appendFinding, appendNote, appendText, type RecordedRequest } from './findings';
import { drainStrayLogs, type FuzzRequest, plainRequest, type SendOutcome, send } from './http';
import { checkOutcome, normalise, routeGroup, type Violation } from './invariants';
import type { FuzzSetup, Instance } from './targets/types';

export interface CampaignOptions {
  seed: number;
  /** Requests to send (rounded up to whole batches). */
  requests: number;
  /** Requests per batch (the unit of reseeding and health checks). Default 25. */
  batchSize?: number;
  /** Total time for shrinking distinct failures. Default 20 s. */
  shrinkBudgetMs?: number;
  /** Time for shrinking one failure. Default 4 s. */
  shrinkEachMs?: number;
  /** At most this many distinct failures are shrunk (the rest are reported unshrunk). Default 30. */
  maxShrinks?: number;
  /** Write findings to the findings file. Default true. */
  write?: boolean;
  /** Progress lines (long mode). */
  log?: (line: string) => void;
}

interface Batch {
  variant: number;
  /** Index at which the world is moved on (clock advance), if any. */
  tickAt: number | undefined;
  requests: (FuzzRequest | undefined)[];
}

interface FoundFailure {
  violation: Violation;
  occurrences: number;
  /** Route groups it was seen on, with counts. */
  routes: Map<string, number>;
  firstRun: number;
  firstBatch: Batch;
  firstIndex: number;
  firstOutcome?: SendOutcome;
}

export interface CampaignResult {
  api: string;
  seed: number;
  requests: number;
  batches: number;
  ms: number;
  shrinkMs: number;
  statuses: Record<string, number>;
  failures: FoundFailure[];
  notes: string[];
}

function batchArb(setup: FuzzSetup, size: number): fc.Arbitrary<Batch> {
  return fc.record({
    variant: fc.nat(3),
    tickAt: fc.option(fc.nat(size - 1), { nil: undefined, freq: 3 }),
    // Options rather than plain requests: shrinking turns the requests a failure does not need into
    // `undefined` (skipped), leaving the few that show it.
    requests: fc.array(fc.option(setup.requests, { nil: undefined, freq: 10_000 }), {
      minLength: size,
      maxLength: size,
    }),
  });
}

type OnViolation = (v: Violation, index: number, req: FuzzRequest | undefined, outcome?: SendOutcome) => void;

const baseProto = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Undoes and reports anything added to Object.prototype. */
function prototypeProblems(): string[] {
  const added = Object.getOwnPropertyNames(Object.prototype).filter((k) => !baseProto.has(k));
  for (const k of added) delete (Object.prototype as Record<string, unknown>)[k];
  return added;
}

/** Runs one batch: prepare, the requests in order, then the health and prototype checks. */
async function runBatch(
  setup: FuzzSetup,
  inst: Instance,
  batch: Batch,
  onViolation: OnViolation,
  statuses?: Record<string, number>,
): Promise<number> {
  await setup.prepare(inst, batch.variant);
  let sent = 0;
  let last: FuzzRequest | undefined;
  for (let i = 0; i < batch.requests.length; i++) {
    if (batch.tickAt === i && setup.tick) await setup.tick(inst);
    const req = batch.requests[i];
    if (req === undefined) continue;
    last = req;
    const outcome = await send(inst.app, req, setup.timeouts(req));
    sent++;
    if (statuses) {
      const key = outcome.kind === 'response' ? String(outcome.res.status) : outcome.kind;
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    for (const v of checkOutcome(req, outcome, setup.invariants)) onViolation(v, i, req, outcome);
  }
  const health = await send(inst.app, plainRequest('GET', '/_sim/health'), { timeoutMs: 10_000 });
  let healthy = false;
  if (health.kind === 'response' && health.res.status === 200) {
    try {
      healthy = JSON.parse(health.res.text).status === 'ok';
    } catch {
      healthy = false;
    }
  }
  if (!healthy) {
    const what =
      health.kind === 'response' ? `${health.res.status} ${health.res.text.slice(0, 200)}` : health.kind;
    onViolation(
      {
        kind: 'health',
        signature: `${setup.invariants.api}|health|${normalise(what, 60)}`,
        message: `GET /_sim/health after the batch: ${what}`,
      },
      batch.requests.length,
      last,
      health,
    );
  }
  const polluted = prototypeProblems();
  if (polluted.length > 0) {
    onViolation(
      {
        kind: 'prototype-pollution',
        signature: `${setup.invariants.api}|prototype-pollution|${polluted.sort().join(',')}`,
        message: `Object.prototype gained ${polluted.join(', ')} during the batch`,
      },
      batch.requests.length,
      last,
    );
  }
  drainStrayLogs();
  return sent;
}

/**
 * Explores batch after batch; each new distinct failure is shrunk at once (on fresh simulators, so the
 * exploration goes on undisturbed) and appended to the findings file, so that it can be read while the
 * campaign runs.
 */
export async function runCampaign(setup: FuzzSetup, options: CampaignOptions): Promise<CampaignResult> {
  const size = options.batchSize ?? 25;
  const numRuns = Math.max(1, Math.ceil(options.requests / size));
  const arb = batchArb(setup, size);
  const failures = new Map<string, FoundFailure>();
  const statuses: Record<string, number> = {};
  const log = options.log ?? (() => {});
  const write = options.write ?? true;
  const budget = options.shrinkBudgetMs ?? 20_000;
  const each = options.shrinkEachMs ?? 4_000;
  const maxShrinks = options.maxShrinks ?? 30;
  const t0 = performance.now();
  let shrinkMs = 0;
  let shrunkCount = 0;
  let sent = 0;
  let run = 0;

  const report = async (failure: FoundFailure) => {
    const remaining = budget - shrinkMs;
    const r = {
      api: setup.invariants.api,
      violation: failure.violation,
      seed: options.seed,
      path: String(failure.firstRun),
      shrunk: false,
      reproduced: false,
      requests: [] as RecordedRequest[],
    };
    if (remaining > 200 && shrunkCount < maxShrinks) {
      shrunkCount++;
      const s0 = performance.now();
      const shrunk = await shrink(setup, arb, options.seed, failure, Math.min(each, remaining));
      shrinkMs += performance.now() - s0;
      if (shrunk) {
        r.shrunk = shrunk.shrunk;
        r.reproduced = true;
        r.path = shrunk.path;
        r.requests = shrunk.requests;
      }
    }
    if (r.requests.length === 0) {
      // Not reproduced alone (or no time left): the tail of the batch as explored.
      const upto = Math.min(failure.firstIndex, failure.firstBatch.requests.length - 1);
      const tail = failure.firstBatch.requests
        .slice(0, upto + 1)
        .map((req, i) => ({ req, i }))
        .filter((x): x is { req: FuzzRequest; i: number } => x.req !== undefined)
        .slice(-4);
      r.requests = tail.map(({ req, i }) => ({
        req,
        outcome: i === upto ? failure.firstOutcome : undefined,
      }));
    }
    if (write) appendFinding(r);
  };

  const inst = await setup.create();
  try {
    await fc.check(
      fc.asyncProperty(arb, async (batch) => {
        const runIndex = run++;
        const fresh: FoundFailure[] = [];
        sent += await runBatch(
          setup,
          inst,
          batch,
          (violation, index, req, outcome) => {
            const known = failures.get(violation.signature);
            const group = req ? routeGroup(req) : '(batch)';
            if (known) {
              known.occurrences++;
              known.routes.set(group, (known.routes.get(group) ?? 0) + 1);
              return;
            }
            if (failures.size >= MAX_DISTINCT) return;
            const failure: FoundFailure = {
              violation,
              occurrences: 1,
              routes: new Map([[group, 1]]),
              firstRun: runIndex,
              firstBatch: batch,
              firstIndex: index,
              firstOutcome: outcome,
            };
            failures.set(violation.signature, failure);
            fresh.push(failure);
            log(`  new: ${violation.signature}`);
          },
          statuses,
        );
        for (const failure of fresh) await report(failure);
        if (runIndex % 200 === 199) {
          log(
            `  ${setup.invariants.api}: ${sent} requests, ${failures.size} distinct failures, ${Math.round(performance.now() - t0)} ms`,
          );
        }
        return true;
      }),
      { seed: options.seed, numRuns },
    );
  } finally {
    await inst.close();
  }
  if (write) for (const note of setup.notes) appendNote(setup.invariants.api, note);
  const result: CampaignResult = {
    api: setup.invariants.api,
    seed: options.seed,
    requests: sent,
    batches: run,
    ms: Math.round(performance.now() - t0),
    shrinkMs: Math.round(shrinkMs),
    statuses,
    failures: [...failures.values()],
    notes: [...setup.notes],
  };
  if (write) appendText(summaryText(result));
  return result;
}

/** Distinct failures kept per campaign (a flood of new signatures means a normalisation gap, not news). */
const MAX_DISTINCT = 200;

function routesLine(f: FoundFailure): string {
  const top = [...f.routes.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return `seen ${f.occurrences}× in the run, on: ${top.map(([r, n]) => `\`${r}\` ×${n}`).join(', ')}${f.routes.size > 8 ? `, and ${f.routes.size - 8} more routes` : ''}`;
}

/**
 * Replays the batch that first showed `failure` on fresh simulators and lets fast-check shrink it
 * (requests the failure does not need become skipped, the rest get simpler) while the same signature
 * still shows. Undefined when a fresh simulator does not reproduce it.
 */
async function shrink(
  setup: FuzzSetup,
  arb: fc.Arbitrary<Batch>,
  seed: number,
  failure: FoundFailure,
  timeMs: number,
): Promise<{ requests: RecordedRequest[]; path: string; shrunk: boolean } | undefined> {
  const signature = failure.violation.signature;
  const reproduces = async (batch: Batch) => {
    const inst = await setup.create();
    let hit: { index: number; outcome?: SendOutcome } | undefined;
    try {
      await runBatch(setup, inst, batch, (v, index, _req, outcome) => {
        if (v.signature === signature && hit === undefined) hit = { index, outcome };
      });
    } finally {
      await inst.close();
    }
    return hit;
  };
  const result = await fc.check(
    fc.asyncProperty(arb, async (batch) => (await reproduces(batch)) === undefined),
    {
      seed,
      path: String(failure.firstRun),
      numRuns: 1,
      interruptAfterTimeLimit: timeMs,
      endOnFailure: false,
    },
  );
  if (!result.failed || !result.counterexample) return undefined;
  const batch = result.counterexample[0] as Batch;
  const hit = await reproduces(batch);
  if (!hit) return undefined;
  const kept = batch.requests
    .map((req, i) => ({ req, i }))
    .filter((x): x is { req: FuzzRequest; i: number } => x.req !== undefined && x.i <= hit.index);
  return {
    requests: kept.map(({ req, i }) => ({ req, outcome: i === hit.index ? hit.outcome : undefined })),
    path: result.counterexamplePath ?? String(failure.firstRun),
    shrunk: result.numShrinks > 0,
  };
}

function summaryText(r: CampaignResult): string {
  const lines = [
    `### Run summary: ${r.api}, seed ${r.seed}`,
    '',
    `${r.requests} requests in ${r.batches} batches, ${Math.round(r.ms / 100) / 10} s in all, of which ${Math.round(r.shrinkMs / 100) / 10} s shrinking; statuses ${Object.entries(
      r.statuses,
    )
      .sort()
      .map(([k, v]) => `${k}×${v}`)
      .join(' ')}`,
    '',
    r.failures.length === 0
      ? '- no failures'
      : r.failures
          .map(
            (f) =>
              `- ${f.violation.kind} ×${f.occurrences}: \`${f.violation.signature.replace(/`/g, "'")}\`; ${routesLine(f)}`,
          )
          .join('\n'),
    '',
    '',
  ];
  return lines.join('\n');
}

/** One line per distinct failure, for a test's assertion message. */
export function failureLines(r: CampaignResult): string[] {
  return r.failures.map((f) => `${f.violation.kind} ×${f.occurrences}: ${f.violation.signature}`);
}
