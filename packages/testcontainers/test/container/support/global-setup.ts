import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../../../', import.meta.url));

/** Simulator containers started by testcontainers: its label plus the one the module adds. */
const SIM_CONTAINERS = ['--filter', 'label=org.testcontainers=true', '--filter', 'label=org.sims.simulator'];
/** This run's containers carry `org.sims.test-run=<id>` (support/engine.ts adds it). */
const RUN_ID = randomUUID();

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why the container tests cannot run here, or undefined when an engine answers and the images built. */
    containerSkipReason: string | undefined;
    /** How the containers are networked in this run. */
    containerNetwork: 'host' | 'bridge';
    /** Labels every container of this run gets, so that the teardown removes exactly those. */
    containerRunLabels: Record<string, string>;
  }
}

async function docker(args: string[], timeout = 15_000): Promise<string> {
  const { stdout } = await run('docker', args, { timeout, maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

async function engineAnswers(): Promise<string | undefined> {
  try {
    return await docker(['version', '--format', '{{.Server.Version}}']);
  } catch {
    return undefined;
  }
}

async function removeContainers(filters: string[], when: string): Promise<void> {
  const ids = (await docker(['ps', '-aq', ...filters])).split(/\s+/).filter(Boolean);
  if (ids.length === 0) return;
  console.log(`container tests: removing ${ids.length} simulator container(s) ${when}`);
  await docker(['rm', '-f', ...ids]);
}

async function imageExists(image: string): Promise<boolean> {
  try {
    await docker(['image', 'inspect', '--format', '{{.Id}}', image]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds the Docker engine, builds both simulator images (scripts/docker-images.sh --bundle, on
 * SIMS_BASE_IMAGE) and removes this suite's leftover containers before and after it. Without an engine the
 * suite is skipped and says so loudly; .ci/run always starts one, so CI always runs these tests.
 */
export default async function setup(project: TestProject) {
  const version = await engineAnswers();
  if (!version) {
    const line =
      'CONTAINER TESTS NOT RUN: no Docker engine reachable (bash scripts/docker-engine.sh start makes one)';
    console.error(`\n${'!'.repeat(line.length)}\n${line}\n${'!'.repeat(line.length)}\n`);
    // .ci/run starts an engine before the tests: in CI a missing engine is a failure, not a skip.
    if (process.env.CI === 'true') throw new Error(`${line}, and CI=true: CI must run the container tests`);
    project.provide('containerSkipReason', line);
    project.provide('containerNetwork', 'bridge');
    return;
  }

  // No reaper image can be pulled on machines like CI's, and /.dockerenv there misleads testcontainers'
  // host detection: the settings toolchain.md describes, unless the environment chose otherwise.
  const networks = (await docker(['network', 'ls', '--format', '{{.Name}}'])).split(/\s+/);
  const bridgeless = !networks.includes('bridge');
  if (bridgeless) {
    process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
    process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
    process.env.SIMS_TESTCONTAINERS_NETWORK ??= 'host';
  }
  const network = process.env.SIMS_TESTCONTAINERS_NETWORK?.toLowerCase() === 'host' ? 'host' : 'bridge';
  project.provide('containerNetwork', network);

  let base = process.env.SIMS_BASE_IMAGE;
  if (!base) {
    // No registry here: fall back to the locally imported base image when the public one is not present.
    const local = `sims-node-base:${process.versions.node.split('.')[0]}`;
    if (!(await imageExists('node:20-bookworm-slim')) && (await imageExists(local))) base = local;
  }
  const env = { ...process.env, ...(base && { SIMS_BASE_IMAGE: base }) };
  const t0 = performance.now();
  try {
    const { stdout } = await run('bash', ['scripts/docker-images.sh', '--bundle'], {
      cwd: root,
      env,
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    process.stdout.write(stdout);
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    throw new Error(`building the simulator images failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
  console.log(
    `container tests: engine ${version}, images on ${base ?? 'node:20-bookworm-slim'} built in ` +
      `${Math.round(performance.now() - t0)} ms, network ${network}`,
  );
  project.provide('containerSkipReason', undefined);
  project.provide('containerRunLabels', { 'org.sims.test-run': RUN_ID });
  // Leftovers of earlier runs (no reaper here): all simulator containers. Do not run two container suites
  // against one engine at the same time.
  await removeContainers(SIM_CONTAINERS, 'left over from earlier runs');

  return async () => {
    await removeContainers(
      [...SIM_CONTAINERS, '--filter', `label=org.sims.test-run=${RUN_ID}`],
      'after the suite',
    );
  };
}
