import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const LEASH = fileURLToPath(new URL('./leash.mjs', import.meta.url));

/** Every process group started here and not yet known to be gone: `killAll` ends them. */
const groups = new Set<number>();

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The whole command is killed (its process group, SIGKILL) after this many ms. */
  timeoutMs: number;
}

export interface RunResult {
  command: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/** A command that runs in the background: its output so far, its exit, and signals. */
export interface Started {
  command: string;
  pid: number;
  /** Resolves with the first output line that matches, or rejects on exit or after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<{ line: string; match: RegExpExecArray }>;
  /** Sends a signal to the command (the leash passes SIGTERM and SIGINT on). */
  signal(signal: NodeJS.Signals): void;
  /** Resolves when the leash exits; never rejects. */
  exited: Promise<RunResult>;
  /** Waits for the exit at most `timeoutMs`, then kills the whole group. */
  waitForExit(timeoutMs: number): Promise<RunResult>;
  /** stdout and stderr so far. */
  output(): string;
  /** SIGKILL to the whole process group (idempotent). */
  kill(): void;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
  groups.delete(pid);
}

/** Kills every process group started here that may still run (test teardown, and process exit). */
export function killAll(): void {
  for (const pid of [...groups]) killGroup(pid);
}
process.once('exit', killAll);

/**
 * Starts `command args` on a leash (test/support/leash.mjs): in a process group of its own, so that a
 * timeout or the teardown kills it with every process it started, and tied to this process's lifetime.
 */
export function start(command: string, args: string[], options: Omit<RunOptions, 'timeoutMs'>): Started {
  const shown = [command, ...args].join(' ');
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, [LEASH, command, ...args], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${shown}`);
  groups.add(pid);
  let stdout = '';
  let stderr = '';
  let all = '';
  const listeners = new Set<() => void>();
  const onData = (which: 'out' | 'err') => (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (which === 'out') stdout += text;
    else stderr += text;
    all += text;
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData('out'));
  child.stderr?.on('data', onData('err'));
  child.stdin?.on('error', () => undefined);
  let timedOut = false;
  let done = false;
  const exited = new Promise<RunResult>((resolve) => {
    // Once the leash is gone, stragglers (a grandchild still holding the pipes) go with the group; 'close'
    // then comes with all the output.
    child.on('exit', () => killGroup(pid));
    child.on('close', (code, signal) => {
      killGroup(pid);
      done = true;
      for (const listener of listeners) listener();
      resolve({ command: shown, code, signal, timedOut, stdout, stderr, ms: performance.now() - t0 });
    });
  });

  const kill = () => {
    if (!done) killGroup(pid);
  };

  return {
    command: shown,
    pid,
    exited,
    output: () => all,
    signal(signal) {
      if (!done) child.kill(signal);
    },
    kill,
    waitForLine(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (const line of all.split('\n')) {
            const match = pattern.exec(line);
            if (match) {
              cleanup();
              resolve({ line, match });
              return;
            }
          }
          if (done) {
            cleanup();
            reject(new Error(`${shown} exited before printing a line matching ${pattern}:\n${all}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${shown}: no line matching ${pattern} within ${timeoutMs} ms:\n${all}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async waitForExit(timeoutMs) {
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Runs a command to its end (or kills its whole group after `timeoutMs`). */
export function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  return start(command, args, options).waitForExit(options.timeoutMs);
}

/**
 * `fn` over `items`, at most `limit` at a time; the results in the items' order. After a rejection no
 * new item starts; the running ones end (each is bounded by its own timeout), then the first rejection is
 * thrown.
 */
export async function atMost<T, R>(
  limit: number,
  items: readonly T[],
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const ends = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, lane));
  const rejected = ends.find((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}

/** The result as text for an assertion message: the command, how it ended, and its output. */
export function describeRun(r: RunResult): string {
  const how = r.timedOut
    ? `TIMED OUT after ${Math.round(r.ms)} ms`
    : `exit ${r.code ?? `signal ${r.signal}`} after ${Math.round(r.ms)} ms`;
  const indent = (s: string) => s.replace(/\n$/, '').replace(/^/gm, '  | ');
  return [
    `$ ${r.command}`,
    `  ${how}`,
    r.stdout && `  stdout:\n${indent(r.stdout)}`,
    r.stderr && `  stderr:\n${indent(r.stderr)}`,
  ]
    .filter(Boolean)
    .join('\n');
}

/** Throws with the command's output unless it exited with `code`. */
export function expectExit(r: RunResult, code: number, what = 'the command'): RunResult {
  if (r.timedOut || r.code !== code) {
    throw new Error(`${what}: expected exit ${code}\n${describeRun(r)}`);
  }
  return r;
}

/**
 * The processes of a process group whose command line matches `pattern` (Linux /proc): e.g. the simulator
 * that `npx` started, to signal it rather than npx (npm does not pass SIGTERM on to the command it runs).
 */
export function groupMembers(pgid: number, pattern: RegExp): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (pattern.test(cmdline)) found.push(Number(entry));
    } catch {
      // gone in between
    }
  }
  return found;
}
