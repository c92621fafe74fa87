import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Every child this bench started and that has not exited yet: all are killed on exit, crash or signal. */
const children = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
}

/** Tracks a child started elsewhere (fork) so that it is killed with the rest. */
export function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

let installed = false;
/** Installs the clean-up: every started child (WireMock's JVM, Prism, simulators, autocannon) dies with us. */
export function installCleanup(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      killAll();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

/** Spawns a tracked child (stdout/stderr piped; stderr kept for error messages). */
export function start(
  cmd: string,
  args: string[],
  options: SpawnOptions = {},
): ChildProcess & { stderrText: () => string } {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options }) as ChildProcess & {
    stderrText: () => string;
  };
  children.add(child);
  child.once('exit', () => children.delete(child));
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (err.length < 20_000) err += d.toString();
  });
  child.stdout?.resume();
  child.stderrText = () => err;
  return child;
}

/** The first stdout line matching `re` (the child's ready line), or an error after `timeoutMs`. */
export async function lineMatching(
  child: ChildProcess,
  re: RegExp,
  timeoutMs: number,
): Promise<RegExpExecArray> {
  if (!child.stdout) throw new Error('child has no stdout');
  const rl = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      rl.close();
      reject(new Error(`no line matching ${re} within ${timeoutMs} ms`));
    }, timeoutMs);
    rl.on('line', (line) => {
      const m = re.exec(line);
      if (m) {
        clearTimeout(timer);
        rl.close();
        child.stdout?.resume();
        resolve(m);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before a line matching ${re}`));
    });
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
export async function stop(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Resident set size of a process in MB (from /proc; Linux only). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Runs a command to completion and returns its stdout (throws on a non-zero exit or after `timeoutMs`). */
export async function run(
  cmd: string,
  args: string[],
  timeoutMs: number,
  options: SpawnOptions = {},
): Promise<string> {
  const child = start(cmd, args, options);
  let out = '';
  child.stdout?.removeAllListeners('data');
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  clearTimeout(timer);
  if (code !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${code ?? signal}: ${child.stderrText().slice(-2000)}`);
  }
  return out;
}
