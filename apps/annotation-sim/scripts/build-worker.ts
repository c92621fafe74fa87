// `pnpm --filter @sims/annotation-sim build-worker`: regenerates src/delivery/thread/worker.generated.ts
// from src/delivery/thread/. `--check`: exits 1 when it is missing or stale (nothing written).
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { buildWorkerModule, packageRoot, WORKER_MODULE } from './worker-bundle';

const check = process.argv.includes('--check');
const text = await buildWorkerModule();
const current = await readFile(WORKER_MODULE, 'utf8').catch(() => undefined);
const name = relative(packageRoot, WORKER_MODULE);
const size = `${(text.length / 1024).toFixed(1)} KiB`;
if (current === text) console.log(`build-worker: ${name} is current (${size})`);
else if (check) {
  console.error(`build-worker: ${name} is stale; run pnpm --filter @sims/annotation-sim build-worker`);
  process.exitCode = 1;
} else {
  await writeFile(WORKER_MODULE, text);
  console.log(`build-worker: wrote ${name} (${size})`);
}
