import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** A simulator's CLI process started from its sources, as a user runs the binary. */
export interface CliProcess {
  url: string;
  child: ChildProcess;
  /** What it printed on stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, then the signal it died of. */
  kill(): Promise<NodeJS.Signals | null>;
  /** Resolves once stderr holds `text`; rejects if the process exits first. */
  printed(text: string): Promise<void>;
}

export interface CliOptions {
  /**
   * The state file's save stops just before its rename and waits to be killed (a `--import` of
   * hold-save-before-rename.ts, never imported here: it patches node:fs); `printed(SAVE_HELD)` resolves
   * then.
   */
  holdSaveBeforeRename?: boolean;
  /**
   * A bundled CLI (`main.js` of the app's `pnpm build`) to run instead of the sources: what a user's
   * `npx <app>` and the Docker image run (annotation-sim's test/support/cli-harness.ts bundles one).
   */
  main?: string;
}

/** What a process started with `holdSaveBeforeRename` prints on stderr when its save is held. */
export const SAVE_HELD = 'test hook: the save is held before its rename';

const HOLD = fileURLToPath(new URL('./hold-save-before-rename.ts', import.meta.url));

/**
 * Starts `apps/<app>`'s CLI (`node --import tsx src/main.ts`, or `node <options.main>`: a single process,
 * so a signal reaches the simulator itself) and resolves once it prints its ready line; rejects with the
 * exit code and output if it exits first. Every process started is killed by {@link killAll}.
 *
 * @example const cli = await startCli('cluster-sim', ['--port', '0'], started);
 */
export function startCli(
  app: 'cluster-sim' | 'annotation-sim',
  args: string[],
  started: Set<ChildProcess>,
  options: CliOptions = {},
): Promise<CliProcess> {
  const preload = options.holdSaveBeforeRename ? ['--import', HOLD] : [];
  // The hook is TypeScript: tsx loads it even before a bundle.
  const tsx = options.main && !options.holdSaveBeforeRename ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...tsx, ...preload, options.main ?? 'src/main.ts', ...args], {
    cwd: fileURLToPath(new URL(`../../../apps/${app}/`, import.meta.url)),
    env: { ...process.env, SIM_PORT: undefined, SIM_LOG: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let out = '';
  let err = '';
  const waiting = new Set<() => void>();
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    for (const check of waiting) check();
  });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const exited = exit.then(([code, signal]) => `exited with ${code ?? signal}: ${out}${err}`);
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!err.includes(text)) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
      void exited.then((why) => reject(new Error(why)));
    });
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
          printed,
        });
    });
    void exited.then((why) => reject(new Error(why)));
  });
}

/** Kills whatever a test left running. */
export function killAll(started: Set<ChildProcess>): void {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  started.clear();
}
