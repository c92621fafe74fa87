import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Options } from 'tsup';
import { expect, it } from 'vitest';
import configs from '../../tsup.config';

const APP = fileURLToPath(new URL('../../', import.meta.url));

/** Bundles one of tsup.config.ts's builds into a temporary folder and returns the files it took in. */
async function inputsOf(entry: string): Promise<{ inputs: string[]; imports: string[] }> {
  const config = (configs as Options[]).find((c) => Object.values(c.entry ?? {}).includes(entry));
  if (!config) throw new Error(`no build of ${entry} in tsup.config.ts`);
  const out = mkdtempSync(join(tmpdir(), 'annotation-sim-bundle-'));
  const cwd = process.cwd();
  try {
    process.chdir(APP);
    await build({ ...config, outDir: out, metafile: true, silent: true, config: false, dts: false });
    const meta = JSON.parse(readFileSync(join(out, 'metafile-esm.json'), 'utf8')) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
    };
    const imports = Object.values(meta.outputs).flatMap((o) =>
      o.imports.filter((i) => i.external).map((i) => i.path),
    );
    return { inputs: Object.keys(meta.inputs), imports };
  } finally {
    process.chdir(cwd);
    rmSync(out, { recursive: true, force: true });
  }
}

it("bundles the Docker image's entry (src/main.ts) without pact or the verify command's code", async () => {
  const { inputs, imports } = await inputsOf('src/main.ts');
  expect(inputs.some((i) => i.includes('src/main.ts'))).toBe(true);
  expect(inputs.filter((i) => /pact|src\/verify\//.test(i))).toEqual([]);
  // `verify` is an import of the separate bundle, which the image's .dockerignore leaves out (dist/*.js only).
  expect(imports.filter((i) => !isBuiltin(i))).toEqual(['./verify/index.js']);
});

it('bundles the verify command with pact left to the installing project (an optional peer dependency)', async () => {
  const { inputs, imports } = await inputsOf('src/verify/cli.ts');
  expect(inputs.some((i) => i.includes('src/verify/provider.ts'))).toBe(true);
  expect(inputs.filter((i) => i.includes('@pact-foundation'))).toEqual([]);
  expect(imports).toContain('@pact-foundation/pact');
});
