import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliProcess, cliKernelOptions, runSimulatorCli } from '@sims/sim-core';
import { describe, expect, it } from 'vitest';
import { startAnnotationSim } from '../src/app';
import { aWebhook } from './support/builders';
import { createHarness, type Harness } from './support/harness';

/** Deliveries answered 200 without a network. */
const sender = async () => ({ kind: 'response' as const, status: 200, body: 'ok' });

/** `{"a":{"a":…{"x":1}}}`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { x: 1 };
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

/** The API's own depth (CVAT's: Python's recursion limit), from the definition. */
function apiDepth(h: Harness): number {
  return h.sim.kernel.def.limits?.maxJsonDepth as number;
}

/**
 * Organization `deep` with a contact of `levels` levels, kept as given, and a delivery of its update
 * carrying it 8 levels down a snapshot (`deliveries[i][1].request.organization.contact`), the deepest
 * place a snapshot puts a value the API took.
 */
async function deepWorld(h: Harness, levels: number): Promise<void> {
  const org = await h.post('/api/organizations', { slug: 'deep', contact: nested(levels) }, { as: 'admin' });
  expect(org.status, org.text).toBe(201);
  const hook = aWebhook().forOrganization().withEvents('update:organization').build();
  expect((await h.post('/api/webhooks?org=deep', hook, { as: 'admin' })).status).toBe(201);
  expect(
    (await h.patch(`/api/organizations/${org.body.id}`, { name: 'changed' }, { as: 'admin' })).status,
  ).toBe(200);
  await h.idle();
}

/** annotation-sim's CLI in-process, as `src/main.ts` runs it: output, exit code and SIGTERM at hand. */
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
    name: 'annotation-sim',
    version: '1',
    defaultPort: 1,
    proc,
    start: async (options) => {
      const sim = await startAnnotationSim({
        ...cliKernelOptions(options),
        port: options.port,
        host: options.host,
        sender,
      });
      const { url, port, server, app, kernel, close } = sim;
      return { url, port, host: options.host, server, app, kernel, close };
    },
  });
  return {
    running,
    err,
    code: () => code,
    get: async (path: string) => (await fetch(`${running?.url}${path}`, { headers: ADMIN })).text(),
    /** SIGTERM, then the exit code. */
    async stop() {
      signals.get('SIGTERM')?.();
      await exit;
      return code;
    },
  };
}
const ADMIN = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };

const tmp = () => mkdtempSync(join(tmpdir(), 'annotation-deep-state-'));

describe('a world holding JSON as deep as the API takes', () => {
  it('is taken back by PUT /_sim/state: a 300-level organization contact and one at the API limit, with their deliveries', async () => {
    for (const levels of [300, 999]) {
      const h = createHarness({ sender });
      // The deepest contact the API takes: `{"contact": …}` nested as deep as its limit.
      expect(levels).toBeLessThanOrEqual(apiDepth(h) - 1);
      await deepWorld(h, levels);
      const saved = await h.get('/_sim/state');
      h.close();
      const other = createHarness({ sender });
      const put = await other.request('PUT', '/_sim/state', { raw: saved.text });
      expect(put.status, put.text.slice(0, 300)).toBe(200);
      // The same world (a load puts a record's fields in its schema's order).
      expect(JSON.parse((await other.get('/_sim/state')).text)).toEqual(JSON.parse(saved.text));
      const org = await other.get('/api/organizations/1', { as: 'admin' });
      expect(org.body.contact).toEqual(nested(levels));
      other.close();
    }
  });

  it('is loaded from --state-file by the CLI, and saved again at SIGTERM in a file that loads', async () => {
    const h = createHarness({ sender });
    await deepWorld(h, apiDepth(h) - 1);
    const answered = await h.get('/_sim/state');
    h.close();
    const file = join(tmp(), 'world.json');
    writeFileSync(file, answered.text);
    const first = await startCli(['--state-file', file, '--clock', 'manual']);
    expect(first.err).toEqual([]);
    expect(first.code()).toBeUndefined();
    const loaded = JSON.parse(await first.get('/_sim/state'));
    expect(loaded.state).toEqual(JSON.parse(answered.text).state);
    expect(await first.stop()).toBe(0);
    const second = await startCli(['--state-file', file, '--clock', 'manual']);
    expect(second.err).toEqual([]);
    expect(JSON.parse(await second.get('/_sim/state')).state).toEqual(loaded.state);
    expect(await second.stop()).toBe(0);
  });

  it('exits 2 for a state file nested past its limit, saying so with a short path, not "malformed"', async () => {
    const h = createHarness();
    const snapshot = JSON.parse((await h.get('/_sim/state')).text);
    const limit = apiDepth(h) + 16;
    h.close();
    snapshot.state.organizations = [
      [
        1,
        {
          id: 1,
          slug: 'deep',
          name: '',
          description: '',
          contact: nested(limit),
          owner_id: 1,
          created_date: '2026-01-01T00:00:00Z',
          updated_date: '2026-01-01T00:00:00Z',
        },
      ],
    ];
    const file = join(tmp(), 'world.json');
    writeFileSync(file, JSON.stringify(snapshot));
    const cli = await startCli(['--state-file', file]);
    expect(cli.running).toBeUndefined();
    expect(cli.code()).toBe(2);
    expect(cli.err).toHaveLength(1);
    expect(cli.err[0]).toMatch(
      new RegExp(
        `^annotation-sim: state file ".*world\\.json": JSON nested deeper than ${limit} levels \\(the simulator's limit\\) at byte \\d+ \\(in state\\.organizations\\[0\\]\\[1\\]\\.contact\\.a\\.a\\.a\\.a\\.a … a\\.a\\.a \\(${limit} levels\\)\\)$`,
      ),
    );
  });
});
