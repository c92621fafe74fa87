import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeRun, expectExit, run, type Started, start } from './proc';

/** install-test/verdaccio: package.json and package-lock.json of the registry (verdaccio 6.8.0, pinned). */
const TOOL = fileURLToPath(new URL('../../verdaccio/', import.meta.url));

/** A free TCP port on 127.0.0.1 (closed again before it is returned). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Installs verdaccio into `dir` with `npm ci` from install-test/verdaccio's lockfile: outside the pnpm
 * workspace (its ~330 packages never weigh on `pnpm install --frozen-lockfile`), exactly the same tree every
 * run, and fast from the machine's npm cache.
 */
export async function installVerdaccio(
  dir: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(TOOL, file), join(dir, file));
  const r = await run(
    'npm',
    ['ci', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
    { cwd: dir, env, timeoutMs },
  );
  expectExit(r, 0, 'npm ci of verdaccio (install-test/verdaccio)');
  return join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
}

/** The configuration: anonymous publish and read of `@sims/*` only, no uplink, loopback only. */
function verdaccioConfig(dir: string, port: number): string {
  return `# install-test: a throwaway registry for @sims/* only
storage: ${join(dir, 'storage')}
plugins: ${join(dir, 'plugins')}
listen: 127.0.0.1:${port}
web:
  enable: false
auth:
  htpasswd:
    file: ${join(dir, 'htpasswd')}
    max_users: -1
# No uplinks: @sims/* comes only from what this run publishes; nothing else is served at all.
uplinks: {}
packages:
  '@sims/*':
    access: $all
    publish: $all
    unpublish: $all
publish:
  allow_offline: true
server:
  keepAliveTimeout: 60
log: { type: stdout, format: pretty, level: warn }
`;
}

export interface Registry {
  url: string;
  port: number;
  process: Started;
  stop(): Promise<void>;
}

/**
 * Starts verdaccio on 127.0.0.1 and a free port; resolves once `GET /-/ping` answers 200. A port taken
 * between choosing it and verdaccio binding it (EADDRINUSE) is retried with another.
 */
export async function startRegistry(
  bin: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Registry> {
  const deadline = performance.now() + timeoutMs;
  mkdirSync(join(dir, 'plugins'), { recursive: true });
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const config = join(dir, 'config.yaml');
    writeFileSync(config, verdaccioConfig(dir, port));
    const proc = start(process.execPath, [bin, '--config', config], { cwd: dir, env });
    const url = `http://127.0.0.1:${port}/`;
    const stop = async () => {
      proc.signal('SIGTERM');
      await proc.waitForExit(5_000);
    };
    let last = '';
    for (;;) {
      try {
        const res = await fetch(`${url}-/ping`, { signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        if (res.status === 200) return { url, port, process: proc, stop };
        last = `HTTP ${res.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      const exited = await Promise.race([proc.exited, sleep(200)]);
      if (exited) {
        if (/EADDRINUSE/.test(proc.output()) && attempt < 3) break;
        throw new Error(`verdaccio exited before it answered:\n${describeRun(exited)}`);
      }
      if (performance.now() > deadline) {
        proc.kill();
        throw new Error(
          `verdaccio did not answer ${url}-/ping within ${timeoutMs} ms (${last}):\n${proc.output()}`,
        );
      }
    }
  }
}

function sleep(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(resolve, ms, undefined));
}
