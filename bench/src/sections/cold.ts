import { performance } from 'node:perf_hooks';
import { freePort, until200 } from '../lib/http';
import { start, stop } from '../lib/proc';
import { type Spread, spread } from '../lib/stats';
import { command, healthOf, type Kind, type PrismSetup, REPO } from '../lib/targets';

/** Figure 1: process spawn to the first 200 on the health path, `runs` times each, interleaved. */
export async function coldStart(
  kinds: Kind[],
  runs: Partial<Record<Kind, number>>,
  prism?: PrismSetup,
): Promise<Record<string, Spread & { samples: number[] }>> {
  const samples: Record<string, number[]> = {};
  const max = Math.max(...kinds.map((k) => runs[k] ?? 0));
  for (let i = 0; i < max; i++) {
    for (const kind of kinds) {
      if (i >= (runs[kind] ?? 0)) continue;
      const port = await freePort();
      const [cmd, args] = command(kind, port, prism);
      const health = healthOf(kind);
      const t0 = performance.now();
      const child = start(cmd, args, { cwd: REPO, env: { ...process.env, SCARF_ANALYTICS: 'false' } });
      try {
        await until200(`http://127.0.0.1:${port}${health.path}`, health.headers, 90_000, 1);
        const list = samples[kind] ?? [];
        list.push(performance.now() - t0);
        samples[kind] = list;
      } finally {
        await stop(child);
      }
    }
  }
  const out: Record<string, Spread & { samples: number[] }> = {};
  for (const [k, v] of Object.entries(samples))
    out[k] = { ...spread(v), samples: v.map((x) => Math.round(x * 10) / 10) };
  return out;
}
