import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What every public package's package.json must say for another team to install it (issue 15), checked
 * without building or packing anything; install.test.ts then proves the packed result from a registry.
 */
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = '@sims/source';

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: { type: string; url: string; directory: string };
  engines?: { node?: string };
  type?: string;
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  files?: string[];
  exports?: Record<string, unknown>;
  publishConfig?: { access?: string; exports?: Record<string, unknown> };
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const packages = ['apps', 'packages'].flatMap((group) =>
  readdirSync(join(REPO, group)).map((name) => {
    const dir = `${group}/${name}`;
    return { dir, json: JSON.parse(readFileSync(join(REPO, dir, 'package.json'), 'utf8')) as Manifest };
  }),
);
const published = packages.filter((p) => p.json.private !== true);
const byName = new Map(packages.map((p) => [p.json.name, p]));

/** `exports` with every `@sims/source` condition taken out: what a user's resolver sees. */
function withoutSource(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== SOURCE)
      .map(([key, v]) => [key, withoutSource(v)]),
  );
}

/** Every string target under an exports entry, with the conditions that lead to it. */
function targets(value: unknown, path: string[] = []): { conditions: string[]; target: string }[] {
  if (typeof value === 'string') return [{ conditions: path, target: value }];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) => targets(v, [...path, key]));
}

it('publishes the four packages teams install, and what they depend on in the workspace', () => {
  const names = published.map((p) => p.json.name);
  expect(names).toEqual(
    expect.arrayContaining([
      '@sims/cluster-sim',
      '@sims/annotation-sim',
      '@sims/sim-client',
      '@sims/testcontainers',
    ]),
  );
  for (const { json } of published) {
    const workspaceDeps = Object.entries({ ...json.dependencies, ...json.peerDependencies })
      .filter(([, spec]) => spec.startsWith('workspace:'))
      .map(([name]) => name);
    for (const dep of workspaceDeps) {
      expect
        .soft(byName.get(dep)?.json.private, `${json.name} depends on ${dep}, which must be public`)
        .not.toBe(true);
    }
  }
});

describe.each(published.map((p) => [p.json.name, p] as const))('%s', (_, { dir, json }) => {
  it('says what it is, under which licence, where it comes from and which Node it needs', () => {
    expect(json.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(json.license).toBe('MIT');
    expect(json.repository).toEqual({ type: 'git', url: published[0]?.json.repository?.url, directory: dir });
    expect(json.engines?.node).toBe('>=20.19');
    expect(json.type).toBe('module');
    expect(existsSync(join(REPO, dir, 'README.md'))).toBe(true);
    expect(json.publishConfig?.access).toBe('public');
  });

  it('packs its build and docs only (no sources, no tests), and copies the licence in', () => {
    expect(json.files).toEqual(expect.arrayContaining(['dist', 'README.md', 'CHANGELOG.md']));
    for (const entry of json.files ?? []) expect(entry).not.toMatch(/^(src|test)\b|\.ts$/);
    expect(json.scripts?.build).toBe('tsup');
    expect(json.scripts?.prepack).toContain("copyFileSync('../../LICENSE', 'LICENSE')");
    // The simulators ship the provider-state vocabulary their `verify` sets up.
    if (json.bin) {
      expect(json.files).toContain('STATES.md');
      expect(json.scripts?.prepack).toContain("copyFileSync('../../contracts/STATES.md', 'STATES.md')");
    }
  });

  it('resolves to its sources inside the workspace and to dist/lib for users, ESM and CommonJS with types', () => {
    const exportsMap = json.exports ?? {};
    for (const [subpath, entry] of Object.entries(exportsMap)) {
      if (subpath === './package.json' || subpath === './cli') continue;
      const all = targets(entry);
      const source = all.find((t) => t.conditions[0] === SOURCE);
      expect.soft(source, `${subpath}: ${SOURCE} first`).toBeDefined();
      expect.soft(existsSync(join(REPO, dir, source?.target ?? 'missing')), `${subpath} source`).toBe(true);
      const users = all.filter((t) => t.conditions[0] !== SOURCE);
      expect.soft(users.length, subpath).toBeGreaterThan(0);
      for (const t of users)
        expect.soft(t.target, `${subpath} ${t.conditions.join('>')}`).toMatch(/^\.\/dist\/lib\//);
      expect
        .soft(
          users.some((t) => t.conditions.includes('types') || t.conditions.includes('import')),
          subpath,
        )
        .toBe(true);
      // The vitest entry is ESM only (vitest is); every other entry can be require()d.
      if (subpath !== './vitest') {
        expect
          .soft(targets(entry).find((t) => t.conditions.join('>') === 'require>default')?.target)
          .toMatch(/\.cjs$/);
        expect
          .soft(targets(entry).find((t) => t.conditions.join('>') === 'require>types')?.target)
          .toMatch(/\.d\.cts$/);
        expect
          .soft(targets(entry).find((t) => t.conditions.join('>') === 'import>types')?.target)
          .toMatch(/\.d\.ts$/);
      }
    }
    expect(json.main).toBe('./dist/lib/index.cjs');
    expect(json.types).toBe('./dist/lib/index.d.ts');
  });

  it('publishes the same exports without the workspace-only source condition', () => {
    expect(json.publishConfig?.exports).toEqual(withoutSource(json.exports));
    expect(JSON.stringify(json.publishConfig)).not.toContain(SOURCE);
  });
});

describe.each(['cluster-sim', 'annotation-sim'])('@sims/%s', (app) => {
  const json = byName.get(`@sims/${app}`)?.json as Manifest;

  it('has one binary, the CLI bundle, also exported for spawning from tests', () => {
    expect(json.bin).toEqual({ [app]: './dist/main.js' });
    expect(json.exports?.['./cli']).toBe('./dist/main.js');
  });

  it('takes pact as an optional peer dependency, for `verify` only', () => {
    expect(json.peerDependencies?.['@pact-foundation/pact']).toBe('^16.5.0');
    expect(json.peerDependenciesMeta?.['@pact-foundation/pact']).toEqual({ optional: true });
    expect(json.dependencies?.['@pact-foundation/pact']).toBeUndefined();
  });
});

it('versions every public package together with changesets, and nothing private', () => {
  const config = JSON.parse(readFileSync(join(REPO, '.changeset/config.json'), 'utf8')) as {
    fixed: string[][];
    privatePackages: { version: boolean; tag: boolean };
  };
  expect([...(config.fixed[0] ?? [])].sort()).toEqual(published.map((p) => p.json.name).sort());
  expect(config.privatePackages).toEqual({ version: false, tag: false });
  expect(new Set(published.map((p) => p.json.version)).size).toBe(1);
});
