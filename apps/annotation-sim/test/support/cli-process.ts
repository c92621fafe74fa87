import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const APP = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** An `annotation-sim` process started from the sources, as a user runs the binary. */
export interface CliProcess {
  url: string;
  child: ChildProcess;
  /** What it printed on stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, then the signal it died of. */
  kill(): Promise<NodeJS.Signals | null>;
}

/**
 * Starts the CLI (`node --import tsx src/main.ts`: a single process, so a signal reaches the simulator
 * itself) and resolves once it prints its ready line; rejects with the exit code and output if it exits
 * first. Every process started is killed by {@link killAll}.
 */
export function startCli(args: string[], started: Set<ChildProcess>): Promise<CliProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: APP,
    env: { ...process.env, SIM_PORT: undefined, SIM_LOG: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /ready at (http:\/\/\S+)/.exec(out)?.[1];
      if (url)
        resolve({
          url,
          child,
          stderr: () => err,
          async stop() {
            child.kill('SIGTERM');
            return (await exit)[0];
          },
          async kill() {
            child.kill('SIGKILL');
            return (await exit)[1];
          },
        });
    });
    void exit.then(([code]) => reject(new Error(`exited with ${code}: ${out}${err}`)));
  });
}

/** Kills whatever a test left running. */
export function killAll(started: Set<ChildProcess>): void {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  started.clear();
}
