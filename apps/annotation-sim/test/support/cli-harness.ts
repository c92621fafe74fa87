/**
 * The harness of harness.ts, served by the built CLI: one `annotation-sim` process per test file, bundled
 * as `pnpm build` bundles dist/main.js, each test in a namespace of its own, everything over real HTTP.
 * Seeding, the clock, deliveries and state go through the control plane (`/_sim/…`), so what a test
 * asserts is what a client of the binary sees: serialization, headers, content types, the Host a URL is
 * built from. Why a bundle of these sources and not dist/: docs/decisions/0027-ported-tests-on-the-cli.md.
 *
 * @example
 * const cli = cliHarness();
 * let h: CliHarness;
 * beforeEach(async () => { h = await cli.fresh(); });
 */

import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CliProcess, killAll, startCli } from '@sims/test-support/cli-process';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { SeedInput } from '../../src/domain/seed';
import { type HarnessResponse, type RequestOptions, verbs } from './harness';

const APP = fileURLToPath(new URL('../../', import.meta.url));
const ROOT = join(APP, '../../');
/** The in-process harness's start instant and seed (harness.ts). */
const START = '2026-01-01T00:00:00Z';
const SEED = '42';

/** What went into the bundle: the app's and the workspace packages' sources, the build setup and the CLI's loader, the lockfile. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const roots = [
    join(APP, 'src'),
    ...readdirSync(join(ROOT, 'packages')).map((p) => join(ROOT, 'packages', p, 'src')),
  ];
  const files = roots.flatMap((root) =>
    existsSync(root)
      ? readdirSync(root, { recursive: true, withFileTypes: true })
          .filter((d) => d.isFile())
          .map((d) => join(d.parentPath, d.name))
      : [],
  );
  files.push(
    join(APP, 'tsup.config.ts'),
    join(ROOT, 'tsup.shared.ts'),
    join(ROOT, 'scripts/cli-loader.js'),
    join(ROOT, 'pnpm-lock.yaml'),
  );
  for (const file of files.sort()) hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

const PREFIX = 'sims-annotation-sim-cli-';
const DAY = 24 * 60 * 60 * 1000;

/** Removes the bundles of older sources (and builds cut short) left for a day: a run may still use one. */
function pruneBundles(keep: string): void {
  for (const name of readdirSync(tmpdir())) {
    const path = join(tmpdir(), name);
    if (!name.startsWith(PREFIX) || path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > DAY) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

let bundled: Promise<string> | undefined;

/**
 * The CLI bundled from the sources as they are now (tsup.config.ts's `main` build, alone in a folder as
 * the Docker image holds it), once per change of the sources: kept in the temporary folder under their
 * hash, so the files of a run, and the runs after it, share one bundle.
 */
function builtCli(): Promise<string> {
  bundled ??= (async () => {
    const dir = join(tmpdir(), `${PREFIX}${sourcesHash()}`);
    const main = join(dir, 'main.js');
    if (existsSync(main)) {
      // In use: not a bundle for another run's prune to take.
      utimesSync(dir, new Date(), new Date());
      return main;
    }
    const { build } = await import('tsup');
    const configs = (await import('../../tsup.config')).default as import('tsup').Options[];
    const cli = configs.find((c) => Object.keys(c.entry ?? {}).includes('main'));
    if (!cli) throw new Error('no build of the CLI (entry main) in tsup.config.ts');
    // Built aside and renamed into place: a file running at the same time sees a whole bundle or none.
    const out = mkdtempSync(`${dir}.part-`);
    await build({
      ...cli,
      entry: { main: join(APP, 'src/main.ts') },
      outDir: out,
      clean: true,
      silent: true,
      config: false,
      dts: false,
    });
    try {
      renameSync(out, dir);
    } catch {
      // Another file renamed its bundle first: the same sources, so the same bundle.
      rmSync(out, { recursive: true, force: true });
    }
    pruneBundles(dir);
    return main;
  })();
  return bundled;
}

/** Keeps one connection open to the CLI between requests, as a client would. */
const agent = new Agent({ keepAlive: true });

function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/** One HTTP exchange with the CLI: what node:http sends (so a test may set `Host`), the bytes answered. */
function exchange(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Uint8Array | string,
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: headers as IncomingHttpHeaders, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode as number,
          headers: headersOf(res.rawHeaders),
          bytes: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Starts the built CLI before the file's tests (`--port 0 --clock manual --seed 42`) and stops it after;
 * `fresh()` gives each test a namespace of its own, its clock at the in-process harness's start.
 */
export function cliHarness() {
  const started = new Set<ChildProcess>();
  let cli: CliProcess | undefined;
  let count = 0;
  const open: CliHarness[] = [];
  const kept: CliHarness[] = [];
  beforeAll(async () => {
    const main = await builtCli();
    cli = await startCli('annotation-sim', ['--port', '0', '--clock', 'manual', '--seed', SEED], started, {
      main,
    });
  }, 120_000);
  afterEach(async () => {
    for (const h of open.splice(0)) await h.close();
  });
  afterAll(async () => {
    for (const h of kept.splice(0)) await h.close();
    await cli?.stop();
    killAll(started);
  });
  return {
    /**
     * A harness of a new namespace (`t1`, `t2`, …), closed after the test; with `forFile`, kept for the
     * file's tests (made in a `beforeAll`, as a class fixture of CVAT's tests is).
     */
    async fresh(opts: { forFile?: boolean } = {}): Promise<CliHarness> {
      if (!cli) throw new Error('the CLI did not start (see beforeAll)');
      const h = namespaceHarness(cli.url, `t${++count}`);
      (opts.forFile ? kept : open).push(h);
      const clock = await h.request('PATCH', '/_sim/clock', { body: { set: START } });
      if (clock.status !== 200) throw new Error(`PATCH /_sim/clock: ${clock.status} ${clock.text}`);
      return h;
    },
  };
}

/** The in-process harness's calls, over HTTP to the namespace `namespace` of the CLI at `url`. */
function namespaceHarness(url: string, namespace: string) {
  const passwords = new Map<string, string>([['admin', 'admin']]);

  function credentials(opts: { as?: string; token?: string }): Record<string, string> {
    if (opts.token) return { authorization: `Token ${opts.token}` };
    if (!opts.as) return {};
    const pair = `${opts.as}:${passwords.get(opts.as) ?? 'password'}`;
    return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
  }

  async function request(method: string, path: string, opts: RequestOptions = {}): Promise<HarnessResponse> {
    const headers: Record<string, string> = {
      'x-sim-namespace': namespace,
      ...(opts.headers ?? {}),
      ...credentials(opts),
    };
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await exchange(`${url}${path}`, method, headers, body);
    const text = res.bytes.toString('utf8');
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  async function control(method: string, path: string, body?: unknown) {
    const res = await request(method, `/_sim${path}`, { body });
    if (res.status >= 300) throw new Error(`${method} /_sim${path}: ${res.status} ${res.text}`);
    return res.body;
  }

  return {
    /** The CLI's address: URLs in its answers start with it. */
    url,
    namespace,
    request,
    ...verbs(request),
    /** Bytes as they are (a multipart form, a TUS chunk) as `user`, answered as a fetch Response. */
    async send(
      method: string,
      path: string,
      user: string,
      headers: Record<string, string>,
      body?: Uint8Array,
    ): Promise<Response> {
      const res = await exchange(
        `${url}${path}`,
        method,
        { 'x-sim-namespace': namespace, ...credentials({ as: user }), ...headers },
        body,
      );
      const empty = res.status === 204 || res.status === 304;
      return new Response(empty ? null : res.bytes, { status: res.status, headers: res.headers });
    },
    /** `POST /_sim/seed`: what the in-process harness's `seed` returns. */
    async seed(input: SeedInput) {
      for (const u of input.users ?? []) passwords.set(u.username, u.password ?? 'password');
      const res = (await control('POST', '/seed', input)) as {
        seeded: {
          users: Record<string, number>;
          organizations: Record<string, number>;
          projects: Record<string, number>;
          tasks: Record<string, { id: number; jobs: number[] }>;
          webhooks: number[];
        };
      };
      return res.seeded;
    },
    /** `POST /_sim/clock/advance`. */
    async advance(by: string | number) {
      await control('POST', '/clock/advance', { by });
    },
    /** `POST /_sim/deliveries/idle`. */
    idle: () => control('POST', '/deliveries/idle'),
    /** The world as `GET /_sim/state` exports it (each table a list of `[key, value]`). */
    // biome-ignore lint/suspicious/noExplicitAny: tests read snapshots freely
    state: async (): Promise<Record<string, any[]>> =>
      ((await control('GET', '/state')) as { state: never }).state,
    /** The operation of the newest request the journal holds (`GET /_sim/journal?limit=1`). */
    async lastOperation(): Promise<string | undefined> {
      const { entries } = (await control('GET', '/journal?limit=1')) as { entries: { operation?: string }[] };
      return entries.at(-1)?.operation;
    },
    /** Deletes the namespace. */
    async close() {
      await request('DELETE', `/_sim/namespaces/${namespace}`);
    },
  };
}

export type CliHarness = ReturnType<typeof namespaceHarness>;
