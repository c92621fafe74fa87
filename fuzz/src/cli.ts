/**
 * Long mode (`pnpm fuzz`): 100,000 requests per simulator API (FUZZ_RUNS), a tenth of that per control
 * plane (FUZZ_CONTROL_RUNS), then namespace isolation and injected faults; a random seed printed first
 * (FUZZ_SEED replays a night). Findings go to fuzz/.reports/fuzz-findings.md (FUZZ_FINDINGS). Exit 1 when any
 * invariant failed. FUZZ_ONLY=cluster-api,annotation-api,cluster-control,annotation-control,isolation,injected
 * picks parts.
 */
import { appendText, findingsPath } from './findings';
import {
  type CampaignName,
  campaign,
  failureLines,
  injected,
  isolation,
  propertyFailureLines,
} from './suite';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`fuzz: ${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return n;
}

const seed = intEnv('FUZZ_SEED', (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) >>> 0);
const runs = intEnv('FUZZ_RUNS', 100_000);
const controlRuns = intEnv('FUZZ_CONTROL_RUNS', Math.max(300, Math.round(runs / 10)));
const propertyRuns = intEnv('FUZZ_PROPERTY_RUNS', Math.max(50, Math.round(runs / 500)));
const only = new Set(
  (process.env.FUZZ_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const wanted = (part: string) => only.size === 0 || only.has(part);

console.log(
  `fuzz: seed ${seed} (replay with FUZZ_SEED=${seed}); ${runs} requests per simulator API, ${controlRuns} per control plane, ${propertyRuns} isolation/injected-fault cases; findings: ${findingsPath()}`,
);

const t0 = performance.now();
const lines: string[] = [];

// A simulator that throws from a timer or a promise nobody awaits would end the process: record it.
for (const event of ['unhandledRejection', 'uncaughtException'] as const) {
  process.on(event, (err: unknown) => {
    const text = err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err);
    lines.push(`process: ${event}: ${text.split('\n')[0]}`);
    appendText(
      `## [process] ${event} during the fuzz run (seed ${seed})\n\n- signature: \`process|${event}|${text.split('\n')[0]?.slice(0, 120)}\`\n- \`\`\`\n${text.slice(0, 3000)}\n\`\`\`\n\n`,
    );
  });
}
const log = (line: string) => console.log(line);

for (const name of [
  'cluster-api',
  'annotation-api',
  'cluster-control',
  'annotation-control',
] as CampaignName[]) {
  if (!wanted(name)) continue;
  const n = name.endsWith('-api') ? runs : controlRuns;
  console.log(`\n== ${name}: ${n} requests`);
  const r = await campaign(name, {
    seed,
    requests: n,
    shrinkBudgetMs: 180_000,
    shrinkEachMs: 20_000,
    maxShrinks: 60,
    log,
  });
  console.log(
    `   ${r.requests} requests in ${(r.ms / 1000).toFixed(1)} s (${(r.shrinkMs / 1000).toFixed(1)} s shrinking); statuses ${JSON.stringify(r.statuses)}`,
  );
  for (const l of failureLines(r)) lines.push(`${name}: ${l}`);
}
for (const sim of ['cluster-sim', 'annotation-sim'] as const) {
  if (wanted('isolation')) {
    console.log(`\n== ${sim} namespace isolation: ${propertyRuns} cases`);
    const r = await isolation(sim, { seed, numRuns: propertyRuns });
    for (const l of propertyFailureLines(r)) lines.push(`${sim} isolation: ${l}`);
  }
  if (wanted('injected')) {
    console.log(`\n== ${sim} injected faults: ${propertyRuns} cases`);
    const r = await injected(sim, { seed, numRuns: propertyRuns });
    for (const l of propertyFailureLines(r)) lines.push(`${sim} injected: ${l}`);
  }
}

console.log(
  `\nfuzz: seed ${seed}, ${((performance.now() - t0) / 1000).toFixed(1)} s, ${lines.length} distinct failure(s)${lines.length ? ` (details in ${findingsPath()})` : ''}`,
);
for (const l of lines) console.log(`  - ${l}`);
process.exit(lines.length > 0 ? 1 : 0);
