#!/usr/bin/env node
// Type-checks the whole workspace in as few TypeScript programs as its packages allow.
//
// Each package's own `pnpm typecheck` (tsc -p tsconfig.json) loads the sources of every workspace package
// it imports (the `@sims/source` condition resolves them to src/), so checking the packages one by one
// checks sim-core and the schema packages once per importer: about 285 s of CPU for the tree, against
// about 32 s for one program over the same files (docs/decisions/0022). Here every package whose
// tsconfig.json only extends the base and lists folders is checked in one program; a package with
// compiler options of its own (the dashboard's DOM lib and JSX) gets a program of its own.
//
//   node scripts/typecheck.mjs            # what `pnpm typecheck` runs
//   node scripts/typecheck.mjs --list     # the programs and their folders, nothing checked
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');

/** The workspace's package folders, from pnpm-workspace.yaml's `packages:` globs (`dir` or `dir/*`). */
function workspaceFolders() {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = yaml.split(/^packages:\s*$/m)[1]?.split(/^\S/m)[0] ?? '';
  const globs = [...block.matchAll(/^\s*-\s*['"]?([^'"\s]+)['"]?\s*$/gm)].map((m) => m[1]);
  return globs.flatMap((g) => {
    if (!g.endsWith('/*')) return [g];
    const parent = g.slice(0, -2);
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `${parent}/${d.name}`);
  });
}

/** tsconfig.json is JSON here (no comments): a package whose file is not gets a program of its own. */
function readConfig(folder) {
  const file = join(root, folder, 'tsconfig.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { own: true };
  }
}

const shared = [];
const own = [];
for (const folder of workspaceFolders()) {
  const config = readConfig(folder);
  if (!config) continue;
  const plain =
    !config.own &&
    typeof config.extends === 'string' &&
    relative(root, join(root, folder, config.extends)) === 'tsconfig.base.json' &&
    config.compilerOptions === undefined &&
    config.files === undefined &&
    config.exclude === undefined &&
    Array.isArray(config.include);
  if (plain) shared.push(...config.include.map((p) => `${folder}/${p}`));
  else own.push(`${folder}/tsconfig.json`);
}

if (process.argv.includes('--list')) {
  console.log(`one program: ${shared.join(' ')}`);
  for (const p of own) console.log(`own program: ${p}`);
  process.exit(0);
}

// Written beside the base config so that its relative paths read as the packages' do; removed after.
const combined = join(root, `tsconfig.workspace-${process.pid}.json`);
// noEmit again here: a check must never write .js beside the sources, whatever the base config says.
writeFileSync(
  combined,
  JSON.stringify(
    { extends: './tsconfig.base.json', compilerOptions: { noEmit: true }, include: shared },
    null,
    2,
  ),
);
let failed = false;
try {
  for (const project of [combined, ...own.map((p) => join(root, p))]) {
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
    const name = project === combined ? `${shared.length} folders in one program` : relative(root, project);
    console.log(
      `typecheck: ${name}: ${r.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    if (r.status !== 0) failed = true;
  }
} finally {
  rmSync(combined, { force: true });
}
process.exit(failed ? 1 : 0);
