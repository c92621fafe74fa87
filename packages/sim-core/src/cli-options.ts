import { parseArgs } from 'node:util';
import { CliUsageError } from './cli-commands';
import type { ClockMode } from './clock';
import type { KernelOptions } from './http/kernel';
import type { JournalEntry } from './journal';
import type { BudgetKind } from './memory-budget';

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
  /**
   * Bytes each of the simulator's other kinds of store may hold together in all namespaces, from
   * `--<kind>-max-bytes` (kernel option `budgets`; only the kinds given).
   */
  budgets?: Record<string, number>;
  /** Most namespaces the simulator keeps (kernel option `maxNamespaces`). */
  maxNamespaces?: number;
  /** Largest emulated-API request body read (kernel option `maxBodyBytes`; default the API's own limit). */
  maxBodyBytes?: number;
  log: 'silent' | 'info' | 'debug';
  /** Set at `--log debug`: pass it to the simulator (kernel option `requestLog`) to print each request. */
  requestLog?: (entry: JournalEntry) => void;
}

/** A budget kind's flag (`events-max-bytes`) and environment variable (`SIM_EVENTS_MAX_BYTES`). */
export const budgetFlag = (kind: BudgetKind) => `${kind.name}-max-bytes`;
const budgetEnv = (kind: BudgetKind) => `SIM_${kind.name.toUpperCase()}_MAX_BYTES`;

/**
 * Parses the common flags, and `--<kind>-max-bytes` for each of the simulator's budget kinds besides
 * the journal's; throws CliUsageError for unknown flags or invalid values (exit code 2).
 *
 * @example parseCommonArgs(['--port', '0', '--clock', 'manual'], {}, 8085)
 */
export function parseCommonArgs(
  argv: string[],
  env: Record<string, string | undefined>,
  defaultPort: number,
  budgetKinds: readonly BudgetKind[] = [],
): { options: CommonCliOptions; help: boolean; version: boolean; positionals: string[] } {
  const kinds = budgetKinds.filter((k) => k.name !== 'journal');
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
        ...Object.fromEntries(kinds.map((k) => [budgetFlag(k), { type: 'string' as const }])),
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
  const budgets: Record<string, number> = {};
  for (const kind of kinds) {
    const text = pick(budgetFlag(kind), budgetEnv(kind));
    if (text === undefined) continue;
    const bytes = parseByteSize(text);
    if (bytes === null)
      throw new CliUsageError(
        `invalid --${budgetFlag(kind)} "${text}": expected a number of bytes, optionally with KiB, MiB or GiB (e.g. 64MiB)`,
      );
    budgets[kind.name] = bytes;
  }
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
      ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
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
    budgets: options.budgets,
    maxNamespaces: options.maxNamespaces,
    maxBodyBytes: options.maxBodyBytes,
  };
}
