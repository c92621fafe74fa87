import type { CliCommand } from './cli-commands';
import type { BudgetKind } from './memory-budget';

/** `64MiB` for a whole number of MiB (or KiB, GiB), else the bytes. */
function bytesText(n: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const)
    if (n >= size && n % size === 0) return `${n / size}${unit}`;
  return String(n);
}

/** Words laid out as the help's second column: lines of at most 76 characters, indented 24. */
function column(text: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > 76) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.map((l) => `${' '.repeat(24)}${l}`).join('\n');
}

/** The help lines of the budget kinds besides the journal's, in the layout of the other options. */
function budgetLines(kinds: readonly BudgetKind[]): string {
  return kinds
    .filter((k) => k.name !== 'journal')
    .map(
      (k) =>
        `\n  --${k.name}-max-bytes <n>\n${column(
          `bytes the ${k.holds} of all namespaces hold together; the oldest go first (default ` +
            `${bytesText(k.defaultMaxBytes)}) [SIM_${k.name.toUpperCase()}_MAX_BYTES]`,
        )}`,
    )
    .join('');
}

/** The options of `<name> serve` (the default command), with `--<kind>-max-bytes` for each budget kind. */
export function commonHelp(
  name: string,
  defaultPort: number,
  budgetKinds: readonly BudgetKind[] = [],
): string {
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
                        entries go first (default 64MiB; KiB, MiB, GiB allowed) [SIM_JOURNAL_MAX_BYTES]${budgetLines(budgetKinds)}
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
  budgetKinds: readonly BudgetKind[] = [],
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
  const serve = commonHelp(name, defaultPort, budgetKinds).split('\n').slice(2).join('\n');
  return `${usage.join('\n')}

Commands:
${rows.map(([c, summary]) => `  ${c.padEnd(width)}${summary}`).join('\n')}

${serve}`;
}
