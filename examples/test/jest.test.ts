import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const EXAMPLES = fileURLToPath(new URL('..', import.meta.url));

interface JestReport {
  success: boolean;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[];
}

// jest's own start (a second test runner, its transform cache cold) takes seconds on a busy machine.
it('runs the jest example (CommonJS, require() of the built packages) and every one of its tests passes', () => {
  const out = mkdtempSync(join(tmpdir(), 'sims-jest-'));
  try {
    const report = join(out, 'report.json');
    // jest as a project runs it: its own resolver, which asks the packages' `require` condition (the
    // CommonJS build in dist/lib), not the workspace's source condition that vitest passes in NODE_OPTIONS.
    const { NODE_OPTIONS: _, ...env } = process.env;
    const run = spawnSync(
      process.execPath,
      [join(EXAMPLES, 'node_modules/jest/bin/jest.js'), '--ci', '--json', `--outputFile=${report}`],
      { cwd: EXAMPLES, env, encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(readFileSync(report, 'utf8')) as JestReport;
    const written = readdirSync(join(EXAMPLES, 'jest'))
      .filter((f) => f.endsWith('.test.cjs'))
      .flatMap((f) => [...readFileSync(join(EXAMPLES, 'jest', f), 'utf8').matchAll(/^\s*test\(/gm)]);
    expect(result.success).toBe(true);
    expect(result.numFailedTests).toBe(0);
    expect(result.numPendingTests).toBe(0);
    // Every test in the files ran: none was skipped or filtered away.
    expect(result.numPassedTests).toBe(written.length);
    expect(written.length).toBeGreaterThanOrEqual(2);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
