#!/usr/bin/env node
// The README's two commands (`npm start`, `npm test`) land here, so they work on a machine that has
// only Node and npm: install the pinned pnpm and the dependencies when missing, then run the task.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pnpmVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
const env = {
  ...process.env,
  PACT_DO_NOT_TRACK: 'true',
  TURBO_TELEMETRY_DISABLED: '1',
  METADATA_SERVER_DETECTION: 'none',
};

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, ...options });
  if (r.error) throw r.error;
  return r.status ?? 1;
}
function pnpmWorks() {
  const r = spawnSync('pnpm', ['--version'], { encoding: 'utf8', env });
  return r.status === 0 && r.stdout.trim() === pnpmVersion;
}

if (!pnpmWorks()) {
  console.log(`quickstart: installing pnpm ${pnpmVersion} (npm i -g pnpm@${pnpmVersion})`);
  if (run('npm', ['i', '-g', `pnpm@${pnpmVersion}`]) !== 0) process.exit(1);
}
if (!existsSync(join(root, 'node_modules', '.modules.yaml'))) {
  console.log('quickstart: installing dependencies (pnpm install --frozen-lockfile)');
  if (run('pnpm', ['install', '--frozen-lockfile']) !== 0) process.exit(1);
}

const task = process.argv[2];
const tasks = {
  // Both simulators on their default ports, in memory, with demo data.
  // --conditions: sibling packages resolve to their TypeScript sources, so nothing needs a build first.
  start: ['exec', 'tsx', '--conditions=@sims/source', 'scripts/start.ts', ...process.argv.slice(3)],
  // The whole suite: unit, contract, container and browser (e2e) tests of every package, and the install test.
  test: [
    'exec',
    'turbo',
    'run',
    'test',
    'test:contract',
    'test:container',
    'test:e2e',
    'test:install',
    '--concurrency=1',
    ...process.argv.slice(3),
  ],
};
if (!tasks[task]) {
  console.error(`quickstart: unknown task "${task}" (expected: ${Object.keys(tasks).join(', ')})`);
  process.exit(2);
}
process.exit(run('pnpm', tasks[task]));
