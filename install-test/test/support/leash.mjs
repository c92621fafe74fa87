// Runs one command on a leash: `node leash.mjs <command> [args...]`, spawned detached (so this process leads
// its own process group) with stdin a pipe from the test. The command runs in that group; SIGTERM and
// SIGINT sent to this process are passed on to it; its exit code (or 128 + signal) is this process's.
// When the test process goes away for any reason (a crash, a kill, a CI timeout), the pipe closes and the
// whole group is killed, so nothing the test started outlives it.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node leash.mjs <command> [args...]');
  process.exit(2);
}

const killGroup = () => {
  try {
    process.kill(-process.pid, 'SIGKILL');
  } catch {
    process.exit(137);
  }
};
process.stdin.on('end', killGroup);
process.stdin.on('error', killGroup);
process.stdin.resume();

const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
child.on('error', (err) => {
  console.error(`leash: cannot run ${command}: ${err.message}`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
});
