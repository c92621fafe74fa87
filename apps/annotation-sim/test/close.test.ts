// A started simulator's close() stops the server first, then the kernel (as cluster-sim's does): the open
// connections of watchers (the live stream, long-polls) are cut by the server, so close() does not wait
// for them, and no request can reach a world after the kernel disposed the worlds.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type StartedAnnotationSim, startAnnotationSim } from '../src/app';

let sim: StartedAnnotationSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** A request's answer, or the error of a connection cut before it came. */
function opened(url: string, init: RequestInit = {}): Promise<Response | Error> {
  return fetch(url, init).then(
    (r) => r,
    (err: unknown) => err as Error,
  );
}

describe('startAnnotationSim().close()', () => {
  it('disposes the worlds only once the server is closed', async () => {
    sim = await startAnnotationSim({ port: 0, clock: { mode: 'manual' } });
    expect((await fetch(`${sim.url}/_sim/health`)).status).toBe(200);
    const order: string[] = [];
    sim.server.once('close', () => order.push('server closed'));
    const dispose = sim.namespaces.close.bind(sim.namespaces);
    vi.spyOn(sim.namespaces, 'close').mockImplementation(() => {
      order.push('worlds disposed');
      dispose();
    });
    await sim.close();
    expect(order).toEqual(['server closed', 'worlds disposed']);
  });

  it('resolves while a live stream and long-polls are open, and ends them', async () => {
    sim = await startAnnotationSim({ port: 0, clock: { mode: 'manual' } });
    const { url } = sim;
    // A live stream, read until its first event (so it is open on the server).
    const stream = await fetch(`${url}/_sim/stream`);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: hello');
    // Long-polls that would wait a minute: a journal entry that never comes, a delivery never sent.
    const journalWait = opened(`${url}/_sim/journal/wait`, {
      method: 'POST',
      body: JSON.stringify({ path: '/never', timeout: '60s' }),
    });
    const deliveryWait = opened(`${url}/_sim/deliveries/wait`, {
      method: 'POST',
      body: JSON.stringify({ event: 'never', timeout: '60s' }),
    });
    // Both are in the server's hands once its connection count says so.
    await expect.poll(() => connections(sim as StartedAnnotationSim)).toBeGreaterThanOrEqual(3);
    await sim.close();
    // The stream ends (its socket closed by the server), and so do the long-polls.
    await expect(drain(reader)).resolves.toBe('ended');
    expect(await journalWait).toBeInstanceOf(Error);
    expect(await deliveryWait).toBeInstanceOf(Error);
    // The kernel closed after the server: no world is left (none made by a late request).
    expect(sim.namespaces.names()).toEqual([]);
    expect(sim.server.listening).toBe(false);
  });
});

/** The server's open connections. */
function connections(s: StartedAnnotationSim): Promise<number> {
  return new Promise((resolve, reject) =>
    s.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );
}

/** Reads a stream to its end: 'ended' when it ends or is cut. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  try {
    for (;;) if ((await reader.read()).done) return 'ended';
  } catch {
    return 'ended';
  }
}
