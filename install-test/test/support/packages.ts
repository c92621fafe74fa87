import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  main?: string;
  types?: string;
  typings?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface WorkspacePackage {
  name: string;
  version: string;
  /** Absolute folder. */
  dir: string;
  /** Folder relative to the repository's root, e.g. `apps/cluster-sim`. */
  rel: string;
  json: PackageJson;
}

/**
 * The packages this repository publishes: every `apps/*` and `packages/*` package whose package.json
 * does not say `"private": true`.
 */
export function publicPackages(root: string): WorkspacePackage[] {
  const found: WorkspacePackage[] = [];
  for (const group of ['apps', 'packages']) {
    for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(root, group, entry.name);
      let json: PackageJson;
      try {
        json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
      } catch {
        continue;
      }
      if (json.private === true) continue;
      found.push({ name: json.name, version: json.version, dir, rel: relative(root, dir), json });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** Every file path a package.json points at: main, types, bin and every leaf of exports. */
function entryPoints(json: PackageJson): string[] {
  const out = new Set<string>();
  const add = (p: unknown) => {
    if (typeof p === 'string' && !p.includes('*')) out.add(p.replace(/^\.\//, ''));
  };
  add(json.main);
  add(json.types);
  add(json.typings);
  if (typeof json.bin === 'string') add(json.bin);
  else for (const p of Object.values(json.bin ?? {})) add(p);
  const walk = (node: unknown) => {
    if (typeof node === 'string') add(node);
    else if (node && typeof node === 'object') for (const v of Object.values(node)) walk(v);
  };
  walk(json.exports);
  return [...out].sort();
}

/** The problems of a packed tarball, given its file list (paths without `package/`) and its package.json. */
export function tarballProblems(
  files: string[],
  json: PackageJson,
  published: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  const has = (p: string) => files.includes(p);
  if (!has('package.json')) problems.push('no package.json');
  if (!has('README.md')) problems.push('no README.md');
  if (!has('LICENSE')) problems.push('no LICENSE (the prepack script copies the root one)');
  // The simulators' verify sets up the provider states this page lists.
  if (json.bin && !has('STATES.md'))
    problems.push('no STATES.md (the prepack script copies contracts/STATES.md)');
  if (!files.some((f) => f.startsWith('dist/') && /\.(c|m)?js$/.test(f))) problems.push('no dist/**/*.js');
  if (!files.some((f) => /\.d\.(c|m)?ts$/.test(f))) problems.push('no .d.ts declarations');
  const sources = files.filter((f) => /\.(c|m)?tsx?$/.test(f) && !/\.d\.(c|m)?ts$/.test(f));
  if (sources.length > 0) problems.push(`TypeScript sources: ${sources.join(', ')}`);
  const srcDir = files.filter((f) => f.startsWith('src/'));
  if (srcDir.length > 0) problems.push(`src/ is packed: ${srcDir.slice(0, 5).join(', ')}`);
  const tests = files.filter(
    (f) => /(^|\/)(test|tests|__tests__)\//.test(f) || /\.(test|spec)\.[cm]?[jt]sx?$/.test(f),
  );
  if (tests.length > 0) problems.push(`tests are packed: ${tests.slice(0, 5).join(', ')}`);
  for (const entry of entryPoints(json)) {
    if (!has(entry)) problems.push(`package.json points at ${entry}, which is not in the tarball`);
  }
  const text = JSON.stringify(json);
  if (text.includes('workspace:')) problems.push('a workspace: specifier is left in package.json');
  if (JSON.stringify([json.exports, json.main, json.types, json.bin]).includes('@sims/source'))
    problems.push('the workspace-only export condition @sims/source is published');
  if (json.private === true) problems.push('"private": true');
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
    for (const dep of Object.keys(json[field] ?? {})) {
      if (dep.startsWith('@sims/') && !published.has(dep)) {
        problems.push(`${field} has ${dep}, which is private (not published): npm install would fail`);
      }
    }
  }
  return problems;
}
