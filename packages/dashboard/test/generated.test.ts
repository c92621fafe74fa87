import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without declarations
import { buildAssets, packageRoot } from '../scripts/assets.mjs';

describe('the generated dashboard modules', () => {
  it('are what packages/dashboard/src builds (run `pnpm --filter @sims/dashboard build-ui` when this fails)', async () => {
    const built = (await buildAssets()) as Map<string, string>;
    expect(built.size).toBe(2);
    for (const [path, text] of built) {
      const committed = await readFile(path, 'utf8').catch(() => '(missing)');
      expect(committed === text, `${relative(packageRoot, path)} is stale`).toBe(true);
      // Small enough to ship in every package and image (the JS runtime is Hono's JSX DOM, ~10 KB).
      expect(text.length).toBeLessThan(120 * 1024);
    }
  });
});
