// node --test scripts/summarize-reports.test.mjs (.ci/run runs it before the project's own tests)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { countJunit, countReport, parseArgs, slowestLines, summarize } from './summarize-reports.mjs';

const SCRIPT = fileURLToPath(new URL('./summarize-reports.mjs', import.meta.url));
const CLOSING = /^\d+ passed, \d+ failed(, \d+ skipped)?$/;

const test = (title, status) => ({ title, fullName: `suite ${title}`, status, failureMessages: [] });
const file = (name, status, assertionResults, message = '', times = {}) => ({
  name: `/repo/${name}`,
  status,
  message,
  assertionResults,
  ...times,
});
// A passing file whose tests ran from startTime to endTime (vitest: the first test's start, the last's end).
const timedFile = (name, ms, tests = 1) =>
  file(
    name,
    'passed',
    Array.from({ length: tests }, (_, i) => test(`t${i}`, 'passed')),
    '',
    { startTime: 1_000_000, endTime: 1_000_000 + ms },
  );
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
    assert.deepEqual(countReport(allPassing), { passed: 2, failed: 0, skipped: 0, problems: [], files: [] });
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
    assert.deepEqual(countReport(report([], true)), {
      passed: 0,
      failed: 0,
      skipped: 0,
      problems: [],
      files: [],
    });
  });

  it("takes each file's time from its startTime and endTime, and skips a file without them", () => {
    const c = countReport(
      report([timedFile('slow.test.ts', 12_345, 3), file('untimed.test.ts', 'passed', [])]),
    );
    assert.deepEqual(c.files, [{ name: '/repo/slow.test.ts', ms: 12_345, tests: 3 }]);
  });
});

// Shapes as pytest 7.2's --junitxml writes them (seen in a scratch project): a pass, a failure, a skip, an
// error in a fixture's setup; and a run whose only module failed to import.
const junitMixed =
  '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="1" ' +
  'skipped="1" tests="4" time="0.066"><testcase classname="test_a" name="test_ok" time="0.250" />' +
  '<testcase classname="test_a" name="test_bad" time="0.001"><failure message="assert 1 == 2&#10;  +1">' +
  'def test_bad(): assert 1 == 2</failure></testcase><testcase classname="test_a" name="test_skip" ' +
  'time="0.000"><skipped type="pytest.skip" message="x">test_a.py:4: x</skipped></testcase>' +
  '<testcase classname="test_a" name="test_err" time="0.001"><error message="failed on setup with ' +
  '&quot;RuntimeError: setup&quot;">…</error></testcase></testsuite></testsuites>';
const junitImportError =
  '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="0" ' +
  'skipped="0" tests="1" time="0.1"><testcase classname="" name="test_b" time="0.000"><error ' +
  'message="collection failure">ImportError while importing test module</error></testcase></testsuite></testsuites>';

describe('countJunit', () => {
  it('counts passes, failures and setup errors, and skips', () => {
    const c = countJunit(junitMixed);
    assert.deepEqual([c.passed, c.failed, c.skipped], [1, 2, 1]);
    assert.deepEqual(c.problems, [
      'failed: test_a::test_bad (assert 1 == 2)',
      'failed: test_a::test_err (failed on setup with "RuntimeError: setup")',
    ]);
    assert.deepEqual(c.files, [{ name: 'test_a', ms: 252, tests: 4 }]);
  });

  it('counts a module that failed to import as failed', () => {
    const c = countJunit(junitImportError);
    assert.deepEqual([c.passed, c.failed, c.skipped], [0, 1, 0]);
    assert.deepEqual(c.problems, ['failed: ?::test_b (collection failure)']);
  });

  it("counts a suite's errors that no testcase carries", () => {
    const c = countJunit(
      '<testsuites><testsuite name="pytest" errors="2" failures="0" tests="0"></testsuite></testsuites>',
    );
    assert.equal(c.failed, 2);
  });

  it('refuses text that is not JUnit XML', () => {
    assert.throws(() => countJunit('{"testResults": []}'), /not a JUnit XML report/);
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

  it('lists the ten slowest files of all legs, slowest first, just above the closing line', () => {
    const many = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [
        `r${i}`,
        {
          passed: 1,
          failed: 0,
          skipped: 0,
          problems: [],
          files: [{ name: `f${i}.test.ts`, ms: i * 1000, tests: 1 }],
        },
      ]),
    );
    const legs = [
      { name: 'node20', reports: ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9'] },
      { name: 'node24', reports: ['r10', 'r11'] },
    ];
    const out = summarize({ legs, stepsFailed: ['lint'] }, (path) => many[path]);
    const header = out.lines.findIndex((l) => l.startsWith('slowest test files'));
    assert.ok(header > out.lines.findIndex((l) => l.startsWith('leg node24:')));
    const listed = out.lines.slice(header + 1, header + 11);
    assert.equal(listed[0], '     11.0 s  [node24] f11.test.ts (1 test)');
    assert.equal(listed[9], '      2.0 s  [node20] f2.test.ts (1 test)');
    assert.ok(!out.lines.some((l) => l.includes('f1.test.ts') || l.includes('f0.test.ts')));
    assert.equal(out.lines.at(-1), '12 passed, 1 failed, 0 skipped');
    assert.equal(out.lines.filter((l) => CLOSING.test(l.replace(/^\w+: /, ''))).length, 1);
  });

  it('lists no slowest files when no report carries times', () => {
    assert.deepEqual(slowestLines([]), []);
    const out = summarize({ legs: [{ name: 'node20', reports: ['pass'] }], stepsFailed: [] }, fake);
    assert.ok(!out.lines.some((l) => l.startsWith('slowest')));
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

  it('prints the slowest files from the reports above the closing line', () => {
    const r = run([
      '--leg',
      'node20',
      write('timed.json', report([timedFile('quick.test.ts', 250), timedFile('slow.test.ts', 61_500, 2)])),
    ]);
    assert.deepEqual(r.lines.slice(-4), [
      "slowest test files (of 2; first test's start to last test's end):",
      '     61.5 s  [node20] /repo/slow.test.ts (2 tests)',
      '      0.3 s  [node20] /repo/quick.test.ts (1 test)',
      '3 passed, 0 failed, 0 skipped',
    ]);
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

  it('counts JUnit XML reports (the Python leg) beside the JSON ones', () => {
    const r = run([
      '--leg',
      'node20',
      write('ok4.json', allPassing),
      '--leg',
      'python',
      write('pytest.xml', junitMixed),
      write('broken.xml', '<html>'),
    ]);
    assert.ok(r.lines.includes('leg python: passed=1 failed=3 skipped=1 (2 reports)'));
    assert.equal(r.lines.at(-1), '3 passed, 3 failed, 1 skipped');
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
