import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, OPS, POOL } from './support/harness';

/**
 * Operations as the world's long-running work (domain/operation-work.ts on sim-core's `world.timers`):
 * the world holds their clock events, one key per operation with events ahead, and a state import
 * replaces them with the imported operations' own.
 */
let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

/** Starts a pool resize (2 s at the default settings) and answers its operation's id. */
async function resize(nodeCount: number): Promise<string> {
  const res = await h.post(`${POOL}:setSize`, { nodeCount });
  expect(res.status, res.text).toBe(200);
  return res.body.name;
}

const operation = async (id: string) => (await h.get(`${OPS}/${id}`)).body;
const nodeCount = async () => (await h.get(POOL)).body.initialNodeCount;
const pending = () => h.world().timers.pending('operation');

describe('operations on the world timers', () => {
  it('keeps a running operation on the world, and nothing once it finished', async () => {
    await resize(5);
    expect(pending()).toBe(1);
    await h.advance('3s');
    expect(pending()).toBe(0);
    expect(await nodeCount()).toBe(5);
  });

  it('drops an operation from the clock when the control plane completes or fails it', async () => {
    const completed = await resize(5);
    const done = await h.request('POST', `/_sim/operations/${completed}/complete`, { token: null });
    expect(done.status, done.text).toBe(200);
    expect(done.body.status).toBe('DONE');
    expect(pending()).toBe(0);
    expect(await nodeCount()).toBe(5);

    const failed = await resize(7);
    const res = await h.request('POST', `/_sim/operations/${failed}/fail`, {
      token: null,
      body: { status: 'ABORTED', message: 'stop' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.error).toMatchObject({ message: 'stop' });
    expect(pending()).toBe(0);
    // The dropped finish never lands: the failed resize leaves the pool as it was.
    await h.advance('1h');
    expect(await nodeCount()).toBe(5);
  });

  it('replaces a cancelled operation’s plan with the end of its abort', async () => {
    const id = await resize(5);
    await h.advance('300ms');
    expect((await h.post(`${OPS}/${id}:cancel`, {})).status).toBe(200);
    expect(pending()).toBe(1);
    await h.advance('600ms');
    expect(pending()).toBe(0);
    const op = await operation(id);
    expect(op.status).toBe('DONE');
    expect(op.error).toBeDefined();
    // The finish planned at 2 s was dropped with the plan.
    await h.advance('1h');
    expect(await nodeCount()).toBe(3);
  });

  it('puts an operation in "N polls" mode on no clock: its Nth poll ends it', async () => {
    await h.settings({ operationPolls: 2 });
    const id = await resize(5);
    expect(pending()).toBe(0);
    await h.advance('1h');
    expect(await nodeCount()).toBe(3);
    expect((await operation(id)).status).toBe('RUNNING');
    expect((await operation(id)).status).toBe('DONE');
    expect(await nodeCount()).toBe(5);
  });

  it('runs an operation a state import replaced on the imported plan, not on the one it had', async () => {
    const id = await resize(5);
    const snapshot = (await h.request('GET', '/_sim/state', { token: null })).body;
    const op = snapshot.state.operations.find((o: { id: string }) => o.id === id);
    op.plan.doneAt += 3_600_000;
    const res = await h.request('PUT', '/_sim/state', { token: null, body: snapshot });
    expect(res.status, res.text).toBe(200);
    expect(pending()).toBe(1);
    // Past the replaced plan's finish: the imported operation still runs.
    await h.advance('3s');
    expect((await operation(id)).status).toBe('RUNNING');
    expect(await nodeCount()).toBe(3);
    await h.advance('1h');
    expect((await operation(id)).status).toBe('DONE');
    expect(await nodeCount()).toBe(5);
    expect(pending()).toBe(0);
  });
});
