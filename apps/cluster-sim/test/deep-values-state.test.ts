import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliProcess, cliKernelOptions, runSimulatorCli } from '@sims/sim-core';
import { describe, expect, it } from 'vitest';
import { startClusterSim } from '../src/app';
import { aCluster, aNodePool } from './support/fixtures';
import { createHarness, type Harness, LOC } from './support/harness';

/** Deepest JSON the control plane takes in its own documents, a seed among them (sim-core http/body.ts). */
const CONTROL_DEPTH = 200;

/** `{"a":{"a":…{"x":1}}}`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { x: 1 };
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

/**
 * A seed whose pool keeps a `reservationAffinity` (a NodeConfig message the simulator stores as given)
 * of `levels` levels, 7 levels down the seed (`clusters[0].nodePools[0].config.reservationAffinity`).
 */
function deepSeed(levels: number) {
  const pool = aNodePool('np1').build();
  pool.config = { ...pool.config, reservationAffinity: nested(levels) } as typeof pool.config;
  return { clusters: [{ ...aCluster().build(), nodePools: [pool] }] };
}

/**
 * A world holding opaque NodeConfig members as deep as its inputs take: a pool seeded at the control
 * plane's depth, and a pool created through the API at its own (`limits.maxJsonDepth`: `{"nodePool":
 * {"config": {"sandboxConfig": …}}}`).
 */
async function deepWorld(h: Harness): Promise<void> {
  const over = await h.request('POST', '/_sim/seed', { body: deepSeed(CONTROL_DEPTH - 5), token: null });
  expect(over.body.error.message).toBe(`JSON body nested deeper than ${CONTROL_DEPTH} levels`);
  await h.seed(deepSeed(CONTROL_DEPTH - 6));
  const apiDepth = h.sim.kernel.def.limits?.maxJsonDepth as number;
  const created = await h.post(`${LOC}/clusters/c1/nodePools`, {
    nodePool: { name: 'np2', initialNodeCount: 1, config: { sandboxConfig: nested(apiDepth - 3) } },
  });
  expect(created.status, created.text).toBe(200);
  await h.advance('1h');
}

/** cluster-sim's CLI in-process, as `src/main.ts` runs it: output, exit code and SIGTERM at hand. */
async function startCli(argv: string[]) {
  const err: string[] = [];
  let code: number | undefined;
  let exited: () => void = () => {};
  const exit = new Promise<void>((resolve) => {
    exited = resolve;
  });
  const signals = new Map<string, () => void>();
  const proc: CliProcess = {
    argv: ['--port', '0', '--host', '127.0.0.1', '--log', 'silent', ...argv],
    env: {},
    stdout: () => {},
    stderr: (line) => err.push(line),
    exit: (c) => {
      code = c;
      exited();
    },
    onSignal: (signal, handler) => signals.set(signal, handler),
  };
  const running = await runSimulatorCli({
    name: 'cluster-sim',
    version: '1',
    defaultPort: 1,
    proc,
    start: async (options) => {
      const sim = await startClusterSim({
        ...cliKernelOptions(options),
        port: options.port,
        host: options.host,
      });
      return { ...sim, close: () => sim.close() };
    },
  });
  return {
    running,
    err,
    code: () => code,
    state: async () => (await (await fetch(`${running?.url}/_sim/state`)).json()) as { state: unknown },
    /** SIGTERM, then the exit code. */
    async stop() {
      signals.get('SIGTERM')?.();
      await exit;
      return code;
    },
  };
}

describe('a world holding JSON as deep as its inputs take', () => {
  it('is taken back by PUT /_sim/state from what GET /_sim/state answered', async () => {
    const h = createHarness();
    await deepWorld(h);
    const saved = await h.get('/_sim/state', { token: null });
    h.close();
    const other = createHarness();
    const put = await other.request('PUT', '/_sim/state', { body: saved.text, token: null });
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    expect((await other.get('/_sim/state', { token: null })).body).toEqual(saved.body);
    const pool = await other.get(`${LOC}/clusters/c1/nodePools/np1`);
    expect(pool.body.config.reservationAffinity).toEqual(nested(CONTROL_DEPTH - 6));
    other.close();
  });

  it('is loaded from --state-file by the CLI, and saved again at SIGTERM in a file that loads', async () => {
    const h = createHarness();
    await deepWorld(h);
    const saved = await h.get('/_sim/state', { token: null });
    h.close();
    const file = join(mkdtempSync(join(tmpdir(), 'cluster-deep-state-')), 'world.json');
    writeFileSync(file, saved.text);
    const first = await startCli(['--state-file', file, '--clock', 'manual']);
    expect(first.err).toEqual([]);
    expect(first.code()).toBeUndefined();
    expect((await first.state()).state).toEqual(saved.body.state);
    expect(await first.stop()).toBe(0);
    const second = await startCli(['--state-file', file, '--clock', 'manual']);
    expect(second.err).toEqual([]);
    expect((await second.state()).state).toEqual(saved.body.state);
    expect(await second.stop()).toBe(0);
  });
});
