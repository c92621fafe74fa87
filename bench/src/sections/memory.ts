import { json } from '../lib/http';
import { load } from '../lib/load';
import { rssMb, stop } from '../lib/proc';
import { launch, type Running } from '../lib/targets';
import { CLUSTER_AUTH, CVAT_AUTH, POOL_PATH, seedAnnotation, seedCluster } from './throughput';

const settle = () => new Promise((r) => setTimeout(r, 1_000));

/** Figure 7: idle RSS of each simulator (fresh CLI process, seeded), then with a full 10,000-entry journal. */
export async function memory(opts: { fill: number }) {
  const out: Record<string, { idleMb: number; fullJournalMb: number; journal: unknown }> = {};
  for (const kind of ['cluster-sim', 'annotation-sim'] as const) {
    let sim: Running | undefined;
    try {
      sim = await launch(kind);
      if (kind === 'cluster-sim') await seedCluster(sim.url);
      else await seedAnnotation(sim.url);
      await settle();
      const idleMb = rssMb(sim.child.pid as number);
      const path = kind === 'cluster-sim' ? POOL_PATH : '/api/tasks/1';
      await load({
        url: sim.url + path,
        headers: kind === 'cluster-sim' ? CLUSTER_AUTH : CVAT_AUTH,
        amount: opts.fill,
        connections: 10,
      });
      await settle();
      const fullJournalMb = rssMb(sim.child.pid as number);
      const journal = (await json<{ stats: unknown }>(`${sim.url}/_sim/journal?limit=1`)).stats;
      out[kind] = { idleMb, fullJournalMb, journal };
    } finally {
      if (sim) await stop(sim.child);
    }
  }
  return out;
}
