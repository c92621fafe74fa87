// node --test scripts/summarize-reports.test.mjs (.ci/run runs it before the project's own tests)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { countReport, parseArgs, summarize } from './summarize-reports.mjs';

const SCRIPT = fileURLToPath(new URL('./summarize-reports.mjs', import.meta.url));
const CLOSING = /^\d+ passed, \d+ failed(, \d+ skipped)?$/;

const test = (title, status) => ({ title, fullName: `suite ${title}`, status, failureMessages: [] });
const file = (name, status, assertionResults, message = '') => ({
  name: `/repo/${name}`,
  status,
  message,
  assertionResults,
});
const report = (testResults, success) => ({
  numTotalTests: 0,
  success: success ?? testResults.every((f) => f.status === 'passed'),
  testResults,
});

// Shapes as vitest 4.1's JSON reporter writes them (seen in a scratch package).
const allPassing = report([file('a.test.ts', 'passed', [test('one', 'passed'), test('two', 'passed')])]);
const mixed = report(
  [
    file('a.test.ts', 'failed', [
      test('passes', 'passed'),
      test('fails', 'failed'),
      test('skipped', 'skipped'),
      test('todo', 'todo'),
    ]),
    file('b.test.ts', 'failed', [], "Cannot find module './does-not-exist'"),
    file('c.test.ts', 'failed', [test('y', 'skipped'), test('z', 'skipped')], 'boom'),
    file('d.test.ts', 'passed', [test('ok', 'passed'), test('ok2', 'passed')]),
  ],
  false,
);
const noTestFiles = report([], false);

describe('countReport', () => {
  it('counts passing tests', () => {
    assert.deepEqual(countReport(allPassing), { passed: 2, failed: 0, skipped: 0, problems: [] });
  });

  it('counts failures, import failures, failed hooks and skips', () => {
    const c = countReport(mixed);
    assert.equal(c.passed, 3);
    // 1 failing test + 1 file that failed on import + 1 file whose beforeAll failed (its tests skipped)
    assert.equal(c.failed, 3);
    assert.equal(c.skipped, 4);
    assert.ok(c.problems.some((p) => p.includes('b.test.ts') && p.includes('Cannot find module')));
  });

  it('counts a failed run with no test files as 1 failed', () => {
    assert.equal(countReport(noTestFiles).failed, 1);
  });

  it('counts a failed run whose files all passed (an unhandled error) as 1 failed', () => {
    assert.equal(countReport(report(allPassing.testResults, false)).failed, 1);
  });

  it('treats a successful empty report as nothing', () => {
    assert.deepEqual(countReport(report([], true)), { passed: 0, failed: 0, skipped: 0, problems: [] });
  });
});

describe('parseArgs', () => {
  it('groups reports by leg and collects failed steps', () => {
    assert.deepEqual(
      parseArgs(['a', '--leg', 'node24', 'b', 'b', '--step-failed', 'lint', '--leg', 'node24', 'c']),
      {
        legs: [
          { name: 'tests', reports: ['a'] },
          { name: 'node24', reports: ['b', 'c'] },
        ],
        stepsFailed: ['lint'],
      },
    );
  });

  it('rejects unknown options', () => {
    assert.throws(() => parseArgs(['--nope']));
  });
});

describe('summarize', () => {
  const counts = {
    pass: { passed: 5, failed: 0, skipped: 1, problems: [] },
    fail: { passed: 1, failed: 2, skipped: 0, problems: ['failed: x'] },
  };
  const fake = (path) => counts[path];

  it('sums legs and ends with the closing line', () => {
    const out = summarize(
      {
        legs: [
          { name: 'node20', reports: ['pass', 'fail'] },
          { name: 'node24', reports: ['pass'] },
        ],
        stepsFailed: [],
      },
      fake,
    );
    assert.equal(out.lines.at(-1), '11 passed, 2 failed, 2 skipped');
    assert.equal(out.exitCode, 1);
    // no other line may look like a closing line
    assert.equal(out.lines.filter((l) => CLOSING.test(l.replace(/^\w+: /, ''))).length, 1);
  });

  it('exits 0 only when tests passed and nothing failed', () => {
    const ok = summarize({ legs: [{ name: 'node20', reports: ['pass'] }], stepsFailed: [] }, fake);
    assert.equal(ok.exitCode, 0);
    assert.equal(ok.lines.at(-1), '5 passed, 0 failed, 1 skipped');
    const none = summarize({ legs: [], stepsFailed: [] }, fake);
    assert.equal(none.exitCode, 1);
    assert.equal(none.lines.at(-1), '0 passed, 0 failed, 0 skipped');
  });

  it('counts each failed step as 1 failed', () => {
    const out = summarize(
      { legs: [{ name: 'node20', reports: ['pass'] }], stepsFailed: ['lint', 'build'] },
      fake,
    );
    assert.equal(out.lines.at(-1), '5 passed, 2 failed, 1 skipped');
    assert.equal(out.exitCode, 1);
  });
});

describe('the command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'summarize-reports-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name, content) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const run = (args) => {
    const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
    return { status: r.status, lines: r.stdout.trimEnd().split('\n') };
  };

  it('prints the closing line last and exits 0 when all passed', () => {
    const r = run([
      '--leg',
      'node20',
      write('ok.json', allPassing),
      '--leg',
      'node24',
      write('ok2.json', allPassing),
    ]);
    assert.equal(r.lines.at(-1), '4 passed, 0 failed, 0 skipped');
    assert.ok(r.lines.includes('leg node24: passed=2 failed=0 skipped=0 (1 reports)'));
    assert.equal(r.status, 0);
  });

  it('counts missing and unreadable reports as failed and exits 1', () => {
    const r = run([
      write('ok3.json', allPassing),
      join(dir, 'missing.json'),
      write('bad.json', '{"testResults": ['),
    ]);
    assert.equal(r.lines.at(-1), '2 passed, 2 failed, 0 skipped');
    assert.equal(r.status, 1);
  });

  it('exits 1 when no test ran', () => {
    const r = run([]);
    assert.equal(r.lines.at(-1), '0 passed, 0 failed, 0 skipped');
    assert.equal(r.status, 1);
  });

  it('still prints a closing line on bad arguments', () => {
    const r = run(['--leg']);
    assert.ok(CLOSING.test(r.lines.at(-1)));
    assert.equal(r.lines.at(-1), '0 passed, 1 failed, 0 skipped');
    assert.equal(r.status, 1);
  });
});
