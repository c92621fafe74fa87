import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Options } from 'tsup';
import { expect, it } from 'vitest';
import config from '../../tsup.config';

const APP = fileURLToPath(new URL('../../', import.meta.url));

it("bundles the Docker image's entry (src/main.ts, as tsup.config.ts says) without pact or the verify command", async () => {
  const out = mkdtempSync(join(tmpdir(), 'annotation-sim-bundle-'));
  const cwd = process.cwd();
  try {
    process.chdir(APP);
    await build({ ...(config as Options), outDir: out, metafile: true, silent: true, config: false });
    const meta = JSON.parse(readFileSync(join(out, 'metafile-esm.json'), 'utf8')) as {
      inputs: Record<string, unknown>;
    };
    const inputs = Object.keys(meta.inputs);
    expect(inputs.some((i) => i.includes('src/main.ts'))).toBe(true);
    expect(inputs.filter((i) => /pact|src\/verify\//.test(i))).toEqual([]);
  } finally {
    process.chdir(cwd);
    rmSync(out, { recursive: true, force: true });
  }
});
