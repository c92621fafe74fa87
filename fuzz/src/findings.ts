/**
 * The findings file (the package's `.reports/fuzz-findings.md`, git-ignored, unless FUZZ_FINDINGS says
 * otherwise): every distinct failure once, with its shrunk counterexample, appended as it is found.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeBody, type FuzzRequest, type SendOutcome, truncate, urlOf } from './http';
import type { Violation } from './invariants';

export function findingsPath(): string {
  return (
    process.env.FUZZ_FINDINGS ||
    join(dirname(fileURLToPath(import.meta.url)), '..', '.reports', 'fuzz-findings.md')
  );
}

const HEADER = `# Fuzz findings

Written by \`@sims/fuzz\` (fuzz/): one section per distinct failure (by signature), with its shrunk
counterexample, appended as found. Replay a campaign with the seed shown (\`FUZZ_SEED=<seed> pnpm --filter
@sims/fuzz fuzz\`, or the test's fixed seed). Sections marked **note** are ambiguities, not failures.

`;

function ensureHeader(path: string): void {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, HEADER);
  }
}

/** Whether the file already holds a section for this signature (from this run or an earlier one). */
export function alreadyRecorded(signature: string, path = findingsPath()): boolean {
  if (!existsSync(path)) return false;
  return readFileSync(path, 'utf8').includes(`signature: \`${signature.replace(/`/g, "'")}\``);
}

export interface RecordedRequest {
  req: FuzzRequest;
  outcome?: SendOutcome;
}

function headerText(req: FuzzRequest): string {
  if (req.headers.length === 0) return '(none)';
  return req.headers.map(([k, v]) => `${k}: ${truncate(JSON.stringify(v).slice(1, -1), 120)}`).join('; ');
}

export function describeRequest(req: FuzzRequest): string {
  return [
    `\`${req.method} ${truncate(urlOf(req), 300)}\``,
    `    - operation: ${req.op} (template \`${req.template}\`)`,
    `    - headers: ${headerText(req)}`,
    `    - body: ${req.body === undefined ? '(none)' : `\`${describeBody(req.body, 500).replace(/`/g, "'")}\``}`,
    req.tags.length ? `    - hostile: ${[...new Set(req.tags)].join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function describeOutcome(outcome: SendOutcome | undefined): string {
  if (!outcome) return '(not captured)';
  switch (outcome.kind) {
    case 'unsendable':
      return `unsendable: ${outcome.error}`;
    case 'threw':
      return `app.request rejected: ${outcome.error}${outcome.logs.length ? `\n    - logged: ${outcome.logs.join(' | ')}` : ''}`;
    case 'timeout':
      return `no answer within ${outcome.ms} ms${outcome.logs.length ? `\n    - logged: ${outcome.logs.join(' | ')}` : ''}`;
    case 'response': {
      const r = outcome.res;
      const lines = [
        `${r.status}, content-type \`${r.headers.get('content-type') ?? '(none)'}\`, X-Sim-Reason: ${r.headers.get('x-sim-reason') ?? '(none)'}`,
        `    - body: \`${truncate(r.text.replace(/\n/g, '\\n'), 400).replace(/`/g, "'")}\``,
      ];
      if (r.logs.length)
        lines.push(
          `    - the simulator logged: \`${r.logs
            .map((l) => truncate(l, 400))
            .join(' | ')
            .replace(/`/g, "'")}\``,
        );
      return lines.join('\n');
    }
  }
}

export interface FindingReport {
  api: string;
  violation: Violation;
  seed: number;
  /** fast-check's replay path of the (shrunk) counterexample. */
  path?: string;
  shrunk: boolean;
  /** Whether a fresh simulator reproduced it (else: it needs the state of a longer run). */
  reproduced: boolean;
  requests: RecordedRequest[];
  extra?: string;
}

/** Control characters (NUL …) written as `\uXXXX`, so that the file stays text for grep and editors. */
function printable(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    const control = (code < 0x20 && ch !== '\n' && ch !== '\r' && ch !== '\t') || code === 0x7f;
    out += control ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
  }
  return out;
}

/** Appends one finding (skipped when its signature is already in the file). Returns whether it wrote. */
export function appendFinding(f: FindingReport, path = findingsPath()): boolean {
  ensureHeader(path);
  if (alreadyRecorded(f.violation.signature, path)) return false;
  const v = f.violation;
  const lines = [
    `## [${f.api}] ${v.kind}: ${truncate(v.message.split('; the simulator logged')[0] ?? v.message, 160)}`,
    '',
    `- signature: \`${v.signature.replace(/`/g, "'")}\``,
    `- found: ${new Date().toISOString()}, seed ${f.seed}${f.path ? `, fast-check path \`${f.path}\`` : ''}; ${
      f.shrunk ? 'shrunk' : 'not shrunk'
    }; ${f.reproduced ? 'reproduced on a fresh simulator' : 'NOT reproduced on a fresh simulator (needs earlier state): the requests below are the tail of the batch that showed it'}`,
    `- what: ${truncate(v.message, 1200)}`,
    `- counterexample (${f.requests.length} request${f.requests.length === 1 ? '' : 's'}, in order, after the batch seed):`,
    ...f.requests.map(
      (r, i) => `  ${i + 1}. ${describeRequest(r.req)}\n    - response: ${describeOutcome(r.outcome)}`,
    ),
    f.extra ? `- ${f.extra}` : '',
    '',
  ];
  appendFileSync(path, printable(`${lines.filter((l) => l !== undefined).join('\n')}\n`));
  return true;
}

export function appendNote(api: string, note: string, path = findingsPath()): void {
  ensureHeader(path);
  const signature = `${api}|note|${note.slice(0, 80)}`;
  if (alreadyRecorded(signature, path)) return;
  appendFileSync(
    path,
    `## [${api}] note (ambiguity, not counted as a failure)\n\n- signature: \`${signature.replace(/`/g, "'")}\`\n- ${note}\n\n`,
  );
}

export function appendText(text: string, path = findingsPath()): void {
  ensureHeader(path);
  appendFileSync(path, printable(text));
}
