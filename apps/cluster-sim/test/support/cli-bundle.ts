import type { Options } from 'tsup';

/**
 * Bundles the CLI as `pnpm build` does (the `main` build of tsup.config.ts: main.js, the loader; main.cjs and
 * its code cache, what the Docker image holds) into the folder named by the first argument.
 * Run as a child process with the app as its working directory (tsup reads it from there):
 * `node --import tsx test/support/cli-bundle.ts <out dir>`.
 */
const outDir = process.argv[2];
if (!outDir) throw new Error('usage: cli-bundle.ts <out dir>');
const { build } = await import('tsup');
const configs = (await import('../../tsup.config')).default as Options[];
const cli = configs.find((c) => Object.keys(c.entry ?? {}).includes('main'));
if (!cli) throw new Error('no build of the CLI (entry main) in tsup.config.ts');
await build({ ...cli, outDir, clean: true, silent: true, config: false, dts: false });
