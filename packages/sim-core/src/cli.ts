import { readFileSync } from 'node:fs';
import { openControlPlaneWarning } from './cli-bind-warning';
import { type CliCommand, type CliProcess, CliUsageError } from './cli-commands';
import { commonHelp, topLevelHelp } from './cli-help';
import { type CommonCliOptions, parseCommonArgs } from './cli-options';
import { SimInputError } from './duration';
import type { SimKernel } from './http/kernel';
import type { RunningServer } from './http/serve';
import { formatRequestLog } from './journal';
import { JsonStreamError, readJsonFile } from './json-stream-read';
import type { BudgetKind } from './memory-budget';
import { writeFileAtomic, writeJsonFileAtomic } from './state-file';
import { DEFAULT_NAMESPACE } from './world';
import { exportWorldSnapshot, importWorldSnapshot, snapshotJsonDepth } from './world-snapshot';

/** Reads a file for the CLI, turning a missing file into a usage error rather than a stack trace. */
export function readCliFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliUsageError(
      `cannot read ${what} "${path}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** What a simulator's `start` hands back to the CLI runner. */
export interface StartedForCli<S = unknown> extends RunningServer {
  /**
   * The simulator's app. When given, the runner loads `--scenario` files into the default namespace
   * through the control plane (in-process, admin token included); without `kernel`, the
   * `--state-file` snapshot goes through it too (and its 32 MiB body limit).
   */
  app?: { request: (path: string, init?: RequestInit) => Response | Promise<Response> };
  /**
   * The simulator's kernel. When given, the runner loads the `--state-file` snapshot into the default
   * namespace's world, and saves it from there on SIGTERM/SIGINT, directly and streamed both ways: a
   * state file is not an HTTP body, and a world of any size is saved and loaded again.
   */
  kernel?: Pick<SimKernel<S>, 'def' | 'namespaces'>;
  /** Runs before the server closes on SIGTERM/SIGINT. */
  beforeExit?: () => void | Promise<void>;
  /** Where gRPC clients connect (`host:port`, plaintext), when the simulator serves gRPC: the ready line names it. */
  grpcEndpoint?: string;
}

/** Calls a control route in-process; a non-2xx answer becomes a usage error with the control message. */
async function control<S>(
  started: StartedForCli<S>,
  options: CommonCliOptions,
  method: string,
  path: string,
  body?: string,
): Promise<string> {
  const app = started.app as NonNullable<StartedForCli['app']>;
  const headers: Record<string, string> = options.adminToken
    ? { 'x-sim-admin-token': options.adminToken }
    : {};
  const res = await app.request(path, { method, headers, body });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
    } catch {}
    throw new CliUsageError(message);
  }
  return text;
}

/**
 * Loads `--scenario` files (in order) and then the `--state-file` snapshot, which, being a whole
 * world, replaces what the scenarios set up: a restarted simulator continues where it stopped.
 */
async function prepareWorld<S>(started: StartedForCli<S>, options: CommonCliOptions): Promise<void> {
  if (started.app) {
    for (const file of options.scenarios) {
      const text = readCliFile(file, 'scenario');
      await control(started, options, 'POST', `/_sim/scenarios?source=${encodeURIComponent(file)}`, text);
    }
  }
  const file = options.stateFile;
  if (!file) return;
  if (started.kernel) return loadStateFile(started.kernel, file);
  if (!started.app) return;
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    // No snapshot yet: it is written on exit.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new CliUsageError(`cannot read state file "${file}": ${(err as Error).message}`);
  }
  if (text !== undefined) {
    try {
      await control(started, options, 'PUT', '/_sim/state', text);
    } catch (err) {
      throw new CliUsageError(`state file "${file}": ${(err as Error).message}`);
    }
  }
}

/**
 * Reads `--state-file` (streamed: any size, nested as deep as the simulator's snapshots) into the
 * default namespace's world. A missing file is a first start (it is written on exit); a file that is
 * not JSON, nests deeper than any world of the simulator, or is not a snapshot, is a usage error naming
 * the file and where in it.
 */
function loadStateFile<S>(kernel: NonNullable<StartedForCli<S>['kernel']>, file: string): void {
  let snapshot: unknown;
  try {
    snapshot = readJsonFile(file, { maxDepth: snapshotJsonDepth(kernel.def) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    if (err instanceof JsonStreamError) throw new CliUsageError(`state file "${file}": ${err.message}`);
    throw new CliUsageError(`cannot read state file "${file}": ${(err as Error).message}`);
  }
  try {
    importWorldSnapshot(kernel.def, kernel.namespaces.get(DEFAULT_NAMESPACE), snapshot);
  } catch (err) {
    // Whatever the import refuses, the file is what is wrong (the control plane answered 4xx or 500).
    throw new CliUsageError(`state file "${file}": ${(err as Error).message}`);
  }
}

/** Saves the default namespace's world to `--state-file`, atomically and streamed. */
async function saveStateFile<S>(
  started: StartedForCli<S>,
  options: CommonCliOptions,
  file: string,
): Promise<void> {
  // Atomic: a kill during the save leaves the previous snapshot whole (docs/decisions/0015).
  if (started.kernel) {
    const { def, namespaces } = started.kernel;
    writeJsonFileAtomic(file, exportWorldSnapshot(def, namespaces.get(DEFAULT_NAMESPACE)));
  } else if (started.app) {
    writeFileAtomic(file, await control(started, options, 'GET', '/_sim/state'));
  }
}

/**
 * Runs a simulator binary: parse flags, start, print one ready line, stop cleanly on SIGTERM/SIGINT.
 * `start` receives the parsed options and returns the running server plus a hook run before exit.
 */
export async function runSimulatorCli<S = unknown>(config: {
  name: string;
  version: string;
  defaultPort: number;
  proc: CliProcess;
  /** The simulator serves a dashboard at `/_sim/ui/`: the ready line names it. */
  dashboard?: boolean;
  /** Subcommands besides `serve` (`verify`, …), each run instead of the simulator when named first. */
  commands?: Record<string, CliCommand>;
  /** The simulator's budget kinds besides the journal's: each has its `--<kind>-max-bytes`. */
  budgetKinds?: readonly BudgetKind[];
  start(options: CommonCliOptions): Promise<StartedForCli<S>>;
}): Promise<RunningServer | undefined> {
  const { proc, name } = config;
  const commands = config.commands ?? {};
  const usageError = (message: string) => {
    proc.stderr(`${name}: ${message}\nTry '${name} --help'.`);
    proc.exit(2);
    return undefined;
  };
  const runCommand = async (command: CliCommand, argv: string[]) => {
    let code: number;
    try {
      code = await command.run(argv, proc);
    } catch (err) {
      proc.stderr(`${name}: ${(err as Error).message}`);
      // By name: a lazily loaded command is a bundle of its own, with its own copy of this class.
      code = err instanceof Error && err.name === 'CliUsageError' ? 2 : 1;
    }
    proc.exit(code);
    return undefined;
  };
  const [first, ...rest] = proc.argv;
  if (first === 'help') {
    const topic = rest[0];
    if (topic === undefined) {
      proc.stdout(topLevelHelp(name, config.defaultPort, commands, config.budgetKinds));
      proc.exit(0);
      return undefined;
    }
    if (topic === 'serve') {
      proc.stdout(commonHelp(name, config.defaultPort, config.budgetKinds));
      proc.exit(0);
      return undefined;
    }
    const command = Object.hasOwn(commands, topic) ? commands[topic] : undefined;
    return command ? runCommand(command, ['--help']) : usageError(`unknown command "${topic}"`);
  }
  const command = first !== undefined && Object.hasOwn(commands, first) ? commands[first] : undefined;
  if (command) return runCommand(command, rest);
  const serveNamed = first === 'serve';
  let parsed: ReturnType<typeof parseCommonArgs>;
  try {
    parsed = parseCommonArgs(serveNamed ? rest : proc.argv, proc.env, config.defaultPort, config.budgetKinds);
    const extra = parsed.positionals[0];
    if (extra !== undefined) {
      const known = ['serve', ...Object.keys(commands), 'help'].join(', ');
      throw new CliUsageError(
        serveNamed || proc.argv[0] !== extra
          ? `unexpected argument "${extra}"`
          : `unknown command "${extra}" (commands: ${known})`,
      );
    }
  } catch (err) {
    return usageError((err as Error).message);
  }
  if (parsed.help) {
    proc.stdout(
      serveNamed
        ? commonHelp(name, config.defaultPort, config.budgetKinds)
        : topLevelHelp(name, config.defaultPort, commands, config.budgetKinds),
    );
    proc.exit(0);
    return undefined;
  }
  if (parsed.version) {
    proc.stdout(`${name} ${config.version}`);
    proc.exit(0);
    return undefined;
  }
  if (parsed.options.log === 'debug')
    parsed.options.requestLog = (entry) => proc.stdout(formatRequestLog(entry));
  /** A start that fails: usage errors (bad scenario, bad state file) exit 2, anything else 1. */
  const fail = async (err: unknown, started?: StartedForCli<S>) => {
    await started?.close();
    const usage = err instanceof CliUsageError || err instanceof SimInputError;
    proc.stderr(`${name}: ${(err as Error).message}`);
    proc.exit(usage ? 2 : 1);
    return undefined;
  };
  let running: StartedForCli<S>;
  try {
    running = await config.start(parsed.options);
  } catch (err) {
    return fail(err);
  }
  try {
    await prepareWorld(running, parsed.options);
  } catch (err) {
    return fail(err, running);
  }
  // The bound address when the server says (a host name resolves to one), else the one asked for.
  const bound = running.server?.address?.();
  const warning = openControlPlaneWarning({
    name: config.name,
    host: bound && typeof bound === 'object' ? bound.address : parsed.options.host,
    port: running.port,
    adminToken: parsed.options.adminToken,
  });
  // Also at --log silent: it is about who can change the simulator, not about what it is doing.
  if (warning) proc.stderr(warning);
  if (parsed.options.log !== 'silent') {
    proc.stdout(
      `${config.name} ${config.version} ready at ${running.url} (${config.dashboard ? `dashboard ${running.url}/_sim/ui/, ` : ''}control plane ${running.url}/_sim, API docs ${running.url}/openapi.json, ${running.grpcEndpoint ? `gRPC ${running.grpcEndpoint}, ` : ''}clock ${parsed.options.clock})`,
    );
  }
  const stop = async () => {
    // A save that fails is a failed run: exit 1 with one line naming the file, so a CI job that keeps
    // its world between steps never goes on believing it was saved.
    let code = 0;
    const { stateFile } = parsed.options;
    try {
      await running.beforeExit?.();
      if (stateFile) await saveStateFile(running, parsed.options, stateFile);
    } catch (err) {
      code = 1;
      proc.stderr(
        `${config.name}: could not save the state${stateFile ? ` to "${stateFile}"` : ''}: ${(err as Error).message}`,
      );
    } finally {
      await running.close();
      proc.exit(code);
    }
  };
  proc.onSignal('SIGTERM', () => void stop());
  proc.onSignal('SIGINT', () => void stop());
  return running;
}
