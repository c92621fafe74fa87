import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportWorldSnapshot, importWorldSnapshot } from '@sims/sim-core';
import { killAll, SAVE_HELD, startCli } from '@sims/test-support/cli-process';
import { textDifference } from '@sims/test-support/snapshot-difference';
import { afterEach, describe, expect, it } from 'vitest';
import { createClusterSim } from '../src/app';

const started = new Set<ChildProcess>();
afterEach(() => killAll(started));

const CLUSTERS = 10_000;
/** Clusters seeded for real; the others are copies of them under names and ids of their own. */
const SEEDED = 40;
const REGIONS = ['us-central1', 'europe-west1', 'asia-east1'];
const name = (i: number) => `cluster-${String(i).padStart(5, '0')}`;

/** Clusters as a fleet has them: spread over projects and regions, labelled, three node pools each. */
function fleet(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    projectId: `team-${i % SEEDED}`,
    location: REGIONS[i % REGIONS.length],
    name: name(i),
    resourceLabels: { team: `team-${i % SEEDED}`, env: i % 2 ? 'prod' : 'staging' },
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
 * A state file of `count` clusters as the CLI saves one, made in-process: up to {@link SEEDED} clusters
 * seeded by the app itself (ids, address ranges, certificates, endpoints, three pools each) and loaded
 * once (a load puts a cluster's fields in the schema's order, as the next save writes them), then each
 * cluster `i` written as a copy of seeded cluster `i % SEEDED` with its own name and id (and what is
 * made of them: the DNS endpoint, the pod range's name, the pools' links). Copies share their
 * original's addresses: a load checks a snapshot's shape and keys, not its address plan. Seeding all
 * 10,000 took 7 s of CPU, through HTTP 20 s.
 */
function stateFileOf(count: number): { bytes: Buffer; clusters: { projectId: string; location: string }[] } {
  const sim = createClusterSim({ clock: { mode: 'manual' }, seed: 7 });
  try {
    const { def } = sim.kernel;
    def.seed(sim.world(), { clusters: fleet(Math.min(count, SEEDED)) });
    const loaded = sim.world('loaded');
    importWorldSnapshot(def, loaded, JSON.parse(JSON.stringify(exportWorldSnapshot(def, sim.world()))));
    const snapshot = { ...exportWorldSnapshot(def, loaded), namespace: 'default' };
    const state = snapshot.state as {
      clusters: { projectId: string; location: string; cluster: { id: string } }[];
    };
    const seeded = state.clusters.map((c) => ({ text: JSON.stringify(c), id8: c.cluster.id.slice(0, 8) }));
    const [head, tail, ...more] = JSON.stringify({ ...snapshot, state: { ...state, clusters: [] } }).split(
      '"clusters":[]',
    );
    expect(more).toEqual([]);
    // Bytes, not one string: the file is written and compared as it is, never encoded or decoded whole.
    const parts = [Buffer.from(`${head}"clusters":[`)];
    for (let i = 0; i < count; i++) {
      const { text, id8 } = seeded[i % seeded.length] as (typeof seeded)[number];
      const copy = text
        .replaceAll(name(i % seeded.length), name(i))
        .replaceAll(id8, (0x10000000 + i).toString(16));
      parts.push(Buffer.from(i ? `,${copy}` : copy));
    }
    parts.push(Buffer.from(`]${tail}`));
    return {
      bytes: Buffer.concat(parts),
      clusters: Array.from({ length: count }, (_, i) => state.clusters[i % state.clusters.length]!),
    };
  } finally {
    sim.close();
  }
}

const args = (file: string) => ['--port', '0', '--clock', 'manual', '--state-file', file];

describe('cluster-sim --state-file', () => {
  it('loads 10,000 clusters of three pools at start and saves them at SIGTERM, byte for byte', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cluster-sim-large-state-')), 'world.json');
    const { bytes, clusters } = stateFileOf(CLUSTERS);
    // Past the control plane's body limit: the state file must not go through it.
    expect(bytes.length).toBeGreaterThan(32 * 1024 * 1024);
    writeFileSync(file, bytes);

    const cli = await startCli('cluster-sim', args(file), started);
    // Served whole: the last cluster, its three pools.
    const last = clusters[CLUSTERS - 1]!;
    const res = await fetch(
      `${cli.url}/v1/projects/${last.projectId}/locations/${last.location}/clusters/${name(CLUSTERS - 1)}`,
      { headers: { authorization: 'Bearer t' } },
    );
    const cluster = (await res.json()) as { name: string; nodePools: { name: string }[] };
    expect(res.status).toBe(200);
    expect([cluster.name, ...cluster.nodePools.map((p) => p.name)]).toEqual([
      name(CLUSTERS - 1),
      'default-pool',
      'highmem',
      'spot',
    ]);
    expect(await cli.stop()).toBe(0);
    expect(textDifference(readFileSync(file), bytes)).toBeUndefined();
  }, 120_000);

  it('a SIGKILL during the save at SIGTERM leaves the previous file whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cluster-sim-killed-save-'));
    const file = join(dir, 'world.json');
    const { bytes } = stateFileOf(3);
    writeFileSync(file, bytes);
    const cli = await startCli('cluster-sim', args(file), started, { holdSaveBeforeRename: true });
    // A change (the clock), so that the save differs from the file.
    const advanced = await fetch(`${cli.url}/_sim/clock/advance`, {
      method: 'POST',
      body: JSON.stringify({ by: '1h' }),
    });
    expect(advanced.status).toBe(200);
    const changed = await (await fetch(`${cli.url}/_sim/state`)).text();
    expect(changed).not.toBe(bytes.toString());
    // The save writes the new world whole under a temporary name and is held before its rename.
    cli.child.kill('SIGTERM');
    await cli.printed(SAVE_HELD);
    const temporary = readdirSync(dir).filter((f) => f !== 'world.json');
    expect(temporary).toEqual([expect.stringMatching(/^\.world\.json\.\d+\.\d+\.tmp$/)]);
    expect(readFileSync(join(dir, temporary[0] as string), 'utf8')).toBe(changed);
    expect(await cli.kill()).toBe('SIGKILL');
    expect(readFileSync(file).equals(bytes), 'the file is the one saved before').toBe(true);
  }, 30_000);

  it('exits 2 naming the file, the byte offset and the member when the state file is cut short', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cluster-sim-cut-state-')), 'world.json');
    const text = '{"simulator":"cluster-sim","state":{"clusters":[{"na';
    writeFileSync(file, text);
    await expect(startCli('cluster-sim', ['--port', '0', '--state-file', file], started)).rejects.toThrow(
      `exited with 2: cluster-sim: state file "${file}": malformed JSON at byte ${text.length} (in state.clusters[0]): unexpected end of file (the file is cut short)`,
    );
  }, 30_000);
});
