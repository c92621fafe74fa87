#!/usr/bin/env node
// `pnpm --filter @sims/dashboard build-ui`: regenerates apps/*/src/ui/dashboard.generated.ts from src/.
// `--check`: exits 1 when a generated file is missing or stale (nothing written).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { buildAssets, packageRoot } from './assets.mjs';

const check = process.argv.includes('--check');
let stale = 0;
for (const [path, text] of await buildAssets()) {
  const current = await readFile(path, 'utf8').catch(() => undefined);
  const name = relative(packageRoot, path);
  if (current === text) {
    console.log(`build-ui: ${name} is current (${(text.length / 1024).toFixed(1)} KiB)`);
    continue;
  }
  if (check) {
    console.error(`build-ui: ${name} is stale; run pnpm --filter @sims/dashboard build-ui`);
    stale++;
    continue;
  }
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  console.log(`build-ui: wrote ${name} (${(text.length / 1024).toFixed(1)} KiB)`);
}
process.exit(stale > 0 ? 1 : 0);
