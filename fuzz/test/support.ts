/**
 * Shared settings of the CI fuzz tests: a fixed seed (FUZZ_TEST_SEED overrides it to replay another),
 * bounded counts, bounded shrinking. Findings go to fuzz/.reports/fuzz-findings.md (FUZZ_FINDINGS).
 */
export const SEED = Number(process.env.FUZZ_TEST_SEED ?? 20260101);

/** Requests per simulator API (the hardening issue asks for at least 2,000). */
export const API_REQUESTS = 2_000;
/** Requests per control plane. */
export const CONTROL_REQUESTS = 400;
/** Cases of the namespace-isolation and injected-fault properties, per simulator. */
export const PROPERTY_RUNS = 25;

export const SHRINK = { shrinkBudgetMs: 15_000, shrinkEachMs: 4_000, maxShrinks: 12 };

/** A test's time limit: the work above takes seconds; shrinking is bounded by SHRINK. */
export const TIMEOUT = 110_000;

/** The assertion message: every distinct failure, and where its counterexample is written. */
export function explain(lines: string[], findings: string): string {
  return `${lines.length} distinct failure(s); shrunk counterexamples in ${findings}:\n${lines.map((l) => `  - ${l}`).join('\n')}`;
}
