// Figure 2 (in its own process): warm in-process start to the first 200, after everything is imported.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { serve } from '@hono/node-server';
import { startAnnotationSim } from '@sims/annotation-sim';
import { startClusterSim } from '@sims/cluster-sim';
import { Hono } from 'hono';

const runs = Number(process.argv[2] ?? 20);

function get200(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

async function honoStart() {
  const app = new Hono();
  app.get('*', (c) => c.json({ status: 'ok' }));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const subjects: Record<string, () => Promise<{ url: string; close: () => Promise<void> }>> = {
  hono: honoStart,
  'cluster-sim': () => startClusterSim({ port: 0 }),
  'annotation-sim': () => startAnnotationSim({ port: 0 }),
};
const result: Record<string, number[]> = {};
for (const startOne of Object.values(subjects)) {
  for (let i = 0; i < 3; i++) {
    const s = await startOne();
    await get200(`${s.url}/_sim/health`);
    await s.close();
  }
}
for (let i = 0; i < runs; i++) {
  for (const [name, startOne] of Object.entries(subjects)) {
    const t0 = performance.now();
    const s = await startOne();
    await get200(`${s.url}/_sim/health`);
    const ms = performance.now() - t0;
    await s.close();
    result[name] = [...(result[name] ?? []), ms];
  }
}
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
