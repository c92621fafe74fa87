import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AnyJson, createHarness, type Harness } from './support/harness';

/**
 * Replays sequences recorded against live GKE (test/recordings/, each citing its source) and compares
 * every field path and value of the simulator's answers with GKE's. Values GKE chooses or the recording
 * normalised (ids, times, etags, addresses, hashes, versions) are compared by form through `vary`.
 *
 * Where the simulator still differs, the differences are listed in `<recording>.gaps.txt` beside it: the
 * test fails on any difference not listed there and on any listed one that is gone, so the list only
 * shrinks with intent (`REPLAY_WRITE_GAPS=1` rewrites it from the current answers).
 */

interface Step {
  name: string;
  advance?: string;
  request: { method: string; path: string; body?: unknown };
  response: {
    status: number;
    body: AnyJson;
    partial?: boolean;
    /** Paths GKE leaves out (proto3 JSON drops defaults): the simulator must leave them out too. */
    absent?: string[];
    vary?: Record<string, string>;
    ignore?: string[];
    capture?: Record<string, string>;
  };
}

interface Recording {
  title: string;
  source: { repo: string; path: string; commit: string };
  vars: Record<string, string>;
  vary: Record<string, string>;
  /** Arrays the recording's normaliser sorted: the simulator's are sorted the same way before comparing. */
  sorted?: string[];
  /**
   * The GKE version the recording was made at, as the ServerConfig offered it: set before the steps so
   * that the cluster is created at that version (its version-keyed defaults are the recorded ones).
   */
  serverConfig?: {
    defaultClusterVersion: string;
    validMasterVersions: string[];
    validNodeVersions: string[];
  };
  steps: Step[];
}

const DIR = join(import.meta.dirname, 'recordings');
const IPV4 = '\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}';

type Leaves = Map<string, unknown>;

/** Leaves of a JSON value by path (`a.b[0].c`); empty objects and arrays are leaves of their own. */
function leaves(value: unknown, path = '', out: Leaves = new Map()): Leaves {
  if (Array.isArray(value)) {
    if (value.length === 0 && path !== '') out.set(path, []);
    value.forEach((v, i) => {
      leaves(v, `${path}[${i}]`, out);
    });
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0 && path !== '') out.set(path, {});
    for (const [k, v] of entries) leaves(v, path ? `${path}.${k}` : k, out);
  } else {
    out.set(path, value);
  }
  return out;
}

/** `**.x` matches x at any depth, `[*]` any index. */
function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .split(/(\*\*\.|\[\*\])/)
    .map((part) => {
      if (part === '**.') return '(?:.*\\.)?';
      if (part === '[*]') return '\\[\\d+\\]';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${escaped}$`);
}

function placeholderPattern(text: string, vars: Record<string, string>): RegExp {
  const source = text
    .split(/(\$\{[A-Za-z0-9]+\})/)
    .map((part) => {
      const m = /^\$\{([A-Za-z0-9]+)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const name = m[1] as string;
      if (vars[name] !== undefined) return (vars[name] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (name === 'projectNumber') return '\\d+';
      if (name.endsWith('IPV4')) return IPV4;
      return '[A-Za-z0-9_.-]+';
    })
    .join('');
  return new RegExp(`^${source}$`);
}

/** The differences between what GKE answered and what the simulator answered, one line each. */
function differences(
  expected: unknown,
  actual: unknown,
  opts: {
    vars: Record<string, string>;
    vary: Record<string, string>;
    partial?: boolean;
    ignore?: string[];
    absent?: string[];
  },
): string[] {
  const want = leaves(expected);
  const got = leaves(actual);
  const vary = Object.entries(opts.vary).map(
    ([glob, re]) => [globToRegExp(glob), new RegExp(substitute(re, escaped(opts.vars)))] as const,
  );
  const ignored = (path: string) =>
    (opts.ignore ?? []).some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
  const out: string[] = [];
  for (const [path, value] of want) {
    if (ignored(path)) continue;
    if (!got.has(path)) {
      out.push(`missing ${path} (GKE: ${JSON.stringify(value)})`);
      continue;
    }
    const mine = got.get(path);
    const rule = vary.find(([glob]) => glob.test(path));
    if (rule) {
      if (!rule[1].test(String(mine))) out.push(`form of ${path}: ${JSON.stringify(mine)} !~ ${rule[1]}`);
    } else if (typeof value === 'string' && value.includes('${')) {
      if (typeof mine !== 'string' || !placeholderPattern(value, opts.vars).test(mine))
        out.push(`value of ${path}: ${JSON.stringify(mine)}, GKE: ${JSON.stringify(value)}`);
    } else if (JSON.stringify(mine) !== JSON.stringify(value)) {
      out.push(`value of ${path}: ${JSON.stringify(mine)}, GKE: ${JSON.stringify(value)}`);
    }
  }
  for (const path of opts.absent ?? []) {
    const prefix = [...got.keys()].find(
      (p) => p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`),
    );
    if (prefix !== undefined)
      out.push(`present ${path}, GKE leaves it out: ${JSON.stringify(got.get(prefix))}`);
  }
  if (!opts.partial) {
    for (const [path, value] of got) {
      if (!want.has(path) && !ignored(path)) out.push(`extra ${path}: ${JSON.stringify(value)}`);
    }
  }
  return out;
}

/** A copy of `value` with the array at each dotted path sorted (paths that are not arrays are left). */
function sortedAt(value: unknown, paths: string[]): unknown {
  if (paths.length === 0 || value === null || typeof value !== 'object') return value;
  const copy = structuredClone(value) as Record<string, unknown>;
  for (const path of paths) {
    const keys = path.split('.');
    let parent: Record<string, unknown> | undefined = copy;
    for (const key of keys.slice(0, -1)) {
      const next: unknown = parent?.[key];
      parent = next !== null && typeof next === 'object' ? (next as Record<string, unknown>) : undefined;
    }
    const last = keys[keys.length - 1] as string;
    const list = parent?.[last];
    if (parent && Array.isArray(list)) parent[last] = [...list].sort();
  }
  return copy;
}

function escaped(vars: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(vars).map(([k, v]) => [k, v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')]),
  );
}

function substitute(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z0-9]+)\}/g, (whole, name: string) => vars[name] ?? whole);
}

function substituteDeep(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === 'string') return substitute(value, vars);
  if (Array.isArray(value)) return value.map((v) => substituteDeep(v, vars));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteDeep(v, vars)]));
  return value;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json') && f.split('.').length === 2);

let h: Harness | undefined;
afterEach(() => h?.close());

describe('the comparison itself', () => {
  it('reports a missing path, a wrong value, an extra path and a value of the wrong form', () => {
    const diff = differences(
      { a: { b: 1, c: `x-\${projectNumber}` }, etag: 'e', list: [] },
      { a: { b: 2, c: 'x-12a' }, etag: '', d: true, list: [] },
      { vars: {}, vary: { etag: '^.+$' } },
    );
    expect(diff).toEqual([
      'value of a.b: 2, GKE: 1',
      `value of a.c: "x-12a", GKE: "x-\${projectNumber}"`,
      'form of etag: "" !~ /^.+$/',
      'extra d: true',
    ]);
    expect(differences({ a: 1 }, {}, { vars: {}, vary: {} })).toEqual(['missing a (GKE: 1)']);
    expect(differences({ a: 1 }, { a: 1, b: 2 }, { vars: {}, vary: {}, partial: true })).toEqual([]);
    expect(globToRegExp('**.podRange').test('nodePools[3].networkConfig.podRange')).toBe(true);
    expect(sortedAt({ a: { list: ['b', 'a'] }, n: 1 }, ['a.list', 'n', 'x.y'])).toEqual({
      a: { list: ['a', 'b'] },
      n: 1,
    });
  });
});

for (const file of files) {
  const recording = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Recording;
  const base = file.replace(/\.json$/, '');
  describe(`${recording.title} (${recording.source.repo} ${recording.source.path})`, () => {
    it('answers every step as GKE did', async () => {
      h = createHarness();
      if (recording.serverConfig) {
        const res = await h.request('PUT', '/_sim/server-config', {
          body: recording.serverConfig,
          token: null,
        });
        expect(res.status, res.text).toBe(200);
      }
      const vars: Record<string, string> = { ...recording.vars };
      const report: string[] = [];
      for (const step of recording.steps) {
        if (step.advance) await h.advance(step.advance);
        const res = await h.request(step.request.method, substitute(step.request.path, vars), {
          body: step.request.body === undefined ? undefined : substituteDeep(step.request.body, vars),
        });
        let expected = step.response.body;
        if (typeof expected === 'string' && expected.startsWith('@'))
          expected = JSON.parse(readFileSync(join(DIR, `${base}.${expected.slice(1)}.json`), 'utf8'));
        // What this step captures is new here: a value left from an earlier step must not be expected.
        const known = { ...vars };
        for (const name of Object.keys(step.response.capture ?? {})) delete known[name];
        const diff = differences(expected, sortedAt(res.body, recording.sorted ?? []), {
          vars: known,
          vary: { ...recording.vary, ...step.response.vary },
          partial: step.response.partial,
          ignore: step.response.ignore,
          absent: step.response.absent,
        });
        if (res.status !== step.response.status)
          diff.unshift(`status ${res.status}, GKE: ${step.response.status}`);
        for (const line of diff) report.push(`${step.name}: ${line}`);
        // A refused step leaves nothing for the next ones to read: stop at the first wrong status.
        if (res.status !== step.response.status) break;
        for (const [name, path] of Object.entries(step.response.capture ?? {})) {
          const value = leaves(res.body).get(path);
          if (typeof value === 'string') vars[name] = value;
        }
      }
      // The gaps file lists one difference a line; lines starting with `#` say why they remain.
      const gapsFile = join(DIR, `${base}.gaps.txt`);
      const lines = existsSync(gapsFile) ? readFileSync(gapsFile, 'utf8').split('\n') : [];
      if (process.env.REPLAY_WRITE_GAPS === '1') {
        const reasons = lines.filter((line) => line.startsWith('#'));
        const text = [...reasons, ...report].join('\n');
        if (text || lines.length > 0) writeFileSync(gapsFile, text ? `${text}\n` : '');
      }
      const known = (process.env.REPLAY_WRITE_GAPS === '1' ? report : lines).filter(
        (line) => line.trim() !== '' && !line.startsWith('#'),
      );
      expect(report).toEqual(known);
    });
  });
}
