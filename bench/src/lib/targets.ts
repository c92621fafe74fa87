import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, until200 } from './http';
import { start } from './proc';

const require = createRequire(import.meta.url);
export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const REPO = resolve(BENCH_DIR, '..');
export const CACHE = join(BENCH_DIR, '.cache');

const WIREMOCK_JAR = join(
  dirname(require.resolve('wiremock/package.json')),
  'build/wiremock-standalone-3.13.2.jar',
);

export interface Running {
  name: string;
  url: string;
  port: number;
  child: ChildProcess;
}

export type Kind = 'node-http' | 'hono' | 'cluster-sim' | 'annotation-sim' | 'wiremock' | 'prism';

export interface PrismSetup {
  node: string;
  cli: string;
  schema: string;
}

/** `BENCH_CPU_PROF=<dir>`: the simulators run under `node --cpu-prof` (a profile per process, written on SIGTERM). */
const profileArgs = (): string[] => [
  ...(process.env.BENCH_SIM_FLAGS ? process.env.BENCH_SIM_FLAGS.split(' ') : []),
  ...(process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', resolve(process.env.BENCH_CPU_PROF)]
    : []),
];

/** The command that starts `kind` on `port` (every one binds 127.0.0.1 only). */
export function command(
  kind: Kind,
  port: number,
  prism?: PrismSetup,
  extra: string[] = [],
): [string, string[]] {
  switch (kind) {
    case 'node-http':
      return [process.execPath, [join(BENCH_DIR, 'src/servers/bare-http.mjs'), String(port)]];
    case 'hono':
      return [process.execPath, [join(BENCH_DIR, 'src/servers/bare-hono.mjs'), String(port)]];
    case 'cluster-sim':
      return [
        process.execPath,
        [
          ...profileArgs(),
          join(REPO, 'apps/cluster-sim/dist/main.js'),
          '--port',
          String(port),
          '--host',
          '127.0.0.1',
          ...extra,
        ],
      ];
    case 'annotation-sim':
      return [
        process.execPath,
        [
          ...profileArgs(),
          join(REPO, 'apps/annotation-sim/dist/main.js'),
          '--port',
          String(port),
          '--host',
          '127.0.0.1',
          ...extra,
        ],
      ];
    case 'wiremock':
      return [
        'java',
        ['-jar', WIREMOCK_JAR, '--port', String(port), '--bind-address', '127.0.0.1', '--disable-banner'],
      ];
    case 'prism':
      if (!prism) throw new Error('prism is not set up');
      return [prism.node, [prism.cli, 'mock', '-h', '127.0.0.1', '-p', String(port), prism.schema]];
  }
}

/** The path each kind answers 200 on once it is ready, and the headers it needs. */
export function healthOf(kind: Kind): { path: string; headers: Record<string, string> } {
  switch (kind) {
    case 'cluster-sim':
    case 'annotation-sim':
      return { path: '/_sim/health', headers: {} };
    case 'wiremock':
      return { path: '/__admin/health', headers: {} };
    case 'prism':
      return { path: '/api/tasks/1', headers: { authorization: 'Token bench' } };
    default:
      return { path: '/', headers: {} };
  }
}

export function checkBuilt(): void {
  for (const app of ['cluster-sim', 'annotation-sim']) {
    const file = join(REPO, 'apps', app, 'dist/main.js');
    if (!existsSync(file))
      throw new Error(`${file} is missing: run \`pnpm build\` (turbo's bench task does)`);
  }
}

/** How {@link launch} starts a Node-based server besides its command line. */
export interface LaunchOptions {
  /** Node flags before the script (e.g. `--expose-gc`, `--import <preload>`). */
  nodeArgs?: string[];
  /** Opens an IPC channel to the child (`child.send`, `process.send` there). */
  ipc?: boolean;
}

/** Starts `kind` on a free port and waits for its first 200. */
export async function launch(
  kind: Kind,
  prism?: PrismSetup,
  extra: string[] = [],
  options: LaunchOptions = {},
): Promise<Running> {
  const port = await freePort();
  const [cmd, args] = command(kind, port, prism, extra);
  const child = start(cmd, [...(options.nodeArgs ?? []), ...args], {
    cwd: REPO,
    env: { ...process.env, SCARF_ANALYTICS: 'false' },
    ...(options.ipc ? { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] } : {}),
  });
  const health = healthOf(kind);
  const url = `http://127.0.0.1:${port}`;
  const failed = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`${kind} exited (${code}): ${child.stderrText().slice(-1500)}`)),
    ),
  );
  failed.catch(() => {});
  await Promise.race([until200(url + health.path, health.headers, 90_000), failed]);
  return { name: kind, url, port, child };
}
