import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markedBlocks, readme, repo } from './readme-blocks';

/** Every example file the README must show, one per delivery mode. */
const EXAMPLES = [
  'examples/test/in-process.test.ts',
  'examples/test/cli.test.ts',
  'examples/docker/run.sh',
  'examples/docker/compose.yaml',
  'examples/test/container/testcontainers.test.ts',
  'examples/ci/github-actions.yml',
];
const LANG: Record<string, string> = { ts: 'ts', sh: 'sh', yaml: 'yaml', yml: 'yaml' };

describe('README examples', () => {
  const blocks = markedBlocks(readme(), 'example');

  it('shows one example per delivery mode, each once', () => {
    expect(blocks.map((b) => b.value).sort()).toEqual([...EXAMPLES].sort());
  });

  it.each(blocks.map((b) => [b.value, b] as const))('quotes %s verbatim', (path, block) => {
    const file = readFileSync(join(repo, path), 'utf8').replace(/\n+$/, '');
    expect(block.lang, `the fence after README line ${block.line}`).toBe(LANG[path.split('.').pop() ?? '']);
    // On failure: copy the file into the block after README line `block.line` (or the other way round).
    expect(block.text).toBe(file);
  });
});

describe('README links', () => {
  it('points at files that exist', () => {
    const targets = [...readme().matchAll(/\]\(([^)#\s]+)\)/g)].map((m) => m[1] ?? '');
    const local = targets.filter((t) => !/^[a-z]+:/.test(t));
    expect(local).toContain('apps/cluster-sim/FIDELITY.md');
    expect(local).toContain('apps/annotation-sim/FIDELITY.md');
    expect(local).toContain('contracts/README.md');
    for (const target of local) expect.soft(existsSync(join(repo, target)), target).toBe(true);
  });
});
