import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { type CliCommand, type CliProcess, CliUsageError } from './cli-commands';
import type { ClockMode } from './clock';
import { SimInputError } from './duration';
import type { KernelOptions } from './http/kernel';
import type { RunningServer } from './http/serve';
import { formatRequestLog, type JournalEntry } from './journal';
import { writeFileAtomic } from './state-file';

/** Options every simulator binary understands, from flags or `SIM_*` environment variables. */
export interface CommonCliOptions {
  port: number;
  host: string;
  seed?: string;
  clock: ClockMode;
  speed: number;
  scenarios: string[];
  stateFile?: string;
  adminToken?: string;
  /** Bytes the journals of all namespaces may hold together (kernel option `journalMaxBytes`). */
  journalMaxBytes?: number;
  /** Most namespaces the simulator keeps (kernel option `maxNamespaces`). */
  maxNamespaces?: number;
  /** Largest emulated-API request body read (kernel option `maxBodyBytes`; default the API's own limit). */
  maxBodyBytes?: number;
  log: 'silent' | 'info' | 'debug';
  /** Set at `--log debug`: pass it to the simulator (kernel option `requestLog`) to print each request. */
  requestLog?: (entry: JournalEntry) => void;
}

/** The options of `<name> serve` (the default command). */
export function commonHelp(name: string, defaultPort: number): string {
  return `Usage: ${name} [serve] [options]

Runs the simulator until SIGTERM or SIGINT; prints one ready line with its URL.

Options (environment variable in brackets):
  --port <n>            port to listen on; 0 picks one (default ${defaultPort}) [SIM_PORT]
  --host <addr>         address to bind (default 127.0.0.1) [SIM_HOST]
  --seed <s>            seed for ids and fault decisions (default 0) [SIM_SEED]
  --clock real|manual   clock mode (default real) [SIM_CLOCK]
  --speed <x>           speed factor of the real clock (default 1) [SIM_SPEED]
  --scenario <file>     load a scenario file (YAML/JSON) into the default namespace; repeatable
                        [SIM_SCENARIO, comma-separated]
  --state-file <path>   load a world snapshot at start, save it on SIGTERM [SIM_STATE_FILE]
  --admin-token <t>     protect the control plane (/_sim) with this token [SIM_ADMIN_TOKEN]
                        (without one, a --host other than loopback prints a warning)
  --journal-max-bytes <n>
                        bytes the request journals of all namespaces hold together; the oldest
                        entries go first (default 64MiB; KiB, MiB, GiB allowed) [SIM_JOURNAL_MAX_BYTES]
  --max-namespaces <n>  most namespaces kept; one more is refused with a 507 until some are deleted
                        (default 1000) [SIM_MAX_NAMESPACES]
  --max-body-bytes <n>  largest request body read; past it the API's own refusal (default the real
                        API's limit: 10MiB GKE, 100MiB CVAT; KiB, MiB, GiB allowed) [SIM_MAX_BODY_BYTES]
  --log <level>         silent | info | debug (default info) [SIM_LOG]
  --help, --version`;
}

/**
 * The binary's `--help`: its commands, then the options of `serve`, which runs when no command is named.
 *
 * @example topLevelHelp('cluster-sim', 8085, { verify: verifyCommand })
 */
export function topLevelHelp(
  name: string,
  defaultPort: number,
  commands: Record<string, CliCommand> = {},
): string {
  const rows: [string, string][] = [
    ['serve', 'run the simulator (the default when no command is named)'],
    ...Object.entries(commands).map(([command, c]): [string, string] => [command, c.summary]),
    ['help [command]', "a command's options"],
  ];
  const width = Math.max(...rows.map(([c]) => c.length)) + 2;
  const usage = [
    `Usage: ${name} [serve] [options]`,
    ...Object.values(commands).map((c) => `       ${name} ${c.usage}`),
    `       ${name} help [command]`,
  ];
  const serve = commonHelp(name, defaultPort).split('\n').slice(2).join('\n');
  return `${usage.join('\n')}

Commands:
${rows.map(([c, summary]) => `  ${c.padEnd(width)}${summary}`).join('\n')}

${serve}`;
}

/**
 * Parses the common flags; throws CliUsageError for unknown flags or invalid values (exit code 2).
 *
 * @example parseCommonArgs(['--port', '0', '--clock', 'manual'], {}, 8085)
 */
export function parseCommonArgs(
  argv: string[],
  env: Record<string, string | undefined>,
  defaultPort: number,
): { options: CommonCliOptions; help: boolean; version: boolean; positionals: string[] } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        seed: { type: 'string' },
        clock: { type: 'string' },
        speed: { type: 'string' },
        scenario: { type: 'string', multiple: true },
        'state-file': { type: 'string' },
        'admin-token': { type: 'string' },
        'journal-max-bytes': { type: 'string' },
        'max-namespaces': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        log: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    throw new CliUsageError((err as Error).message);
  }
  const v = parsed.values as Record<string, string | string[] | boolean | undefined>;
  const pick = (flag: string, envName: string) => (v[flag] as string | undefined) ?? env[envName];
  const portText = pick('port', 'SIM_PORT') ?? String(defaultPort);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new CliUsageError(`invalid --port "${portText}": expected 0-65535`);
  const clock = pick('clock', 'SIM_CLOCK') ?? 'real';
  if (clock !== 'real' && clock !== 'manual')
    throw new CliUsageError(`invalid --clock "${clock}": expected real or manual`);
  const speedText = pick('speed', 'SIM_SPEED') ?? '1';
  const speed = Number(speedText);
  if (!Number.isFinite(speed) || speed <= 0)
    throw new CliUsageError(`invalid --speed "${speedText}": expected a number > 0`);
  const log = pick('log', 'SIM_LOG') ?? 'info';
  if (log !== 'silent' && log !== 'info' && log !== 'debug')
    throw new CliUsageError(`invalid --log "${log}": expected silent, info or debug`);
  const scenarios =
    (v.scenario as string[] | undefined) ??
    (env.SIM_SCENARIO ? env.SIM_SCENARIO.split(',').filter(Boolean) : []);
  const journalBytesText = pick('journal-max-bytes', 'SIM_JOURNAL_MAX_BYTES');
  const journalMaxBytes = journalBytesText === undefined ? undefined : parseByteSize(journalBytesText);
  if (journalMaxBytes === null)
    throw new CliUsageError(
      `invalid --journal-max-bytes "${journalBytesText}": expected a number of bytes, optionally with KiB, MiB or GiB (e.g. 64MiB)`,
    );
  const bodyBytesText = pick('max-body-bytes', 'SIM_MAX_BODY_BYTES');
  const maxBodyBytes = bodyBytesText === undefined ? undefined : parseByteSize(bodyBytesText);
  if (maxBodyBytes === null || maxBodyBytes === 0)
    throw new CliUsageError(
      `invalid --max-body-bytes "${bodyBytesText}": expected a number of bytes >= 1, optionally with KiB, MiB or GiB (e.g. 10MiB)`,
    );
  const namespacesText = pick('max-namespaces', 'SIM_MAX_NAMESPACES');
  const maxNamespaces = namespacesText === undefined ? undefined : Number(namespacesText);
  if (namespacesText !== undefined && (!/^\d+$/.test(namespacesText) || maxNamespaces === 0))
    throw new CliUsageError(`invalid --max-namespaces "${namespacesText}": expected an integer >= 1`);
  return {
    options: {
      port,
      host: pick('host', 'SIM_HOST') ?? '127.0.0.1',
      seed: pick('seed', 'SIM_SEED'),
      clock,
      speed,
      scenarios,
      stateFile: pick('state-file', 'SIM_STATE_FILE'),
      adminToken: pick('admin-token', 'SIM_ADMIN_TOKEN'),
      ...(journalMaxBytes !== undefined ? { journalMaxBytes } : {}),
      ...(maxNamespaces !== undefined ? { maxNamespaces } : {}),
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      log,
    },
    help: v.help === true,
    version: v.version === true,
    positionals: parsed.positionals,
  };
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** `65536`, `512KiB`, `64MiB`, `1GiB` (case-insensitive) in bytes; `null` when it is none of those. */
function parseByteSize(text: string): number | null {
  const m = /^(\d+)\s*([a-z]*)$/i.exec(text.trim());
  const unit = m ? BYTE_UNITS[(m[2] as string).toLowerCase()] : undefined;
  return m && unit !== undefined ? Number(m[1]) * unit : null;
}

/**
 * The kernel options the common flags set, for a simulator's `start` to pass on, so that a flag added
 * here reaches the kernel without a change to each binary.
 *
 * @example start: (options) => startClusterSim({ ...cliKernelOptions(options), port: options.port, host: options.host })
 */
export function cliKernelOptions(options: CommonCliOptions): KernelOptions {
  return {
    seed: options.seed,
    clock: { mode: options.clock, speed: options.speed },
    adminToken: options.adminToken,
    requestLog: options.requestLog,
    journalMaxBytes: options.journalMaxBytes,
    maxNamespaces: options.maxNamespaces,
    maxBodyBytes: options.maxBodyBytes,
  };
}

/**
 * Whether an address to bind (or a bound one) is reachable from this machine only: `localhost`,
 * 127.0.0.0/8, `::1` (also IPv4-mapped). `0.0.0.0`, `::`, other addresses and other host names are not.
 */
export function isLoopbackHost(host: string): boolean {
  let h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 6) {
    // Compressed form: `0:0:0:0:0:0:0:1` is `::1`, `::ffff:127.0.0.1` is `::ffff:7f00:1`.
    h = new URL(`http://[${h}]/`).hostname.slice(1, -1);
    return h === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
  }
  return isIP(h) === 4 && h.startsWith('127.');
}

/**
 * The warning the CLI prints on stderr when the control plane is reachable from the network without
 * an admin token (docs/decisions/0015); `undefined` when it is not.
 *
 * @example openControlPlaneWarning({ name: 'cluster-sim', host: '0.0.0.0', port: 8085 })
 */
export function openControlPlaneWarning(bind: {
  name: string;
  host: string;
  port: number;
  adminToken?: string;
}): string | undefined {
  if (bind.adminToken || isLoopbackHost(bind.host)) return undefined;
  const where =
    bind.host === '0.0.0.0' || bind.host === '::' || bind.host === ''
      ? `${bind.host || '0.0.0.0'} (every network interface)`
      : bind.host;
  return [
    `${bind.name}: WARNING: the control plane is open to the network.`,
    `  It listens on ${where}, port ${bind.port}, without an admin token:`,
    `  anyone who can reach that port can read and replace the simulator's state, add faults,`,
    '  move its clock and read its journal (/_sim/...).',
    '  Set a token with --admin-token <token> or SIM_ADMIN_TOKEN=<token> (control-plane clients',
    '  then send Authorization: Bearer <token> or X-Sim-Admin-Token: <token>),',
    '  or bind loopback only with --host 127.0.0.1.',
  ].join('\n');
}

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
export interface StartedForCli extends RunningServer {
  /**
   * The simulator's app. When given, the runner loads `--scenario` files into the default namespace
   * and the `--state-file` snapshot through the control plane (in-process, admin token included), and
   * saves the snapshot on SIGTERM/SIGINT.
   */
  app?: { request: (path: string, init?: RequestInit) => Response | Promise<Response> };
  /** Runs before the server closes on SIGTERM/SIGINT. */
  beforeExit?: () => void | Promise<void>;
}

/** Calls a control route in-process; a non-2xx answer becomes a usage error with the control message. */
async function control(
  started: StartedForCli,
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
async function prepareWorld(started: StartedForCli, options: CommonCliOptions): Promise<void> {
  for (const file of options.scenarios) {
    const text = readCliFile(file, 'scenario');
    await control(started, options, 'POST', `/_sim/scenarios?source=${encodeURIComponent(file)}`, text);
  }
  if (options.stateFile) {
    let text: string | undefined;
    try {
      text = readFileSync(options.stateFile, 'utf8');
    } catch (err) {
      // No snapshot yet: it is written on exit.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new CliUsageError(`cannot read state file "${options.stateFile}": ${(err as Error).message}`);
    }
    if (text !== undefined) {
      try {
        await control(started, options, 'PUT', '/_sim/state', text);
      } catch (err) {
        throw new CliUsageError(`state file "${options.stateFile}": ${(err as Error).message}`);
      }
    }
  }
}

/**
 * Runs a simulator binary: parse flags, start, print one ready line, stop cleanly on SIGTERM/SIGINT.
 * `start` receives the parsed options and returns the running server plus a hook run before exit.
 */
export async function runSimulatorCli(config: {
  name: string;
  version: string;
  defaultPort: number;
  proc: CliProcess;
  /** The simulator serves a dashboard at `/_sim/ui/`: the ready line names it. */
  dashboard?: boolean;
  /** Subcommands besides `serve` (`verify`, …), each run instead of the simulator when named first. */
  commands?: Record<string, CliCommand>;
  start(options: CommonCliOptions): Promise<StartedForCli>;
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
      proc.stdout(topLevelHelp(name, config.defaultPort, commands));
      proc.exit(0);
      return undefined;
    }
    if (topic === 'serve') {
      proc.stdout(commonHelp(name, config.defaultPort));
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
    parsed = parseCommonArgs(serveNamed ? rest : proc.argv, proc.env, config.defaultPort);
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
      serveNamed ? commonHelp(name, config.defaultPort) : topLevelHelp(name, config.defaultPort, commands),
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
  const fail = async (err: unknown, started?: StartedForCli) => {
    await started?.close();
    const usage = err instanceof CliUsageError || err instanceof SimInputError;
    proc.stderr(`${name}: ${(err as Error).message}`);
    proc.exit(usage ? 2 : 1);
    return undefined;
  };
  let running: StartedForCli;
  try {
    running = await config.start(parsed.options);
  } catch (err) {
    return fail(err);
  }
  try {
    if (running.app) await prepareWorld(running, parsed.options);
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
      `${config.name} ${config.version} ready at ${running.url} (${config.dashboard ? `dashboard ${running.url}/_sim/ui/, ` : ''}control plane ${running.url}/_sim, API docs ${running.url}/openapi.json, clock ${parsed.options.clock})`,
    );
  }
  const stop = async () => {
    try {
      await running.beforeExit?.();
      const { stateFile } = parsed.options;
      if (stateFile && running.app) {
        // Atomic: a kill during the save leaves the previous snapshot whole (docs/decisions/0015).
        writeFileAtomic(stateFile, await control(running, parsed.options, 'GET', '/_sim/state'));
      }
    } catch (err) {
      proc.stderr(`${config.name}: could not save the state: ${(err as Error).message}`);
    } finally {
      await running.close();
      proc.exit(0);
    }
  };
  proc.onSignal('SIGTERM', () => void stop());
  proc.onSignal('SIGINT', () => void stop());
  return running;
}
