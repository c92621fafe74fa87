// Figure 4 (in its own process): the full client cycle under the manual clock, over a real socket:
// get → update (with the etag just read) → poll (not DONE yet) → advance → poll (DONE).
import http from 'node:http';
import { startClusterSim } from '@sims/cluster-sim';

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 5);
const sim = await startClusterSim({ port: 0, clock: { mode: 'manual' } });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const AUTH = { authorization: 'Bearer bench', 'content-type': 'application/json' };

function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${sim.url}${path}`, { method, headers: AUTH, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : {} });
      });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

await call('POST', '/_sim/seed', {
  clusters: [{ projectId: 'p', location: 'l', name: 'c', nodePools: [{ name: 'np' }] }],
});
const POOL = '/v1beta1/projects/p/locations/l/clusters/c/nodePools/np';
const images = ['UBUNTU_CONTAINERD', 'COS_CONTAINERD'];
let n = 0;
async function cycle() {
  const pool = await call('GET', POOL);
  if (pool.status !== 200) throw new Error(`get ${pool.status}`);
  const op = await call('PUT', POOL, { imageType: images[n++ % 2], etag: pool.json.etag });
  if (op.status !== 200) throw new Error(`update ${op.status} ${JSON.stringify(op.json)}`);
  const opPath = `/v1beta1/projects/p/locations/l/operations/${op.json.name}`;
  const running = await call('GET', opPath);
  if (running.json.status === 'DONE') throw new Error('done before the clock moved');
  const adv = await call('POST', '/_sim/clock/advance', { by: '1h' });
  if (adv.status !== 200) throw new Error(`advance ${adv.status}`);
  const done = await call('GET', opPath);
  if (done.json.status !== 'DONE') throw new Error(`not DONE after advance: ${done.json.status}`);
}
for (let i = 0; i < 50; i++) await cycle();
const perSecond: number[] = [];
for (let r = 0; r < rounds; r++) {
  let count = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    await cycle();
    count++;
  }
  perSecond.push(count / ((performance.now() - t0) / 1000));
}
agent.destroy();
await sim.close();
process.stdout.write(`${JSON.stringify({ perSecond })}\n`);
process.exit(0);
