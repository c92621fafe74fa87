#!/usr/bin/env node
// Sums vitest JSON reports (and JUnit XML reports, `*.xml`: pytest's, of the Python leg) into the one
// closing line CI reads: `N passed, N failed, N skipped`.
//
//   node scripts/summarize-reports.mjs [--leg NAME] REPORT... [--leg NAME REPORT...] [--step-failed NAME]...
//
// - Every REPORT given must exist: a missing or unreadable report counts as 1 failed.
// - A test file that failed with no failing test in it (an import error, a failing beforeAll) counts as 1 failed.
// - A report whose run failed with nothing counted as failed (no test files, an unhandled error) counts as 1 failed.
// - skipped, todo, pending and disabled tests count as skipped.
// - JUnit XML: a testcase with <failure> or <error> (a collection error is one) counts as failed, one with
//   <skipped> as skipped; a suite whose errors/failures attributes exceed its failing testcases adds the rest.
// - --step-failed NAME: a step outside the reports failed (install, lint, ...); it counts as 1 failed.
// Detail lines, one line per leg, the ten slowest test files of all legs, then the closing line, all on
// stdout; the closing line is the last. A file's time is what its report carries: its first test's start
// to its last test's end (its imports and beforeAll hooks are not in it).
// Exit status: 0 only when nothing failed and at least one test passed.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const SKIPPED = new Set(['skipped', 'pending', 'todo', 'disabled']);
/** How many of the slowest test files the summary lists. */
const SLOWEST = 10;

/** Counts one parsed vitest JSON report. */
export function countReport(report) {
  const counts = { passed: 0, failed: 0, skipped: 0, problems: [], files: [] };
  const files = Array.isArray(report?.testResults) ? report.testResults : [];
  for (const file of files) {
    const tests = Array.isArray(file.assertionResults) ? file.assertionResults : [];
    const ms = fileMs(file);
    if (ms !== undefined) counts.files.push({ name: shortName(file.name), ms, tests: tests.length });
    let failedHere = 0;
    for (const test of tests) {
      if (test.status === 'passed') counts.passed += 1;
      else if (test.status === 'failed') {
        failedHere += 1;
        counts.problems.push(`failed: ${test.fullName ?? test.title ?? '?'} (${shortName(file.name)})`);
      } else if (SKIPPED.has(test.status)) counts.skipped += 1;
    }
    counts.failed += failedHere;
    if (file.status === 'failed' && failedHere === 0) {
      counts.failed += 1;
      counts.problems.push(
        `file failed: ${shortName(file.name)}: ${firstLine(file.message) || 'no failing test in it'}`,
      );
    }
  }
  if (report?.success === false && counts.failed === 0) {
    counts.failed += 1;
    counts.problems.push(
      files.length === 0
        ? 'run failed: no test files found'
        : 'run failed with no failing test (an unhandled error?)',
    );
  }
  return counts;
}

/** An XML attribute's value from a tag's text, unescaped (the few entities JUnit writers use). */
function xmlAttr(tag, name) {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  if (!m) return undefined;
  return m[1]
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, '&');
}

/**
 * Counts one JUnit XML report (pytest's `--junitxml`): each `<testcase>` by what it holds, a file's time
 * the sum of its testcases' (grouped by `file`, else `classname`). Throws on text that is not JUnit XML.
 */
export function countJunit(text) {
  const counts = { passed: 0, failed: 0, skipped: 0, problems: [], files: [] };
  if (!/<testsuites?[\s>]/.test(text)) throw new Error('not a JUnit XML report (no <testsuite>)');
  const byFile = new Map();
  const cases = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const m of text.matchAll(cases)) {
    const attrs = m[1] ?? '';
    const inner = m[3] ?? '';
    const where = xmlAttr(attrs, 'file') || xmlAttr(attrs, 'classname') || '?';
    const name = `${where}::${xmlAttr(attrs, 'name') ?? '?'}`;
    const failing = /<(?:failure|error)\b([^>]*)>/.exec(inner);
    if (failing) {
      counts.failed += 1;
      const message = firstLine(xmlAttr(failing[1] ?? '', 'message'));
      counts.problems.push(`failed: ${name}${message ? ` (${message})` : ''}`);
    } else if (/<skipped\b/.test(inner)) counts.skipped += 1;
    else counts.passed += 1;
    const file = byFile.get(where) ?? { name: where, ms: 0, tests: 0 };
    file.ms += Math.round(Number(xmlAttr(attrs, 'time') ?? 0) * 1000) || 0;
    file.tests += 1;
    byFile.set(where, file);
  }
  let declared = 0;
  for (const m of text.matchAll(/<testsuite\b([^>]*)>/g)) {
    declared += Number(xmlAttr(m[1] ?? '', 'errors') ?? 0) + Number(xmlAttr(m[1] ?? '', 'failures') ?? 0);
  }
  if (declared > counts.failed) {
    counts.problems.push(`${declared - counts.failed} errors or failures outside any testcase`);
    counts.failed = declared;
  }
  counts.files = [...byFile.values()];
  return counts;
}

/** Reads and counts one report file; a missing or unreadable file counts as 1 failed. */
export function countFile(path) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {
      passed: 0,
      failed: 1,
      skipped: 0,
      problems: ['report missing: its test run crashed or never ran'],
      files: [],
    };
  }
  try {
    return path.endsWith('.xml') ? countJunit(text) : countReport(JSON.parse(text));
  } catch (error) {
    return {
      passed: 0,
      failed: 1,
      skipped: 0,
      problems: [`report unreadable: ${firstLine(error.message)}`],
      files: [],
    };
  }
}

/** Parses the command line into legs of report paths and failed steps. */
export function parseArgs(argv) {
  const legs = [];
  const stepsFailed = [];
  let leg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--leg' || arg === '--step-failed') {
      const value = argv[i + 1];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      i += 1;
      if (arg === '--step-failed') stepsFailed.push(value);
      else {
        leg = legs.find((l) => l.name === value) ?? { name: value, reports: [] };
        if (!legs.includes(leg)) legs.push(leg);
      }
    } else if (arg.startsWith('--')) {
      throw new Error(`unknown option ${arg}`);
    } else {
      if (!leg) {
        leg = { name: 'tests', reports: [] };
        legs.push(leg);
      }
      if (!leg.reports.includes(arg)) leg.reports.push(arg);
    }
  }
  return { legs, stepsFailed };
}

/** Builds the output lines and the exit status; `count` maps a path to its counts. */
export function summarize({ legs, stepsFailed }, count = countFile) {
  const lines = [];
  const total = { passed: 0, failed: 0, skipped: 0 };
  const timed = [];
  for (const leg of legs) {
    const sum = { passed: 0, failed: 0, skipped: 0 };
    for (const path of leg.reports) {
      const c = count(path);
      sum.passed += c.passed;
      sum.failed += c.failed;
      sum.skipped += c.skipped;
      lines.push(`  [${leg.name}] ${path}: pass=${c.passed} fail=${c.failed} skip=${c.skipped}`);
      for (const f of c.files ?? []) timed.push({ ...f, leg: leg.name });
      for (const problem of c.problems.slice(0, 20)) lines.push(`      ${problem}`);
      if (c.problems.length > 20) lines.push(`      ... and ${c.problems.length - 20} more`);
    }
    lines.push(
      `leg ${leg.name}: passed=${sum.passed} failed=${sum.failed} skipped=${sum.skipped} (${leg.reports.length} reports)`,
    );
    total.passed += sum.passed;
    total.failed += sum.failed;
    total.skipped += sum.skipped;
  }
  lines.push(...slowestLines(timed));
  if (stepsFailed.length > 0) {
    lines.push(`steps failed (1 each): ${stepsFailed.join(', ')}`);
    total.failed += stepsFailed.length;
  }
  if (total.passed + total.failed === 0) lines.push('no test ran');
  lines.push(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  return { lines, total, exitCode: total.failed === 0 && total.passed > 0 ? 0 : 1 };
}

/** The SLOWEST (10) longest-running files of all legs, slowest first, under a header; none when no file has a time. */
export function slowestLines(timed) {
  if (timed.length === 0) return [];
  const top = [...timed].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST);
  return [
    `slowest test files (of ${timed.length}; first test's start to last test's end):`,
    ...top.map(
      (f) =>
        `  ${(f.ms / 1000).toFixed(1).padStart(7)} s  [${f.leg}] ${f.name} (${f.tests} ${f.tests === 1 ? 'test' : 'tests'})`,
    ),
  ];
}

/** A file's time in ms from its report (startTime and endTime in ms since the epoch), or undefined. */
function fileMs(file) {
  const { startTime, endTime } = file ?? {};
  if (!Number.isFinite(startTime) || !Number.isFinite(endTime) || endTime < startTime) return undefined;
  return endTime - startTime;
}

function shortName(path) {
  if (typeof path !== 'string') return '?';
  const cwd = `${process.cwd()}/`;
  return path.startsWith(cwd) ? path.slice(cwd.length) : path;
}

function firstLine(text) {
  return typeof text === 'string' ? (text.trim().split('\n')[0] ?? '').slice(0, 200) : '';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`summarize-reports: ${error.message}`);
    args = { legs: [], stepsFailed: ['summarize-reports arguments'] };
  }
  const { lines, exitCode } = summarize(args);
  console.log(lines.join('\n'));
  process.exitCode = exitCode;
}
