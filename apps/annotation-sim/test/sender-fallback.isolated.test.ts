import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';

// A runtime whose worker threads cannot be started (resource limits, a sandbox): the sender must still deliver.
vi.mock('node:worker_threads', () => ({
  Worker: class {
    constructor() {
      throw new Error('ERR_WORKER_INIT_FAILED');
    }
  },
}));

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  vi.restoreAllMocks();
});

it('sends from the calling thread, with one warning, when no delivery thread can be started', async () => {
  const { createWorkerSender } = await import('../src/delivery/sender');
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const send = createWorkerSender();
  const request = {
    url,
    headers: [['Content-Length', '2']] as [string, string][],
    body: Buffer.from('{}'),
    verifyTls: true,
    connectTimeoutMs: 3000,
    readTimeoutMs: 10000,
  };
  expect(await send(request)).toEqual({ kind: 'response', status: 200, body: 'ok' });
  expect(await send(request)).toEqual({ kind: 'response', status: 200, body: 'ok' });
  expect(received).toBe(2);
  expect(warn).toHaveBeenCalledTimes(1);
  expect(String(warn.mock.calls[0]?.[0])).toContain('no delivery thread (ERR_WORKER_INIT_FAILED)');
});

it('delivers a webhook queue in order from the calling thread when no delivery thread can be started', async () => {
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  const { createHarness, TEAM } = await import('./support/harness');
  const { startReceiver } = await import('./support/receiver');
  const { aWebhook } = await import('./support/builders');
  const r = await startReceiver({ secret: 's' });
  const h = createHarness();
  close = async () => {
    h.close();
    await r.close();
  };
  h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p', size: 4, segment_size: 2 }],
  });
  const hook = aWebhook().forProject(1).to(r.url).withEvents('update:task').withSecret('s').build();
  expect((await h.post('/api/webhooks?org=acme', hook, { as: 'alice' })).status).toBe(201);
  for (const name of ['a', 'b', 'c']) await h.patch('/api/tasks/1', { name }, { as: 'alice' });
  await h.idle();
  expect(r.requests.map((q) => q.json.task.name)).toEqual(['a', 'b', 'c']);
  expect(r.requests.every((q) => q.signatureValid)).toBe(true);
});
