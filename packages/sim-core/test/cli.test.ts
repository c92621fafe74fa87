import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliProcess, parseCommonArgs, runSimulatorCli } from '../src/cli';
import { serve } from '../src/http/serve';
import type { JournalEntry } from '../src/journal';
import { createToySim } from './support/toy-simulator';

function fakeProcess(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const signals = new Map<string, () => void>();
  let exitCode: number | undefined;
  let exited: () => void = () => {};
  const exitedPromise = new Promise<void>((r) => {
    exited = r;
  });
  const proc: CliProcess = {
    argv,
    env,
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    exit: (code) => {
      exitCode = code;
      exited();
    },
    onSignal: (s, h) => signals.set(s, h),
  };
  return { proc, out, err, signals, code: () => exitCode, exitedPromise };
}

const start = (options: { port: number; host: string }) => serve(createToySim().app, options);

describe('simulator CLI', () => {
  it('prints one ready line with the URLs and stops cleanly on SIGTERM', async () => {
    const p = fakeProcess(['--port', '0', '--clock', 'manual']);
    const running = await runSimulatorCli({
      name: 'toy-sim',
      version: '1.2.3',
      defaultPort: 9999,
      proc: p.proc,
      start,
    });
    expect(running).toBeDefined();
    expect(p.out).toHaveLength(1);
    expect(p.out[0]).toMatch(
      /^toy-sim 1\.2\.3 ready at http:\/\/127\.0\.0\.1:\d+ \(control plane http:\/\/127\.0\.0\.1:\d+\/_sim, API docs .*\/openapi\.json, clock manual\)$/,
    );
    const health = await fetch(`${running?.url}/_sim/health`);
    expect(health.status).toBe(200);
    p.signals.get('SIGTERM')?.();
    await p.exitedPromise;
    expect(p.code()).toBe(0);
    await expect(fetch(`${running?.url}/_sim/health`)).rejects.toThrow();
  });

  it('exits 2 with a clear message on an unknown flag', async () => {
    const p = fakeProcess(['--prot', '1']);
    await runSimulatorCli({ name: 'toy-sim', version: '1', defaultPort: 1, proc: p.proc, start });
    expect(p.code()).toBe(2);
    expect(p.err.join('\n')).toMatch(/^toy-sim: Unknown option '--prot'.*\nTry 'toy-sim --help'\.$/s);
  });

  it.each([
    [['--port', 'abc'], /invalid --port "abc"/],
    [['--port', '70000'], /invalid --port "70000"/],
    [['--clock', 'fast'], /invalid --clock "fast": expected real or manual/],
    [['--speed', '0'], /invalid --speed "0"/],
    [['--log', 'loud'], /invalid --log "loud"/],
    [['extra'], /unexpected argument "extra"/],
  ])('exits 2 on invalid value %j', async (argv, message) => {
    const p = fakeProcess(argv);
    await runSimulatorCli({ name: 'toy-sim', version: '1', defaultPort: 1, proc: p.proc, start });
    expect(p.code()).toBe(2);
    expect(p.err[0]).toMatch(message);
  });

  it('prints help and version', async () => {
    const help = fakeProcess(['--help']);
    await runSimulatorCli({ name: 'toy-sim', version: '1', defaultPort: 8085, proc: help.proc, start });
    expect(help.code()).toBe(0);
    expect(help.out[0]).toMatch(/^Usage: toy-sim \[options\]/);
    expect(help.out[0]).toMatch(/--port <n>.*\(default 8085\) \[SIM_PORT\]/);
    const version = fakeProcess(['--version']);
    await runSimulatorCli({ name: 'toy-sim', version: '4.5.6', defaultPort: 1, proc: version.proc, start });
    expect(version.out).toEqual(['toy-sim 4.5.6']);
  });

  it('takes every option from SIM_* variables, flags winning', () => {
    const env = {
      SIM_PORT: '1234',
      SIM_HOST: '0.0.0.0',
      SIM_SEED: 's',
      SIM_CLOCK: 'manual',
      SIM_SPEED: '2',
      SIM_SCENARIO: 'a.yaml,b.yaml',
      SIM_STATE_FILE: 'state.json',
      SIM_ADMIN_TOKEN: 't',
      SIM_LOG: 'silent',
    };
    expect(parseCommonArgs([], env, 1).options).toEqual({
      port: 1234,
      host: '0.0.0.0',
      seed: 's',
      clock: 'manual',
      speed: 2,
      scenarios: ['a.yaml', 'b.yaml'],
      stateFile: 'state.json',
      adminToken: 't',
      log: 'silent',
    });
    expect(parseCommonArgs(['--port', '5', '--scenario', 'c.yaml'], env, 1).options).toMatchObject({
      port: 5,
      scenarios: ['c.yaml'],
    });
  });

  it('exits 1 and says why when the simulator cannot start', async () => {
    const p = fakeProcess(['--port', '0']);
    await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: p.proc,
      start: () => Promise.reject(new Error('address in use')),
    });
    expect(p.code()).toBe(1);
    expect(p.err).toEqual(['toy-sim: address in use']);
  });
});

describe('serve', () => {
  it('picks a free port for port 0 and reports a reachable URL', async () => {
    const running = await serve(createToySim().app, { port: 0, host: '0.0.0.0' });
    try {
      expect(running.url).toBe(`http://127.0.0.1:${running.port}`);
      expect((await fetch(`${running.url}/_sim/health`)).status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it('close() ends open keep-alive connections so it resolves promptly', async () => {
    const running = await serve(createToySim().app);
    await fetch(`${running.url}/_sim/health`, { headers: { connection: 'keep-alive' } });
    await running.close();
    await expect(fetch(`${running.url}/_sim/health`)).rejects.toThrow();
  });
});

describe('simulator CLI with the app (scenarios and state file)', () => {
  const startWithApp = async (options: {
    port: number;
    host: string;
    adminToken?: string;
    requestLog?: (e: JournalEntry) => void;
  }) => {
    const { app } = createToySim({ adminToken: options.adminToken, requestLog: options.requestLog });
    return { ...(await serve(app, options)), app };
  };
  const tmp = () => mkdtempSync(join(tmpdir(), 'sim-cli-'));

  it('loads --scenario files into the default namespace before the ready line', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 's.yaml'), 'seed:\n  widgets:\n    - { name: from-scenario, color: teal }\n');
    const p = fakeProcess(['--port', '0', '--scenario', join(dir, 's.yaml'), '--admin-token', 't']);
    const running = await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: p.proc,
      start: startWithApp,
    });
    const res = await fetch(`${running?.url}/widgets/from-scenario`);
    expect(await res.json()).toEqual({ name: 'from-scenario', color: 'teal' });
    await running?.close();
  });

  it('exits 2 with the file, line and column of an invalid scenario', async () => {
    const dir = tmp();
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'faults:\n  - effect: { delay: soon }\n');
    const p = fakeProcess(['--port', '0', '--scenario', file]);
    await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: p.proc,
      start: startWithApp,
    });
    expect(p.code()).toBe(2);
    expect(p.err[0]).toMatch(
      new RegExp(`^toy-sim: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2:22: effect\\.delay`),
    );
  });

  it('saves the world to --state-file on SIGTERM and continues from it on the next start', async () => {
    const dir = tmp();
    const stateFile = join(dir, 'state.json');
    const first = fakeProcess(['--port', '0', '--state-file', stateFile, '--admin-token', 't']);
    const a = await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: first.proc,
      start: startWithApp,
    });
    await fetch(`${a?.url}/widgets`, {
      method: 'POST',
      body: JSON.stringify({ name: 'kept', color: 'gold' }),
    });
    first.signals.get('SIGTERM')?.();
    await first.exitedPromise;
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).state.widgets).toEqual([
      { name: 'kept', color: 'gold' },
    ]);
    const second = fakeProcess(['--port', '0', '--state-file', stateFile, '--admin-token', 't']);
    const b = await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: second.proc,
      start: startWithApp,
    });
    expect(await (await fetch(`${b?.url}/widgets/kept`)).json()).toEqual({ name: 'kept', color: 'gold' });
    await b?.close();
  });

  it('prints one line per emulated-API request at --log debug, and none at info', async () => {
    const debug = fakeProcess(['--port', '0', '--log', 'debug']);
    const a = await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: debug.proc,
      start: startWithApp,
    });
    await fetch(`${a?.url}/widgets/nope?x=1`, { headers: { 'x-sim-namespace': 'n1' } });
    await fetch(`${a?.url}/_sim/health`);
    expect(debug.out.slice(1)).toEqual([
      expect.stringMatching(/^\[n1\] GET \/widgets\/nope\?x=1 404 [\d.]+ms widgets\.get$/),
    ]);
    await a?.close();
    const info = fakeProcess(['--port', '0']);
    const b = await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: info.proc,
      start: startWithApp,
    });
    await fetch(`${b?.url}/widgets/nope`);
    expect(info.out).toHaveLength(1); // the ready line only
    await b?.close();
  });

  it('exits 2 when the state file is not a snapshot', async () => {
    const dir = tmp();
    const stateFile = join(dir, 'state.json');
    writeFileSync(stateFile, '{"state": {"widgets": "no"}}');
    const p = fakeProcess(['--port', '0', '--state-file', stateFile]);
    await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: p.proc,
      start: startWithApp,
    });
    expect(p.code()).toBe(2);
    expect(p.err[0]).toMatch(/^toy-sim: state file ".*state\.json": state\.widgets/);
  });
});
