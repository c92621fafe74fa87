import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, startCli } from './support/cli-process';

const started = new Set<ChildProcess>();
afterEach(() => killAll(started));

const CLUSTERS = 10_000;

/** Clusters as a fleet has them: spread over projects and regions, labelled, three node pools each. */
function fleet(count: number) {
  const regions = ['us-central1', 'europe-west1', 'asia-east1'];
  return Array.from({ length: count }, (_, i) => ({
    projectId: `team-${i % 40}`,
    location: regions[i % regions.length],
    name: `cluster-${i}`,
    resourceLabels: { team: `team-${i % 40}`, env: i % 2 ? 'prod' : 'staging' },
    nodePools: [
      {
        name: 'default-pool',
        initialNodeCount: 3,
        config: { machineType: 'e2-standard-4', diskSizeGb: 100, labels: { tier: 'general' } },
      },
      {
        name: 'highmem',
        initialNodeCount: 1,
        config: { machineType: 'n2-highmem-8', diskSizeGb: 200 },
        autoscaling: { enabled: true, minNodeCount: 1, maxNodeCount: 10 },
      },
      {
        name: 'spot',
        initialNodeCount: 2,
        config: {
          machineType: 'e2-standard-2',
          spot: true,
          taints: [{ key: 'spot', value: 'true', effect: 'NO_SCHEDULE' }],
        },
      },
    ],
  }));
}

/**
 * Where two snapshots differ, or undefined when they hold the same world. Member order aside: an import
 * puts a cluster's fields in the schema's order. Compared without vitest's diff, which a 100 MB world
 * would drown.
 */
function difference(a: string, b: string): string | undefined {
  if (a === b) return undefined;
  const [x, y] = [JSON.parse(a), JSON.parse(b)];
  if (isDeepStrictEqual(x, y)) return undefined;
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (key === 'state') continue;
    if (!isDeepStrictEqual(x[key], y[key]))
      return `${key}: ${JSON.stringify(x[key])} vs ${JSON.stringify(y[key])}`;
  }
  for (const key of new Set([...Object.keys(x.state), ...Object.keys(y.state)])) {
    const [p, q] = [x.state[key], y.state[key]];
    if (isDeepStrictEqual(p, q)) continue;
    if (!Array.isArray(p) || !Array.isArray(q) || p.length !== q.length)
      return `state.${key}: ${String(p?.length)} vs ${String(q?.length)} items`;
    const i = p.findIndex((item, n) => !isDeepStrictEqual(item, q[n]));
    return `state.${key}[${i}]: ${JSON.stringify(p[i])} vs ${JSON.stringify(q[i])}`;
  }
  return 'differ';
}

const stateOf = async (url: string) => (await fetch(`${url}/_sim/state`)).text();

describe('cluster-sim --state-file', () => {
  it('saves 10,000 clusters at SIGTERM and the next start loads them whole; a SIGKILL mid-save leaves that file whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cluster-sim-large-state-'));
    const file = join(dir, 'world.json');
    const args = ['--port', '0', '--clock', 'manual', '--seed', '7', '--state-file', file];

    const first = await startCli(args, started);
    const seeded = await fetch(`${first.url}/_sim/seed`, {
      method: 'POST',
      body: JSON.stringify({ clusters: fleet(CLUSTERS) }),
    });
    expect(seeded.status, await seeded.clone().text()).toBe(201);
    const saved = await stateOf(first.url);
    const savedBytes = Buffer.from(saved);
    // Past the control plane's body limit: the state file must not go through it.
    expect(savedBytes.length).toBeGreaterThan(32 * 1024 * 1024);
    expect(await first.stop()).toBe(0);
    expect(readFileSync(file).equals(savedBytes), 'the file holds what GET /_sim/state answered').toBe(true);

    const second = await startCli(args, started);
    expect(difference(await stateOf(second.url), saved)).toBeUndefined();

    // A change (the clock; a seed copies the whole world first), then a kill while it is being saved:
    // the temporary file appears, the process dies before the rename, and the file keeps, byte for
    // byte, the world the second start has just loaded from it.
    const advanced = await fetch(`${second.url}/_sim/clock/advance`, {
      method: 'POST',
      body: JSON.stringify({ by: '1h' }),
    });
    expect(advanced.status).toBe(200);
    const temp = /^\.world\.json\.\d+\.\d+\.tmp$/;
    const watcher = watch(dir);
    const killed = new Promise<NodeJS.Signals | null>((resolve) => {
      watcher.on('change', (_event, name) => {
        if (temp.test(String(name))) resolve(second.kill());
      });
    });
    second.child.kill('SIGTERM');
    expect(await killed).toBe('SIGKILL');
    watcher.close();
    expect(readdirSync(dir).filter((name) => temp.test(name))).toHaveLength(1);
    expect(readFileSync(file).equals(savedBytes), 'the file is the one saved before').toBe(true);
  }, 240_000);

  it('exits 2 naming the file, the byte offset and the member when the state file is cut short', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cluster-sim-cut-state-')), 'world.json');
    const text = '{"simulator":"cluster-sim","state":{"clusters":[{"na';
    writeFileSync(file, text);
    await expect(startCli(['--port', '0', '--state-file', file], started)).rejects.toThrow(
      `exited with 2: cluster-sim: state file "${file}": malformed JSON at byte ${text.length} (in state.clusters[0]): unexpected end of file (the file is cut short)`,
    );
  }, 30_000);
});
