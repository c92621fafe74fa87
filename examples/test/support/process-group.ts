import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** A command started in a process group of its own, with its output collected as it comes. */
export interface GroupProcess {
  child: ChildProcess;
  pgid: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code and signal once the command itself has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnGroup(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const started: GroupProcess = {
    child,
    pgid: child.pid,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
  };
  return started;
}

/**
 * Waits until the command's stdout matches `pattern`; fails early when the command exits first, and after
 * `timeoutMs` otherwise, with the output so far in the message.
 */
export function waitForStdout(p: GroupProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      p.child.stdout?.off('data', check);
      p.child.off('exit', exit);
    };
    const fail = (why: string) => {
      done();
      reject(new Error(`${why}\n--- stdout ---\n${p.stdout()}\n--- stderr ---\n${p.stderr()}`));
    };
    const check = () => {
      const match = pattern.exec(p.stdout());
      if (match) {
        done();
        resolve(match);
      }
    };
    const exit = (code: number | null, signal: string | null) =>
      fail(`exited (code ${code}, signal ${signal}) before printing ${pattern}`);
    const timer = setTimeout(() => fail(`no ${pattern} on stdout within ${timeoutMs} ms`), timeoutMs);
    p.child.stdout?.on('data', check);
    p.child.once('exit', exit);
    check();
  });
}

/** The living (not zombie) processes of a process group: from /proc on Linux, else whether any answers. */
export function groupMembers(pgid: number): number[] {
  if (!existsSync('/proc/self/stat')) {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/** Sends `signal` to the whole group; false when no process of it is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
