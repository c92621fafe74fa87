import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Options } from 'tsup';
import { expect, it } from 'vitest';
import { bundleInputs } from '../../../../tsup.shared';
import configs from '../../tsup.config';

const APP = fileURLToPath(new URL('../../', import.meta.url));
const bundle = (entry: string) => bundleInputs(configs as Options[], entry, APP);

it("bundles the Docker image's entry (src/main.ts) without pact or the verify command's code", async () => {
  const { inputs, externals } = await bundle('src/main.ts');
  expect(inputs.some((i) => i.includes('src/main.ts'))).toBe(true);
  expect(inputs.filter((i) => /pact|src\/verify\//.test(i))).toEqual([]);
  // `verify` is a load of the separate bundle, which the image's .dockerignore leaves out (dist/main.* only).
  expect(externals.filter((i) => !isBuiltin(i))).toEqual(['./verify/index.cjs']);
});

it('bundles the verify command with pact left to the installing project (an optional peer dependency)', async () => {
  const { inputs, externals } = await bundle('src/verify/cli.ts');
  expect(inputs.some((i) => i.includes('src/verify/provider.ts'))).toBe(true);
  expect(inputs.filter((i) => i.includes('@pact-foundation'))).toEqual([]);
  expect(externals).toContain('@pact-foundation/pact');
});
