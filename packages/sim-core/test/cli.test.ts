import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSimulatorCli } from '../src/cli';
import { isLoopbackHost, openControlPlaneWarning } from '../src/cli-bind-warning';
import { type CliCommand, type CliProcess, CliUsageError } from '../src/cli-commands';
import { cliKernelOptions, parseCommonArgs } from '../src/cli-options';
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
    [['extra'], /unknown command "extra" \(commands: serve, help\)/],
    [['serve', 'extra'], /unexpected argument "extra"/],
    [['--port', '0', 'extra'], /unexpected argument "extra"/],
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
    expect(help.out[0]).toMatch(/^Usage: toy-sim \[serve\] \[options\]/);
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

  it('keeps an idle connection 65 s and says so, so that a pooled client closes it first', async () => {
    const running = await serve(createToySim().app);
    const agent = new http.Agent({ keepAlive: true });
    try {
      const hint = await new Promise<string | undefined>((resolve, reject) => {
        http
          .get(`${running.url}/_sim/health`, { agent }, (res) => {
            res.resume();
            const hint = res.headers['keep-alive'];
            resolve(Array.isArray(hint) ? hint.join(', ') : hint);
          })
          .on('error', reject);
      });
      expect(hint).toBe('timeout=65');
      expect(running.server.keepAliveTimeout).toBe(65_000);
    } finally {
      agent.destroy();
      await running.close();
    }
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

  it('exits 1 with one line naming the file when the state cannot be saved on SIGTERM', async () => {
    const dir = tmp();
    // A directory where the file should be: the save's rename cannot replace it.
    const stateFile = join(dir, 'state.json');
    const p = fakeProcess(['--port', '0', '--state-file', stateFile, '--admin-token', 't']);
    const a = await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: p.proc,
      start: startWithApp,
    });
    expect(a).toBeDefined();
    mkdirSync(stateFile);
    writeFileSync(join(stateFile, 'keep'), 'x');
    p.signals.get('SIGTERM')?.();
    await p.exitedPromise;
    expect(p.code()).toBe(1);
    expect(p.err).toEqual([expect.stringMatching(/^toy-sim: could not save the state to ".*state\.json": /)]);
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

/**
 * Runs `script` in a child Node process with the CLI module imported as `cli`: the not-found errors below
 * are Node's own loader's, which vitest's module runner does not reproduce.
 */
function inNode(script: string): { status: number | null; stdout: string; stderr: string } {
  const cliModule = pathToFileURL(fileURLToPath(new URL('../src/index.ts', import.meta.url))).href;
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', `import * as cli from '${cliModule}';\n${script}`],
    { encoding: 'utf8', timeout: 30_000 },
  );
}

describe('simulator CLI commands', () => {
  /** A command that records its arguments and answers with `code`, or throws `error`. */
  function recordingCommand(code: number, error?: Error) {
    const calls: string[][] = [];
    const command: CliCommand = {
      summary: 'checks things',
      usage: 'check [options] <things>...',
      run: async (argv, proc) => {
        calls.push(argv);
        if (error) throw error;
        proc.stdout(`checked ${argv.join(' ')}`);
        return code;
      },
    };
    return { command, calls };
  }
  const cli = (argv: string[], commands: Record<string, CliCommand>) => {
    const p = fakeProcess(argv);
    const done = runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 8085,
      proc: p.proc,
      commands,
      start,
    });
    return { p, done };
  };

  it('runs a named command with the arguments after its name and exits with its code', async () => {
    const check = recordingCommand(3);
    const { p, done } = cli(['check', '--flag', 'a', 'b'], { check: check.command });
    expect(await done).toBeUndefined();
    expect(check.calls).toEqual([['--flag', 'a', 'b']]);
    expect(p.out).toEqual(['checked --flag a b']);
    expect(p.code()).toBe(3);
  });

  it('serves when `serve` is named, as when no command is', async () => {
    const check = recordingCommand(0);
    const { p, done } = cli(['serve', '--port', '0', '--log', 'info'], { check: check.command });
    const running = await done;
    expect(p.out[0]).toMatch(/^toy-sim 1 ready at http:\/\/127\.0\.0\.1:\d+ /);
    expect((await fetch(`${running?.url}/_sim/health`)).status).toBe(200);
    p.signals.get('SIGTERM')?.();
    await p.exitedPromise;
    expect(p.code()).toBe(0);
    expect(check.calls).toEqual([]);
  });

  it("lists the commands in --help, and `help <command>` runs the command's own --help", async () => {
    const check = recordingCommand(0);
    const top = cli(['--help'], { check: check.command });
    await top.done;
    expect(top.p.code()).toBe(0);
    expect(top.p.out[0]).toMatch(
      /^Usage: toy-sim \[serve\] \[options\]\n {7}toy-sim check \[options\] <things>\.\.\./,
    );
    expect(top.p.out[0]).toMatch(/\n {2}serve +run the simulator/);
    expect(top.p.out[0]).toMatch(/\n {2}check +checks things\n/);
    expect(top.p.out[0]).toMatch(/--port <n>.*\(default 8085\)/);
    const sameAsHelp = cli(['help'], { check: check.command });
    await sameAsHelp.done;
    expect(sameAsHelp.p.out).toEqual(top.p.out);

    const serveHelp = cli(['serve', '--help'], { check: check.command });
    await serveHelp.done;
    expect(serveHelp.p.out[0]).toMatch(/^Usage: toy-sim \[serve\] \[options\]\n\nRuns the simulator/);
    expect(serveHelp.p.out[0]).not.toContain('check');

    const checkHelp = cli(['help', 'check'], { check: check.command });
    await checkHelp.done;
    expect(check.calls).toEqual([['--help']]);
    expect(checkHelp.p.code()).toBe(0);

    const unknown = cli(['help', 'nope'], { check: check.command });
    await unknown.done;
    expect(unknown.p.code()).toBe(2);
    expect(unknown.p.err[0]).toBe(`toy-sim: unknown command "nope"\nTry 'toy-sim --help'.`);
  });

  it('exits 2 when a command fails on usage and 1 when it fails otherwise, printing one line', async () => {
    const usage = cli(['check'], { check: recordingCommand(0, new CliUsageError('give things')).command });
    await usage.done;
    expect(usage.p.code()).toBe(2);
    expect(usage.p.err).toEqual(['toy-sim: give things']);
    // A lazily loaded command is a bundle with its own copy of CliUsageError: told by its name.
    class OtherCopyOfCliUsageError extends Error {
      override readonly name = 'CliUsageError';
    }
    const bundled = cli(['check'], {
      check: recordingCommand(0, new OtherCopyOfCliUsageError('install x')).command,
    });
    await bundled.done;
    expect(bundled.p.code()).toBe(2);
    const broken = cli(['check'], { check: recordingCommand(0, new Error('boom')).command });
    await broken.done;
    expect(broken.p.code()).toBe(1);
    expect(broken.p.err).toEqual(['toy-sim: boom']);
  });

  it.each([
    // As an ES module build meets a missing dist/verify/index.js.
    ['an import of a file', (dir: string) => `import('${pathToFileURL(join(dir, 'index.js')).href}')`],
    // As the CommonJS CLI bundle meets a missing dist/verify/index.cjs in the Docker image (decision 0031).
    [
      "the CLI bundle's require of a path",
      (dir: string) =>
        `Promise.resolve().then(() => createRequire(${JSON.stringify(join(dir, 'main.cjs'))})('./verify/index.cjs'))`,
    ],
  ])(
    'says in one line that a lazily loaded command is not part of a build that lacks its module (%s)',
    (_, load) => {
      const run = inNode(`
      import { createRequire } from 'node:module';
      const verify = cli.lazyCommand({ summary: 's', usage: 'verify', what: 'toy-sim verify', load: () => ${load(join(tmpdir(), 'sims-no-such-dir'))} });
      const proc = { ...cli.nodeProcess(), argv: ['verify', 'x'] };
      await cli.runSimulatorCli({ name: 'toy-sim', version: '1', defaultPort: 1, proc, commands: { verify }, start: () => { throw new Error('served'); } });
    `);
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toBe(
        'toy-sim: toy-sim verify is not part of this build (the Docker image leaves it out): run it from the npm package\n',
      );
    },
  );

  it('leaves a package a lazily loaded command requires missing as its own error', () => {
    const run = inNode(`
      import { createRequire } from 'node:module';
      const load = () => Promise.resolve().then(() => createRequire(import.meta.url)('@sims/not-installed'));
      const verify = cli.lazyCommand({ summary: 's', usage: 'verify', what: 'toy-sim verify', load });
      const proc = { ...cli.nodeProcess(), argv: ['verify', 'x'] };
      await cli.runSimulatorCli({ name: 'toy-sim', version: '1', defaultPort: 1, proc, commands: { verify }, start: () => { throw new Error('served'); } });
    `);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^toy-sim: Cannot find module '@sims\/not-installed'/);
  });

  it('says in one line what to install when an optional peer dependency is missing', () => {
    const run = inNode(`
      const need = { what: 'toy-sim verify', dependency: '@sims/not-installed', install: 'npm i -D @sims/not-installed' };
      const outcome = (p) => p.then(() => 'loaded', (e) => (e instanceof cli.CliUsageError ? 'usage: ' : 'other: ') + e.message);
      console.log(await outcome(cli.loadOptionalModule(() => import(need.dependency), need)));
      console.log(await outcome(cli.loadOptionalModule(() => import('@sims/also-missing'), need)));
      console.log(await outcome(cli.loadOptionalModule(() => import('node:path'), need)));
    `);
    expect(run.stdout.split('\n')).toEqual([
      'usage: toy-sim verify needs @sims/not-installed, an optional peer dependency: npm i -D @sims/not-installed',
      // Another missing module is the module's own failure, told as it is.
      expect.stringMatching(/^other: Cannot find package '@sims\/also-missing'/),
      'loaded',
      '',
    ]);
  });
});

describe('control plane open to the network', () => {
  it('is loopback for localhost, 127.0.0.0/8 and ::1 (also written out or IPv4-mapped), and nothing else', () => {
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      'localhost',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      '0.0.0.0',
      '::',
      '',
      '10.1.2.3',
      '192.168.0.7',
      '::ffff:10.0.0.1',
      'fe80::1',
      'sim.internal',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('warns, in several lines, when a non-loopback bind has no admin token', () => {
    const warning = openControlPlaneWarning({ name: 'toy-sim', host: '0.0.0.0', port: 8085 });
    expect(warning?.split('\n').length).toBeGreaterThan(2);
    expect(warning).toMatch(/^toy-sim: WARNING: the control plane is open to the network\.\n/);
    expect(warning).toContain('0.0.0.0 (every network interface), port 8085');
    expect(warning).toContain('--admin-token <token> or SIM_ADMIN_TOKEN=<token>');
    expect(warning).toContain('--host 127.0.0.1');
    expect(openControlPlaneWarning({ name: 'toy-sim', host: '10.0.0.5', port: 1 })).toContain(
      'listens on 10.0.0.5, port 1',
    );
    expect(openControlPlaneWarning({ name: 'toy-sim', host: '::', port: 1 })).toBeDefined();
    expect(openControlPlaneWarning({ name: 'toy-sim', host: '0.0.0.0', port: 1, adminToken: 't' })).toBe(
      undefined,
    );
    expect(openControlPlaneWarning({ name: 'toy-sim', host: '127.0.0.1', port: 1 })).toBeUndefined();
  });

  /** A `start` that binds nothing: its server reports the address a real one would have bound. */
  const startBoundTo = (address: string) => async (options: { port: number }) => ({
    url: `http://127.0.0.1:${options.port}`,
    port: 8085,
    host: address,
    server: { address: () => ({ address, family: 'IPv4', port: 8085 }) } as unknown as Server,
    close: async () => {},
  });

  it('prints the warning on stderr before the ready line, also at --log silent, and still starts', async () => {
    for (const log of ['info', 'silent']) {
      const p = fakeProcess(['--host', '0.0.0.0', '--log', log]);
      const running = await runSimulatorCli({
        name: 'toy-sim',
        version: '1',
        defaultPort: 8085,
        proc: p.proc,
        start: startBoundTo('0.0.0.0'),
      });
      expect(running).toBeDefined();
      expect(p.code()).toBeUndefined();
      expect(p.err).toEqual([openControlPlaneWarning({ name: 'toy-sim', host: '0.0.0.0', port: 8085 })]);
      expect(p.out).toHaveLength(log === 'info' ? 1 : 0);
    }
  });

  it('judges the address the server bound, and says nothing with a token or on loopback', async () => {
    // A host name is judged by what it resolved to.
    const named = fakeProcess(['--host', 'sim.example']);
    await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: named.proc,
      start: startBoundTo('127.0.1.1'),
    });
    expect(named.err).toEqual([]);
    const withToken = fakeProcess(['--host', '0.0.0.0', '--admin-token', 't']);
    await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: withToken.proc,
      start: startBoundTo('0.0.0.0'),
    });
    expect(withToken.err).toEqual([]);
    const tokenFromEnv = fakeProcess(['--host', '0.0.0.0'], { SIM_ADMIN_TOKEN: 't' });
    await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: tokenFromEnv.proc,
      start: startBoundTo('0.0.0.0'),
    });
    expect(tokenFromEnv.err).toEqual([]);
  });

  it('binds 0.0.0.0 for real and warns', async () => {
    const p = fakeProcess(['--host', '0.0.0.0', '--port', '0']);
    const running = await runSimulatorCli({
      name: 'toy-sim',
      version: '1',
      defaultPort: 1,
      proc: p.proc,
      start,
    });
    try {
      expect(p.err[0]).toContain(`listens on 0.0.0.0 (every network interface), port ${running?.port}`);
    } finally {
      await running?.close();
    }
  });
});

describe('limits from the command line', () => {
  it('reads --journal-max-bytes and --max-namespaces, or SIM_JOURNAL_MAX_BYTES and SIM_MAX_NAMESPACES', () => {
    const flags = parseCommonArgs(['--journal-max-bytes', '64MiB', '--max-namespaces', '50'], {}, 1).options;
    expect(flags).toMatchObject({ journalMaxBytes: 64 * 1024 * 1024, maxNamespaces: 50 });
    const env = { SIM_JOURNAL_MAX_BYTES: '512kib', SIM_MAX_NAMESPACES: '7' };
    expect(parseCommonArgs([], env, 1).options).toMatchObject({
      journalMaxBytes: 512 * 1024,
      maxNamespaces: 7,
    });
    expect(parseCommonArgs(['--journal-max-bytes', '1000'], env, 1).options.journalMaxBytes).toBe(1000);
    const none = parseCommonArgs([], {}, 1).options;
    expect('journalMaxBytes' in none || 'maxNamespaces' in none).toBe(false);
  });

  it.each([
    [['--journal-max-bytes', '64MB'], /invalid --journal-max-bytes "64MB": expected a number of bytes/],
    [['--journal-max-bytes=-1'], /invalid --journal-max-bytes "-1"/],
    [['--max-namespaces', '0'], /invalid --max-namespaces "0": expected an integer >= 1/],
    [['--max-namespaces', 'many'], /invalid --max-namespaces "many"/],
  ])('exits 2 on %j', async (argv, message) => {
    const p = fakeProcess(argv);
    await runSimulatorCli({ name: 'toy-sim', version: '1', defaultPort: 1, proc: p.proc, start });
    expect(p.code()).toBe(2);
    expect(p.err[0]).toMatch(message);
  });

  it('hands the kernel options to the simulator through cliKernelOptions, and --help lists the flags', async () => {
    const { options } = parseCommonArgs(
      [
        '--seed',
        's',
        '--clock',
        'manual',
        '--admin-token',
        't',
        '--journal-max-bytes',
        '1KiB',
        '--max-namespaces',
        '2',
      ],
      {},
      1,
    );
    expect(cliKernelOptions(options)).toEqual({
      seed: 's',
      clock: { mode: 'manual', speed: 1 },
      adminToken: 't',
      requestLog: undefined,
      journalMaxBytes: 1024,
      maxNamespaces: 2,
    });
    const { app } = createToySim(cliKernelOptions(options));
    const headers = { 'x-sim-admin-token': 't' };
    await app.request('/_ns/a/widgets/x');
    await app.request('/_ns/b/widgets/x');
    expect((await app.request('/_ns/c/widgets/x')).status).toBe(507);
    expect((await app.request('/_sim/namespaces', { headers })).status).toBe(200);
    const help = fakeProcess(['--help']);
    await runSimulatorCli({ name: 'toy-sim', version: '1', defaultPort: 1, proc: help.proc, start });
    expect(help.out[0]).toMatch(/--journal-max-bytes <n>\n.*\[SIM_JOURNAL_MAX_BYTES\]/s);
    expect(help.out[0]).toMatch(/--max-namespaces <n> .*\[SIM_MAX_NAMESPACES\]/s);
  });
});
