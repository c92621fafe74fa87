/**
 * The parts of a simulator binary that are not serving: the process it runs in, its usage errors, and its
 * subcommands (`verify`, loaded only when named). cli.ts runs them.
 */

/** A bad command line, flag value or input file: the binary exits 2 with its message. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

export interface CliProcess {
  argv: string[];
  env: Record<string, string | undefined>;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  exit: (code: number) => void;
  onSignal: (signal: 'SIGTERM' | 'SIGINT', handler: () => void) => void;
}

/** The real process, for `main.ts`. */
export function nodeProcess(): CliProcess {
  return {
    argv: process.argv.slice(2),
    env: process.env,
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    exit: (code) => process.exit(code),
    onSignal: (signal, handler) => process.once(signal, handler),
  };
}

/** A subcommand of a simulator binary besides serving, such as `cluster-sim verify …`. */
export interface CliCommand {
  /** One line for the binary's `--help`. */
  summary: string;
  /** How it is called, after the binary's name (`verify [options] <pact files or folders>...`). */
  usage: string;
  /** Runs it with the arguments after its name and resolves with the exit code; `--help` is its own. */
  run(argv: string[], proc: CliProcess): Promise<number>;
}

/**
 * Imports a module that needs an optional peer dependency (as `verify` needs pact). When that
 * dependency is not installed, throws a CliUsageError whose one line says what to install; any other
 * failure is thrown as it is.
 *
 * @example
 * await loadOptionalModule(() => import('@pact-foundation/pact'), {
 *   what: 'cluster-sim verify',
 *   dependency: '@pact-foundation/pact',
 *   install: 'npm install --save-dev @pact-foundation/pact@^16.5.0',
 * });
 */
export async function loadOptionalModule<T>(
  load: () => Promise<T>,
  need: { what: string; dependency: string; install: string },
): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
    if (missing && (message.includes(`'${need.dependency}'`) || message.includes(`"${need.dependency}"`))) {
      throw new CliUsageError(
        `${need.what} needs ${need.dependency}, an optional peer dependency: ${need.install}`,
      );
    }
    throw err;
  }
}

/**
 * A subcommand whose code is imported only when it runs, so that serving never loads it: `verify`, which
 * the Docker image leaves out. Run from a build that lacks the module, it says so in one line (exit 2).
 *
 * @example lazyCommand({ summary, usage, what: 'cluster-sim verify', load: () => import('./verify/cli').then((m) => m.runVerify) })
 */
export function lazyCommand(spec: {
  summary: string;
  usage: string;
  what: string;
  load: () => Promise<CliCommand['run']>;
}): CliCommand {
  return {
    summary: spec.summary,
    usage: spec.usage,
    async run(argv, proc) {
      let run: CliCommand['run'];
      try {
        run = await spec.load();
      } catch (err) {
        const { code, url, message } = err as NodeJS.ErrnoException & { url?: string };
        // The module's own file is missing: an ES module's import (a file: URL), or the CommonJS CLI
        // bundle's `require` of a path (docs/decisions/0031), not a package the module imports.
        const fileMissing =
          (code === 'ERR_MODULE_NOT_FOUND' && url?.startsWith('file:')) ||
          (code === 'MODULE_NOT_FOUND' && /^Cannot find module '\.{0,2}\//.test(message));
        if (fileMissing) {
          throw new CliUsageError(
            `${spec.what} is not part of this build (the Docker image leaves it out): run it from the npm package`,
          );
        }
        throw err;
      }
      return run(argv, proc);
    },
  };
}
