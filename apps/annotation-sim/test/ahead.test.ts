// A webhook's queued deliveries are handed to the delivery thread ahead of their turn (docs/decisions/0011).
// These tests hold one delivery in flight at a receiver, let more queue behind it on the thread, change
// something, then let the first one end: what is sent next must be what the plain path would have sent,
// prepared as of the moment each delivery starts.
import { afterEach, describe, expect, it } from 'vitest';
import { importData } from '../src/domain/state';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';

let sims: Harness[] = [];
let receivers: Receiver[] = [];
afterEach(async () => {
  for (const s of sims) s.close();
  sims = [];
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A receiver that holds its first request until `held.open()`, and answers 200 to the rest. */
async function holdingReceiver(secret?: string) {
  const held = gate();
  const r = await startReceiver({
    secret,
    behaviour: (_q, n) => (n === 1 ? { status: 200, after: held.opened } : { status: 200 }),
  });
  receivers.push(r);
  return { r, held };
}

async function receiver(secret?: string) {
  const r = await startReceiver({ secret });
  receivers.push(r);
  return r;
}

function world() {
  const h = createHarness();
  sims.push(h);
  h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p', size: 4, segment_size: 2 }],
  });
  return h;
}

async function hook(h: Harness, target: string, secret: string) {
  const res = await h.post(
    '/api/webhooks?org=acme',
    aWebhook().forProject(1).to(target).withEvents('update:task').withSecret(secret).build(),
    { as: 'alice' },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

/** Renames task 1 once per name; the first delivery reaches `held` and stays there, the rest queue. */
async function queueBehindHeld(h: Harness, held: Receiver, names: string[]) {
  await h.patch('/api/tasks/1', { name: names[0] }, { as: 'alice' });
  await expect.poll(() => held.requests.length).toBe(1);
  for (const name of names.slice(1)) await h.patch('/api/tasks/1', { name }, { as: 'alice' });
  // Queued on the thread: the engine hands them over on the turn after the API answered.
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(h.sim.deliveries().stats()).toMatchObject({ queued: names.length - 1, inFlight: 1 });
}

const names = (r: Receiver) => r.requests.map((q) => q.json?.task?.name);
const rows = async (h: Harness, id: number) =>
  (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results as {
    status_code: number;
    response: string;
    request: { task: { name: string } };
    request_duration: number;
  }[];

describe('deliveries queued on the delivery thread', () => {
  it('sends them in order, each timed and recorded', async () => {
    const h = world();
    const { r, held } = await holdingReceiver('s');
    const id = await hook(h, r.url, 's');
    await queueBehindHeld(h, r, ['a', 'b', 'c', 'd']);
    held.open();
    await h.idle();
    expect(names(r)).toEqual(['a', 'b', 'c', 'd']);
    expect(r.requests.every((q) => q.signatureValid)).toBe(true);
    const list = await rows(h, id);
    expect(list.map((d) => [d.request.task.name, d.status_code])).toEqual([
      ['d', 200],
      ['c', 200],
      ['b', 200],
      ['a', 200],
    ]);
    for (const d of list) expect(Number.isInteger(d.request_duration) && d.request_duration >= 0).toBe(true);
    expect(h.sim.deliveries().stats()).toEqual({ queued: 0, inFlight: 0, scheduledRetries: 0 });
  });

  it('sends the ones behind to the new target_url with the new secret when the webhook changes meanwhile', async () => {
    const h = world();
    const { r: old, held } = await holdingReceiver('old');
    const fresh = await receiver('new');
    const id = await hook(h, old.url, 'old');
    await queueBehindHeld(h, old, ['a', 'b', 'c']);
    const patched = await h.patch(
      `/api/webhooks/${id}`,
      { target_url: fresh.url, secret: 'new' },
      { as: 'alice' },
    );
    expect(patched.status).toBe(200);
    // Queued after the change, while the old ones are still on the thread: it must not overtake them.
    await h.patch('/api/tasks/1', { name: 'd' }, { as: 'alice' });
    held.open();
    await h.idle();
    expect(names(old)).toEqual(['a']);
    expect(names(fresh)).toEqual(['b', 'c', 'd']);
    expect(fresh.requests.every((q) => q.signatureValid)).toBe(true);
    expect((await rows(h, id)).map((d) => d.request.task.name)).toEqual(['d', 'c', 'b', 'a']);
  });

  it('sends nothing more, and writes no row, for a webhook deactivated or deleted meanwhile', async () => {
    const h = world();
    const { r, held } = await holdingReceiver('s');
    const id = await hook(h, r.url, 's');
    await queueBehindHeld(h, r, ['a', 'b', 'c']);
    await h.patch(`/api/webhooks/${id}`, { is_active: false }, { as: 'alice' });
    held.open();
    await h.idle();
    expect(names(r)).toEqual(['a']);
    expect((await rows(h, id)).map((d) => d.request.task.name)).toEqual(['a']);

    const second = await holdingReceiver('s');
    const other = await hook(h, second.r.url, 's');
    await queueBehindHeld(h, second.r, ['e', 'f']);
    expect((await h.del(`/api/webhooks/${other}`, { as: 'alice' })).status).toBe(204);
    second.held.open();
    await h.idle();
    expect(names(second.r)).toEqual(['e']);
    expect([...h.state().deliveries.values()].filter((d) => d.webhook_id === other)).toEqual([]);
  });

  it('applies a fault rule added meanwhile to the next delivery, as it would have been in its turn', async () => {
    const h = world();
    const { r, held } = await holdingReceiver('s');
    const id = await hook(h, r.url, 's');
    await queueBehindHeld(h, r, ['a', 'b', 'c']);
    const added = await h.post('/_sim/faults', {
      match: { operation: 'webhooks.deliver' },
      trigger: { times: 1 },
      effect: { deliveryRefused: true },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    held.open();
    await h.idle();
    expect(names(r)).toEqual(['a', 'c']);
    const list = await rows(h, id);
    expect(list.map((d) => [d.request.task.name, d.status_code])).toEqual([
      ['c', 200],
      ['b', 502],
      ['a', 200],
    ]);
    expect(list[1]?.response).toMatch(/Connection refused/);
    // b and c were both matched in their turn (c after the rule was spent), as on the plain path.
    expect((await h.get('/_sim/faults')).body.faults[0]).toMatchObject({ matched: 2, fired: 1 });
  });

  it('sends nothing that was queued when the namespace is reset or its state replaced', async () => {
    const h = world();
    const { r, held } = await holdingReceiver('s');
    await hook(h, r.url, 's');
    await queueBehindHeld(h, r, ['a', 'b', 'c']);
    expect((await h.post('/_sim/reset')).status).toBe(200);
    held.open();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(names(r)).toEqual(['a']);

    // A state put in place keeps the webhook under the same id but with another secret and target.
    const h2 = world();
    const second = await holdingReceiver('old');
    const fresh = await receiver('new');
    const id = await hook(h2, second.r.url, 'old');
    const snapshot = (await h2.get('/_sim/state')).body;
    const hooks = snapshot.state.webhooks as [number, Record<string, unknown>][];
    const [, record] = hooks.find(([k]) => k === id) as [number, Record<string, unknown>];
    record.secret = 'new';
    record.target_url = fresh.url;
    await queueBehindHeld(h2, second.r, ['e', 'f', 'g']);
    expect((await h2.put('/_sim/state', snapshot)).status).toBe(200);
    second.held.open();
    await h2.idle();
    expect(names(second.r)).toEqual(['e']);
    expect(names(fresh)).toEqual(['f', 'g']);
    expect(fresh.requests.every((q) => q.signatureValid)).toBe(true);
  });

  it('keeps two simulators with the same webhook id apart, and a change in one does not hold up the other', async () => {
    const h1 = world();
    const h2 = world();
    const one = await holdingReceiver('s');
    const two = await holdingReceiver('s');
    const id1 = await hook(h1, one.r.url, 's');
    const id2 = await hook(h2, two.r.url, 's');
    expect(id1).toBe(id2);
    await queueBehindHeld(h1, one.r, ['1a', '1b', '1c']);
    await queueBehindHeld(h2, two.r, ['2a', '2b', '2c']);
    await h1.patch(`/api/webhooks/${id1}`, { is_active: false }, { as: 'alice' });
    one.held.open();
    two.held.open();
    await Promise.all([h1.idle(), h2.idle()]);
    expect(names(one.r)).toEqual(['1a']);
    expect(names(two.r)).toEqual(['2a', '2b', '2c']);
  });

  it('refuses an edit in place of a stored webhook (it would go unseen by the queued deliveries), and stores copies of imported ones', () => {
    const h = world();
    h.seed({
      webhooks: [
        { target_url: 'http://127.0.0.1:9/hook', type: 'project', project: 'acme-p', owner: 'alice' },
      ],
    });
    const record = [...h.state().webhooks.values()][0];
    expect(() => {
      (record as { secret: string }).secret = 'changed';
    }).toThrow(TypeError);
    // A snapshot imported in-process stays the caller's to change: the table stores copies.
    const snapshot = { webhooks: [[7, { ...record, id: 7, events: ['update:task'] }]] };
    importData(h.state(), snapshot);
    const given = snapshot.webhooks[0]?.[1] as { secret: string; events: string[] };
    given.secret = 'mine';
    given.events.push('create:task');
    expect(h.state().webhooks.get(7)).toMatchObject({ secret: '', events: ['update:task'] });
  });
});
