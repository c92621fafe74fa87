import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type MarkedBlock, markedBlocks, readme, repo } from './readme-blocks';

/** Every example file the README must show, one per delivery mode. */
const EXAMPLES = [
  'examples/test/in-process.test.ts',
  'examples/jest/simulators.test.cjs',
  'examples/test/cli.test.ts',
  'examples/docker/run.sh',
  'examples/docker/compose.yaml',
  'examples/test/container/testcontainers.test.ts',
  'examples/ci/github-actions.yml',
];
const LANG: Record<string, string> = { ts: 'ts', cjs: 'js', sh: 'sh', yaml: 'yaml', yml: 'yaml' };

/** The block after a marker is its file, verbatim, in a fence of the file's language. */
function expectQuoted(path: string, block: MarkedBlock, readmePath: string): void {
  const file = readFileSync(join(repo, path), 'utf8').replace(/\n+$/, '');
  expect(block.lang, `the fence after ${readmePath} line ${block.line}`).toBe(
    LANG[path.split('.').pop() ?? ''],
  );
  // On failure: copy the file into the block after README line `block.line` (or the other way round).
  expect(block.text).toBe(file);
}

describe('README examples', () => {
  const blocks = markedBlocks(readme(), 'example');

  it('shows one example per delivery mode, each once', () => {
    expect(blocks.map((b) => b.value).sort()).toEqual([...EXAMPLES].sort());
  });

  it.each(blocks.map((b) => [b.value, b] as const))('quotes %s verbatim', (path, block) => {
    expectQuoted(path, block, 'README.md');
  });
});

describe("cluster-sim README's examples", () => {
  const readmePath = 'apps/cluster-sim/README.md';
  const blocks = markedBlocks(readFileSync(join(repo, readmePath), 'utf8'), 'example');

  it('shows the Node gRPC client example in "gRPC clients"', () => {
    expect(blocks.map((b) => b.value)).toEqual(['examples/test/grpc-client.test.ts']);
  });

  it.each(blocks.map((b) => [b.value, b] as const))('quotes %s verbatim', (path, block) => {
    expectQuoted(path, block, readmePath);
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

describe('README CLI section', () => {
  const section = readme().split('### CLI')[1]?.split('<!-- example:')[0] ?? '';
  const flags = [...section.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1] ?? '');
  const envs = [...section.matchAll(/`(SIM_[A-Z_]+)`/g)].map((m) => m[1] ?? '');

  it.each(['cluster-sim', 'annotation-sim'])('names only flags that `%s --help` lists', (app) => {
    const help = execFileSync('node', ['--import', 'tsx', `apps/${app}/src/main.ts`, '--help'], {
      cwd: repo,
      encoding: 'utf8',
    });
    expect(flags.length).toBeGreaterThanOrEqual(9);
    for (const flag of flags) expect.soft(help, flag).toMatch(new RegExp(`${flag}(?![a-z-])`));
  });

  it("names only environment variables annotation-sim's main.ts reads", () => {
    const main = readFileSync(join(repo, 'apps/annotation-sim/src/main.ts'), 'utf8');
    for (const name of envs) expect.soft(main, name).toContain(`process.env.${name}`);
  });
});
