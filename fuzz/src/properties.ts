/**
 * Properties over small cases (namespace isolation, injected faults): explore with a fixed seed,
 * collect every distinct violation, shrink each with fast-check (replaying the run that showed it) and
 * append it to the findings file.
 */
import fc from 'fast-check';
import { alreadyRecorded, appendText } from './findings';
import type { Violation } from './invariants';

interface PropertyFailure<T> {
  violation: Violation;
  occurrences: number;
  counterexample: T;
  shrunk: boolean;
  detail: string;
}

export interface PropertyResult<T> {
  name: string;
  runs: number;
  ms: number;
  failures: PropertyFailure<T>[];
}

export async function checkProperty<T>(
  name: string,
  arb: fc.Arbitrary<T>,
  run: (value: T) => Promise<{ violations: Violation[]; detail: string }>,
  options: {
    seed: number;
    numRuns: number;
    shrinkEachMs?: number;
    write?: boolean;
    describe: (value: T) => string;
  },
): Promise<PropertyResult<T>> {
  const t0 = performance.now();
  const seen = new Map<
    string,
    { violation: Violation; occurrences: number; runIndex: number; value: T; detail: string }
  >();
  let index = 0;
  await fc.check(
    fc.asyncProperty(arb, async (value) => {
      const runIndex = index++;
      const { violations, detail } = await run(value);
      for (const v of violations) {
        const known = seen.get(v.signature);
        if (known) known.occurrences++;
        else seen.set(v.signature, { violation: v, occurrences: 1, runIndex, value, detail });
      }
      return true;
    }),
    { seed: options.seed, numRuns: options.numRuns },
  );
  const failures: PropertyFailure<T>[] = [];
  for (const [signature, s] of seen) {
    let value = s.value;
    let detail = s.detail;
    let shrunk = false;
    const result = await fc.check(
      fc.asyncProperty(arb, async (v) => !(await run(v)).violations.some((x) => x.signature === signature)),
      {
        seed: options.seed,
        path: String(s.runIndex),
        numRuns: 1,
        interruptAfterTimeLimit: options.shrinkEachMs ?? 5_000,
      },
    );
    if (result.failed && result.counterexample) {
      value = result.counterexample[0] as T;
      detail = (await run(value)).detail;
      shrunk = result.numShrinks > 0;
    }
    failures.push({
      violation: s.violation,
      occurrences: s.occurrences,
      counterexample: value,
      shrunk,
      detail,
    });
    if ((options.write ?? true) && !alreadyRecorded(signature)) {
      appendText(
        [
          `## [${name}] ${s.violation.kind}: ${s.violation.message.slice(0, 200)}`,
          '',
          `- signature: \`${signature.replace(/`/g, "'")}\``,
          `- found: ${new Date().toISOString()}, seed ${options.seed}, run ${s.runIndex}; ${shrunk ? 'shrunk' : 'not shrunk'}; seen ${s.occurrences}× in ${options.numRuns} runs`,
          `- what: ${s.violation.message}`,
          `- counterexample: ${options.describe(value)}`,
          detail ? `- ${detail}` : '',
          '',
          '',
        ].join('\n'),
      );
    }
  }
  return { name, runs: options.numRuns, ms: Math.round(performance.now() - t0), failures };
}
