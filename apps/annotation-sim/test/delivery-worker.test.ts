import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { buildWorkerModule, buildWorkerScript, WORKER_MODULE } from '../scripts/worker-bundle';
import { DELIVERY_WORKER_CODE } from '../src/delivery/thread/worker.generated';

describe('the delivery thread module (src/delivery/thread/worker.generated.ts)', () => {
  it('is what src/delivery/thread/worker.ts builds (run `pnpm --filter @sims/annotation-sim build-worker` when this fails)', async () => {
    const committed = await readFile(WORKER_MODULE, 'utf8').catch(() => '(missing)');
    expect(committed === (await buildWorkerModule()), 'worker.generated.ts is stale').toBe(true);
    expect(DELIVERY_WORKER_CODE).toBe(await buildWorkerScript());
  });

  it('needs nothing but node built-in modules, and is small enough to carry in every build', () => {
    const required = [...DELIVERY_WORKER_CODE.matchAll(/\brequire\(("[^"]*")\)/g)].map((m) =>
      JSON.parse(m[1] as string),
    );
    expect(required.length).toBeGreaterThan(0);
    expect(required.every((name: string) => name.startsWith('node:'))).toBe(true);
    expect(DELIVERY_WORKER_CODE.length).toBeLessThan(64 * 1024);
  });

  it('runs as a worker thread and answers a request node refuses with its message', async () => {
    const worker = new Worker(DELIVERY_WORKER_CODE, {
      eval: true,
      execArgv: [],
      workerData: { generations: new SharedArrayBuffer(4) },
    });
    try {
      const answer = new Promise((resolve) => worker.once('message', resolve));
      // id, URL, headers, body, encoding, verifyTls, connect and read time-outs, deadline, addresses.
      worker.postMessage([7, 'ftp://127.0.0.1/x', 'Content-Length\n0', '', 'utf8', true, 1000, 1000, 0, '']);
      expect(await answer).toEqual([7, null, 'Protocol "ftp:" not supported. Expected "http:"']);
    } finally {
      await worker.terminate();
    }
  });
});
