import { delimiter, resolve, sep } from 'node:path';

/**
 * The environment of a user's shell, as far as it can be had from inside `pnpm run` / turbo / vitest: the
 * workspace's `node_modules/.bin` folders leave PATH, and the variables pnpm, npm, turbo, vitest and the
 * shared vitest config set (`npm_*`, `PNPM_*`, `TURBO_*`, `VITEST*`, `NODE_OPTIONS` with the workspace's
 * `@sims/source` condition, `NODE_ENV=test`, vite's `MODE`, `DEV`…, `INIT_CWD`) are dropped, so that
 * nothing of the repository leaks into the scratch project. `extra` is added last.
 */
export function userEnv(repoRoot: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const root = resolve(repoRoot) + sep;
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    const k = key.toLowerCase();
    if (k.startsWith('npm_') || k.startsWith('pnpm_') || k.startsWith('vitest') || k.startsWith('turbo_')) {
      continue;
    }
    // vite/vitest's own (MODE, DEV, PROD, SSR, BASE_URL, FORCE_TTY, TEST), and node options of the workspace.
    const dropped = ['node_options', 'node_env', 'init_cwd', 'node_path', 'tsx_tsconfig_path', 'test'];
    if ([...dropped, 'mode', 'dev', 'prod', 'ssr', 'base_url', 'force_tty'].includes(k)) {
      continue;
    }
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && !(resolve(dir) + sep).startsWith(root))
    .join(delimiter);
  return { ...env, ...extra };
}
