import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import type { LogLevel, VerifierOptions } from '@pact-foundation/pact';
import type { ProviderDefinition, ProviderSession, StateParams } from './provider';

/** A consumer version selector for a broker (pact's own shape). */
export interface ConsumerVersionSelector {
  tag?: string;
  latest?: boolean;
  consumer?: string;
  deployedOrReleased?: boolean;
  deployed?: boolean;
  released?: boolean;
  environment?: string;
  fallbackTag?: string;
  branch?: string;
  mainBranch?: boolean;
  matchingBranch?: boolean;
}

/** Fetching pacts from a Pact Broker (or PactFlow) instead of files, and publishing the results. */
export interface BrokerOptions {
  url: string;
  token?: string;
  username?: string;
  password?: string;
  consumerVersionSelectors?: ConsumerVersionSelector[];
  consumerVersionTags?: string[];
  /** The version of the simulator being verified; required to publish. */
  providerVersion?: string;
  providerVersionBranch?: string;
  providerVersionTags?: string[];
  publishVerificationResult?: boolean;
  enablePending?: boolean;
  includeWipPactsSince?: string;
  buildUrl?: string;
}

export interface VerifyOptions {
  /** Every provider this simulator can stand in for (`cluster-sim`, or `annotation-sim` and `annotation-sim-webhooks`). */
  providers: ProviderDefinition[];
  /** Pact files or folders of pact files (`*.json`). */
  pacts?: string[];
  /** Relative pact paths resolve against this folder (default: the process's). */
  cwd?: string;
  /** Fetch pacts from a broker: each provider of `providers` (or only `only`) is verified. */
  broker?: BrokerOptions;
  /** Verify only this provider. */
  only?: string;
  logLevel?: LogLevel;
  /** Where the runner's own lines go (pact prints its report to stdout itself). */
  log?: (line: string) => void;
}

/** One interaction that failed, as pact reports it. */
export interface Mismatch {
  interaction: string;
  /** Pact's description of what differed (one line per mismatch). */
  details: string[];
}

export interface ProviderResult {
  provider: string;
  pactFiles: string[];
  ok: boolean;
  /** pact's JSON result (`pactffi_verifier_json`), when the verifier ran. */
  report?: unknown;
  mismatches: Mismatch[];
  /** State handlers that threw, `state: error` (each also fails its interaction). */
  stateFailures: string[];
  /** A failure outside any interaction (unknown provider, no pacts, verifier crash). */
  error?: string;
}

export interface VerifyResult {
  ok: boolean;
  results: ProviderResult[];
}

/** Property names that libraries probe on any object (JSON, promises, inspection): never state names. */
const NOT_A_NAME = new Set([
  'toJSON',
  'then',
  'constructor',
  'valueOf',
  'toString',
  'inspect',
  'asymmetricMatch',
]);
const isName = (name: string | symbol): name is string => typeof name === 'string' && !NOT_A_NAME.has(name);

/** The paths pact-js serves its state-change and message endpoints on (see its Verifier). */
const PACT_SETUP_PATH = '/_pactSetup';
const PACT_MESSAGE_PATH = '/_messages';

/** Expands folders into their `*.json` files (sorted) and reads each pact's provider name. */
export function collectPactFiles(paths: string[], cwd = process.cwd()): { file: string; provider: string }[] {
  const files: string[] = [];
  for (const p of paths) {
    const abs = resolve(cwd, p);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(abs);
    } catch {
      throw new Error(`no such pact file or folder: ${p}`);
    }
    if (stat.isDirectory()) {
      const inDir = readdirSync(abs)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => join(abs, f));
      if (inDir.length === 0) throw new Error(`no pact files (*.json) in ${p}`);
      files.push(...inDir);
    } else files.push(abs);
  }
  return files.map((file) => {
    let pact: unknown;
    try {
      pact = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`${file} is not a pact file: ${(err as Error).message}`);
    }
    const provider = (pact as { provider?: { name?: unknown } }).provider?.name;
    if (typeof provider !== 'string') throw new Error(`${file} is not a pact file: no provider.name`);
    return { file, provider };
  });
}

/**
 * Verifies pacts against fresh simulators: one session per provider, the world emptied before every
 * interaction, states set up by the session's handlers (keyed by template), messages built by the
 * session. Pact prints its report to stdout; the result also carries it, with the mismatches.
 */
export async function verifyPacts(options: VerifyOptions): Promise<VerifyResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const known = options.providers.map((p) => p.name);
  const runs: { definition?: ProviderDefinition; provider: string; files: string[] }[] = [];

  if (options.pacts && options.pacts.length > 0) {
    const byProvider = new Map<string, string[]>();
    for (const { file, provider } of collectPactFiles(options.pacts, options.cwd)) {
      if (options.only !== undefined && provider !== options.only) continue;
      byProvider.set(provider, [...(byProvider.get(provider) ?? []), file]);
    }
    for (const [provider, files] of byProvider) {
      const definition = options.providers.find((p) => p.name === provider);
      // A folder may hold pacts of other providers (contracts/pacts holds both simulators'): skip them.
      if (definition) runs.push({ definition, provider, files });
      else
        log(
          `pact-verify: skipping ${files.join(', ')}: provider "${provider}" is not this simulator (${known.join(', ')})`,
        );
    }
  } else if (options.broker) {
    for (const definition of options.providers) {
      if (options.only === undefined || definition.name === options.only)
        runs.push({ definition, provider: definition.name, files: [] });
    }
  }
  if (runs.length === 0) {
    const error =
      options.pacts && options.pacts.length > 0
        ? `none of the pacts is for ${options.only ? `provider "${options.only}"` : 'this simulator'} (it provides ${known.join(', ')})`
        : 'no pacts given: pass pact files or folders, or a broker URL';
    log(`pact-verify: ${error}`);
    return {
      ok: false,
      results: [
        { provider: options.only ?? '', pactFiles: [], ok: false, mismatches: [], stateFailures: [], error },
      ],
    };
  }

  const results: ProviderResult[] = [];
  for (const run of runs) {
    if (!run.definition) continue;
    log(
      `pact-verify: verifying ${run.provider} against a fresh simulator (${run.files.length > 0 ? run.files.join(', ') : `broker ${options.broker?.url}`})`,
    );
    results.push(await verifyOne(run.definition, run.files, options));
  }
  for (const r of results) {
    if (r.ok) log(`pact-verify: ${r.provider}: verified`);
    else {
      log(`pact-verify: ${r.provider}: FAILED`);
      if (r.error) log(`  ${r.error}`);
      for (const s of r.stateFailures) log(`  provider state failed: ${s}`);
      for (const m of r.mismatches) {
        log(`  ${m.interaction}`);
        for (const d of m.details) log(`    - ${d}`);
      }
    }
  }
  return { ok: results.every((r) => r.ok), results };
}

async function verifyOne(
  definition: ProviderDefinition,
  files: string[],
  options: VerifyOptions,
): Promise<ProviderResult> {
  const base = { provider: definition.name, pactFiles: files };
  let session: ProviderSession;
  try {
    session = await definition.start();
  } catch (err) {
    return {
      ...base,
      ok: false,
      mismatches: [],
      stateFailures: [],
      error: `the simulator did not start: ${(err as Error).message}`,
    };
  }
  // Per-run bookkeeping (nothing at module level): the world is emptied before the first state of each
  // interaction; a state that failed makes the interaction's request (or message) fail with its error.
  const stateFailures: string[] = [];
  let dirty = true;
  let broken: string | undefined;
  const freshWorld = async () => {
    if (dirty) {
      await session.reset();
      dirty = false;
      broken = undefined;
    }
  };
  const runState = (name: string) => async (params: unknown) => {
    await freshWorld();
    // Pact asks for the empty state name for an interaction without states: the empty world is it.
    if (broken || name === '') return undefined;
    const handler = session.states[name];
    try {
      if (!handler) {
        throw new Error(
          `unknown provider state (known: ${Object.keys(session.states)
            .map((s) => `"${s}"`)
            .join(', ')})`,
        );
      }
      return (await handler(params ?? {})) ?? undefined;
    } catch (err) {
      broken = `provider state "${name}" ${JSON.stringify(params ?? {})} could not be set up: ${(err as Error).message}`;
      stateFailures.push(broken);
      throw err;
    }
  };
  // Any state name (also ones this simulator does not know, which must fail rather than be skipped).
  const stateHandlers = new Proxy(
    {} as Record<string, (params: unknown) => Promise<Record<string, unknown> | undefined>>,
    {
      get: (_, name) => (isName(name) ? runState(name) : undefined),
    },
  );
  const requestFilter = (req: IncomingMessage & { path?: string }, res: ServerResponse, next: () => void) => {
    const path = req.path ?? req.url ?? '';
    if (path === PACT_SETUP_PATH) return next();
    void (async () => {
      try {
        await freshWorld();
        if (!broken) await session.beforeRequest?.();
      } catch (err) {
        broken = `setting the world up failed: ${(err as Error).message}`;
        stateFailures.push(broken);
      }
      dirty = true;
      if (broken && path !== PACT_MESSAGE_PATH) {
        res.statusCode = 599;
        res.setHeader('Content-Type', 'text/plain');
        res.end(broken);
        return;
      }
      next();
    })();
  };
  const messageFor = async (request: unknown) => {
    if (broken) throw new Error(broken);
    if (!session.message) throw new Error(`${definition.name} produces no messages`);
    const r = request as { description?: unknown; providerStates?: unknown };
    const produced = await session.message({
      description: String(r.description ?? ''),
      providerStates: Array.isArray(r.providerStates)
        ? (r.providerStates as { name: string; params?: StateParams }[])
        : [],
    });
    return { __pactMessageMetadata: produced.metadata, message: produced.body };
  };
  const messageProviders = new Proxy({} as Record<string, (m: unknown) => Promise<unknown>>, {
    get: (_, name) =>
      isName(name) ? (m: unknown) => messageFor(m).catch((e: Error) => Promise.reject(e.message)) : undefined,
  });

  const broker = options.broker;
  const verifierOptions: VerifierOptions = {
    provider: definition.name,
    logLevel: options.logLevel ?? 'warn',
    stateHandlers: stateHandlers as unknown as VerifierOptions['stateHandlers'],
    requestFilter: requestFilter as unknown as VerifierOptions['requestFilter'],
    ...(session.message
      ? { messageProviders: messageProviders as unknown as VerifierOptions['messageProviders'] }
      : {}),
    ...(session.baseUrl ? { providerBaseUrl: session.baseUrl } : {}),
    ...(files.length > 0 ? { pactUrls: files } : {}),
    ...(broker
      ? {
          pactBrokerUrl: broker.url,
          pactBrokerToken: broker.token,
          pactBrokerUsername: broker.username,
          pactBrokerPassword: broker.password,
          consumerVersionSelectors: broker.consumerVersionSelectors,
          consumerVersionTags: broker.consumerVersionTags,
          providerVersion: broker.providerVersion,
          providerVersionBranch: broker.providerVersionBranch,
          providerVersionTags: broker.providerVersionTags,
          publishVerificationResult: broker.publishVerificationResult ?? false,
          enablePending: broker.enablePending,
          includeWipPactsSince: broker.includeWipPactsSince,
          buildUrl: broker.buildUrl,
        }
      : {}),
    failIfNoPactsFound: true,
  };
  for (const key of Object.keys(verifierOptions) as (keyof VerifierOptions)[]) {
    if (verifierOptions[key] === undefined) delete verifierOptions[key];
  }

  // Imported here, not at the top: the simulators' CLIs load this module for `verify --help` too, and pact
  // is an optional peer dependency of theirs (docs/decisions/0013-packages-and-source-condition.md).
  const { Verifier } = await import('@pact-foundation/pact');
  try {
    const output = await new Verifier(verifierOptions).verifyProvider();
    const report = parseReport(output);
    const mismatches = mismatchesOf(report);
    return {
      ...base,
      ok: stateFailures.length === 0 && mismatches.length === 0,
      report,
      mismatches,
      stateFailures,
    };
  } catch (err) {
    const report = parseReport((err as Error).message);
    const mismatches = mismatchesOf(report);
    return {
      ...base,
      ok: false,
      report,
      mismatches,
      stateFailures,
      ...(report === undefined ? { error: `the verifier failed: ${(err as Error).message}` } : {}),
    };
  } finally {
    await session.close();
  }
}

function parseReport(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The failed interactions of pact's JSON result, each with one line per mismatch. */
export function mismatchesOf(report: unknown): Mismatch[] {
  const errors = (report as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.map((e: { interaction?: unknown; mismatch?: unknown }) => {
    const mismatch = e.mismatch as { type?: string; message?: string; mismatches?: unknown[] } | undefined;
    const details: string[] = [];
    if (mismatch?.message) details.push(mismatch.message);
    for (const m of mismatch?.mismatches ?? []) {
      const d = m as {
        type?: string;
        mismatch?: string;
        path?: string;
        key?: string;
        expected?: unknown;
        actual?: unknown;
      };
      const where = d.path ?? d.key ?? '';
      details.push(
        `${d.type ?? 'mismatch'}${where ? ` at ${where}` : ''}: ${d.mismatch ?? `expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.actual)}`}`,
      );
    }
    if (details.length === 0) details.push(JSON.stringify(e.mismatch ?? e));
    return { interaction: String(e.interaction ?? '(unknown interaction)'), details };
  });
}
