import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    containerSkipReason: string | undefined;
    containerNetwork: 'host' | 'bridge';
    containerRunLabels: Record<string, string>;
  }
}

/**
 * Set by @sims/testcontainers' global setup (see vitest.config.ts) when no Docker engine answers: every
 * container example is skipped, and the run says so loudly (under CI=true the setup fails instead).
 */
export const skipReason = inject('containerSkipReason');
if (skipReason) console.error(skipReason);

/** The repository's root: the examples run from there, as the README tells users to. */
export const repo = fileURLToPath(new URL('../../..', import.meta.url));

const run = promisify(execFile);

/** Runs a command from the repository's root; its stdout, trimmed. */
export async function sh(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run(command, args, {
    cwd: repo,
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return stdout.trim();
}

/** Removes containers by id; tolerant of ones already gone (`--rm`). */
export async function removeContainers(ids: string[]): Promise<void> {
  if (ids.length > 0) await sh('docker', ['rm', '-f', ...ids]).catch(() => undefined);
}
