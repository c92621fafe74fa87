import { parseArgs } from 'node:util';
import type { LogLevel } from '@pact-foundation/pact';
import type { ProviderDefinition } from './provider';
import { type BrokerOptions, type ConsumerVersionSelector, verifyPacts } from './verify';

/** The usage text; `command` is how the simulator's verify command is invoked. */
export function verifyUsage(command = 'pnpm --filter @sims/<simulator> verify'): string {
  return `usage: ${command} [options] <pact files or folders>...

Verifies pacts against a fresh in-process simulator, setting up the provider states listed in
STATES.md (in the simulator's package; contracts/STATES.md in its repository). Prints pact's report;
exits 1 when any interaction fails, 2 on bad usage or when pact is not installed.

options:
  --provider <name>                 verify only the pacts of this provider
  --log-level <level>               pact's log level: error, warn (default), info, debug, trace
  -h, --help                        this text

broker (instead of, or besides, files; every value also from the environment variable shown):
  --broker-url <url>                PACT_BROKER_BASE_URL
  --broker-token <token>            PACT_BROKER_TOKEN
  --broker-username <name>          PACT_BROKER_USERNAME
  --broker-password <password>      PACT_BROKER_PASSWORD
  --consumer-version-selectors <json>
                                    e.g. '[{"mainBranch":true},{"deployedOrReleased":true}]'
  --consumer-version-tags <a,b>
  --provider-version <version>      PACT_PROVIDER_VERSION (required to publish)
  --provider-branch <branch>        PACT_PROVIDER_BRANCH
  --provider-version-tags <a,b>
  --publish                         publish the verification results to the broker
  --enable-pending                  pending pacts do not fail the build
  --include-wip-pacts-since <date>  e.g. 2026-01-01
  --build-url <url>                 link to the CI build in the published result`;
}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  env: Record<string, string | undefined>;
  /** Relative pact paths resolve against this folder. */
  cwd: string;
}

export interface ParsedVerifyArgs {
  help: boolean;
  pacts: string[];
  only?: string;
  logLevel?: LogLevel;
  broker?: BrokerOptions;
}

const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const;

/** Parses the verify command line (throws an Error with a usage message on bad input). */
export function parseVerifyArgs(
  argv: string[],
  env: Record<string, string | undefined> = {},
): ParsedVerifyArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      provider: { type: 'string' },
      'log-level': { type: 'string' },
      'broker-url': { type: 'string' },
      'broker-token': { type: 'string' },
      'broker-username': { type: 'string' },
      'broker-password': { type: 'string' },
      'consumer-version-selectors': { type: 'string' },
      'consumer-version-tags': { type: 'string' },
      'provider-version': { type: 'string' },
      'provider-branch': { type: 'string' },
      'provider-version-tags': { type: 'string' },
      publish: { type: 'boolean' },
      'enable-pending': { type: 'boolean' },
      'include-wip-pacts-since': { type: 'string' },
      'build-url': { type: 'string' },
    },
  });
  const logLevel = values['log-level'];
  if (logLevel !== undefined && !(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const list = (v: string | undefined) =>
    v === undefined
      ? undefined
      : v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  let selectors: ConsumerVersionSelector[] | undefined;
  const rawSelectors = values['consumer-version-selectors'];
  if (rawSelectors !== undefined) {
    try {
      const parsed: unknown = JSON.parse(rawSelectors);
      if (!Array.isArray(parsed)) throw new Error('not an array');
      selectors = parsed as ConsumerVersionSelector[];
    } catch (err) {
      throw new Error(`--consumer-version-selectors must be a JSON array: ${(err as Error).message}`);
    }
  }
  const url = values['broker-url'] ?? env.PACT_BROKER_BASE_URL;
  const publish = values.publish === true;
  const providerVersion = values['provider-version'] ?? env.PACT_PROVIDER_VERSION;
  if (publish && !url) throw new Error('--publish needs a broker (--broker-url)');
  if (publish && !providerVersion) throw new Error('--publish needs --provider-version');
  const broker: BrokerOptions | undefined = url
    ? {
        url,
        token: values['broker-token'] ?? env.PACT_BROKER_TOKEN,
        username: values['broker-username'] ?? env.PACT_BROKER_USERNAME,
        password: values['broker-password'] ?? env.PACT_BROKER_PASSWORD,
        consumerVersionSelectors: selectors,
        consumerVersionTags: list(values['consumer-version-tags']),
        providerVersion,
        providerVersionBranch: values['provider-branch'] ?? env.PACT_PROVIDER_BRANCH,
        providerVersionTags: list(values['provider-version-tags']),
        publishVerificationResult: publish,
        enablePending: values['enable-pending'],
        includeWipPactsSince: values['include-wip-pacts-since'],
        buildUrl: values['build-url'],
      }
    : undefined;
  if (!values.help && positionals.length === 0 && !broker) {
    throw new Error('give pact files or folders, or a broker URL');
  }
  return {
    help: values.help === true,
    pacts: positionals,
    ...(values.provider !== undefined ? { only: values.provider } : {}),
    ...(logLevel !== undefined ? { logLevel: logLevel as LogLevel } : {}),
    ...(broker ? { broker } : {}),
  };
}

/**
 * The whole verify command: parse, verify, print, and return the exit code (0 verified, 1 failed,
 * 2 bad usage). The simulator's `src/verify/main.ts` calls it with its providers.
 */
export async function runVerifyCli(
  providers: ProviderDefinition[],
  argv: string[],
  options: Partial<CliIo> & { command?: string } = {},
): Promise<number> {
  const io: CliIo & { command?: string } = {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
    env: process.env,
    cwd: process.env.INIT_CWD ?? process.cwd(),
    ...options,
  };
  let args: ParsedVerifyArgs;
  try {
    args = parseVerifyArgs(argv, io.env);
  } catch (err) {
    io.err(`verify: ${(err as Error).message}\n\n${verifyUsage(io.command)}`);
    return 2;
  }
  if (args.help) {
    io.out(
      `${verifyUsage(io.command)}\n\nthis simulator provides: ${providers.map((p) => p.name).join(', ')}`,
    );
    return 0;
  }
  try {
    const result = await verifyPacts({
      providers,
      pacts: args.pacts,
      cwd: io.cwd,
      ...(args.broker ? { broker: args.broker } : {}),
      ...(args.only !== undefined ? { only: args.only } : {}),
      ...(args.logLevel ? { logLevel: args.logLevel } : {}),
      log: io.out,
    });
    return result.ok ? 0 : 1;
  } catch (err) {
    io.err(`verify: ${(err as Error).message}`);
    return 2;
  }
}
