/**
 * Loaded into a simulator's CLI with `--import`, by tests only (`startCli(…, { holdSaveBeforeRename })`):
 * the state file's atomic save (sim-core's writeFileAtomic: a temporary `.<name>.<pid>.<n>.tmp` beside
 * the file, written whole and fsynced, then renamed over it) stops just before the rename, says so on
 * stderr and waits to be killed. A test then kills the process in the middle of a save at the same point
 * every time, however fast the save is (watching for the temporary file raced the rename).
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { SAVE_HELD } from './cli-process';

const TEMPORARY = /(^|[\\/])\.[^\\/]+\.\d+\.\d+\.tmp$/;
const mutableFs = fs as { renameSync: typeof fs.renameSync };
const rename = fs.renameSync;
mutableFs.renameSync = (from, to) => {
  if (TEMPORARY.test(String(from))) {
    fs.writeSync(2, `${SAVE_HELD}: ${String(from)}\n`);
    // Sleeps the thread; a SIGKILL still ends it. A test that never kills it sees it exit 3 after a minute.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
    process.exit(3);
  }
  rename(from, to);
};
// `import * as fs from 'node:fs'` (sim-core's state-file.ts) reads the patched function from now on.
syncBuiltinESMExports();
