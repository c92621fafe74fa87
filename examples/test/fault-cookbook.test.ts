import { type StartedAnnotationSim, startAnnotationSim } from '@sims/annotation-sim';
import { createClusterSim, type StartedClusterSim, startClusterSim } from '@sims/cluster-sim';
import {
  createAnnotationSimClient,
  createClusterSimClient,
  type FaultRuleInput,
  startWebhookReceiver,
  waitFor,
} from '@sims/sim-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markedBlocks, readme } from './readme-blocks';

/** The README's fault cookbook: every `<!-- fault: <simulator> -->` block, parsed. */
const recipes = markedBlocks(readme(), 'fault').map((block) => ({
  ...block,
  rule: JSON.parse(block.text) as FaultRuleInput & { id: string },
}));
function recipe(id: string): FaultRuleInput {
  const found = recipes.find((r) => r.rule.id === id);
  if (!found) throw new Error(`the README's fault cookbook has no rule "${id}"`);
  return found.rule;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON
type AnyJson = any;
async function send(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as AnyJson };
}

const START = { mode: 'manual', start: '2026-01-01T00:00:00Z' } as const;

describe('the fault cookbook', () => {
  it('has recipes for both simulators, each with a title and a unique id', () => {
    expect(recipes.filter((r) => r.value === 'cluster-sim').length).toBeGreaterThanOrEqual(10);
    expect(recipes.filter((r) => r.value === 'annotation-sim').length).toBeGreaterThanOrEqual(6);
    expect(recipes.every((r) => r.value === 'cluster-sim' || r.value === 'annotation-sim')).toBe(true);
    expect(recipes.every((r) => r.lang === 'json' && r.title)).toBe(true);
    expect(new Set(recipes.map((r) => r.rule.id)).size).toBe(recipes.length);
  });

  it("accepts the curl example of the README's Fault rules section, sent as curl sends it", async () => {
    const section = readme().split('### Fault rules')[1] ?? '';
    const body = /-d '([\s\S]*?)'/.exec(section)?.[1] ?? 'no curl -d in the Fault rules section';
    const sim = createClusterSim();
    const res = await sim.app.request('/_sim/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' }, // curl -d without -H
      body,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject({ match: { operation: 'nodePools.update' }, phase: 'before' });
    sim.close();
  });

  it.each(recipes.map((r) => [r.value, r.title, r] as const))(
    '%s accepts "%s" (201)',
    async (simulator, _title, { rule }) => {
      const sim = simulator === 'cluster-sim' ? await startClusterSim() : await startAnnotationSim();
      try {
        const res = await send(`${sim.url}/_sim/faults`, 'POST', rule);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expect(res.body).toMatchObject({ id: rule.id, fired: 0 });
      } finally {
        await sim.close();
      }
    },
  );
});

describe('cluster-sim recipes do what they say', () => {
  const OPS = 'projects/p/locations/us-central1-a/operations';
  const POOL = 'projects/p/locations/us-central1-a/clusters/c1/nodePools/np1';
  const bearer = { authorization: 'Bearer cookbook' };
  let sim: StartedClusterSim;
  let control: ReturnType<typeof createClusterSimClient>;
  const api = (path: string) => `${sim.url}/v1beta1/${path}`;
  const getPool = () => send(api(POOL), 'GET', undefined, bearer);
  const update = (etag?: string) => send(api(POOL), 'PUT', { nodeVersion: '-', etag }, bearer);
  const getOperation = (name: string) => send(api(`${OPS}/${name}`), 'GET', undefined, bearer);

  async function start(seed?: number) {
    sim = await startClusterSim({ seed, clock: START });
    control = createClusterSimClient({ baseUrl: sim.url });
    await control.seed({
      clusters: [
        {
          projectId: 'p',
          location: 'us-central1-a',
          name: 'c1',
          nodePools: [{ name: 'np1', version: '1.29.8-gke.1211000' }],
        },
      ],
    });
  }
  beforeEach(() => start());
  afterEach(() => sim.close());

  it('ABORTED on the next update: 409 ABORTED once, then the update goes through', async () => {
    await control.faults.add(recipe('aborted-next-update'));
    const first = await update();
    expect(first.body.error).toMatchObject({ code: 409, status: 'ABORTED' });
    expect((await update()).status).toBe(200);
  });

  it('a concurrent writer: the etag really changes, and an update with the fresh one succeeds', async () => {
    await control.faults.add(recipe('concurrent-writer'));
    const before = (await getPool()).body.etag;
    expect((await update(before)).body.error.status).toBe('ABORTED');
    const fresh = (await getPool()).body.etag;
    expect(fresh).not.toBe(before);
    expect((await update(fresh)).status).toBe(200);
  });

  it('busy cluster: FAILED_PRECONDITION twice, then the update goes through', async () => {
    await control.faults.add(recipe('busy-cluster'));
    for (const _ of [1, 2]) {
      const busy = await update();
      expect(busy.status).toBe(400);
      expect(busy.body.error.message).toMatch(/^Cluster is running incompatible operation /);
    }
    expect((await update()).status).toBe(200);
  });

  it('quota exhausted: RESOURCE_EXHAUSTED', async () => {
    await control.faults.add(recipe('quota'));
    expect((await update()).body.error.status).toBe('RESOURCE_EXHAUSTED');
  });

  it('the operation fails midway: accepted, then DONE with error code 13', async () => {
    await control.faults.add(recipe('fails-midway'));
    const op = (await update()).body;
    await control.clock.advance('1h');
    expect((await getOperation(op.name)).body).toMatchObject({ status: 'DONE', error: { code: 13 } });
  });

  it('slow operations: RUNNING at 7m59s, DONE at 8m', async () => {
    await control.faults.add(recipe('slow-upgrades'));
    const op = (await update()).body;
    await control.clock.advance('7m59s');
    expect((await getOperation(op.name)).body.status).toBe('RUNNING');
    await control.clock.advance('1s');
    expect((await getOperation(op.name)).body.status).toBe('DONE');
  });

  it('after-phase ambiguous failure: the client sees 503, yet the upgrade runs', async () => {
    await control.faults.add(recipe('ambiguous-update'));
    expect((await update()).body.error.status).toBe('UNAVAILABLE');
    const ops = (await send(api(OPS), 'GET', undefined, bearer)).body.operations;
    expect(ops).toEqual([expect.objectContaining({ operationType: 'UPGRADE_NODES' })]);
  });

  it('latency: the read answers only once the world clock has moved 2 s', async () => {
    await control.faults.add(recipe('slow-reads'));
    let answered = false;
    const read = getPool().then((res) => {
      answered = true;
      return res;
    });
    // The request has arrived and waits on the world clock (no sleep: poll the control plane).
    await waitFor(async () => (await control.clock.get()).pendingTimers > 0);
    await control.clock.advance('1s');
    expect(answered).toBe(false);
    await control.clock.advance('1s');
    expect((await read).status).toBe(200);
  });

  it('dropped connection: the second operation poll fails on the socket', async () => {
    await control.faults.add(recipe('reset-second-poll'));
    const op = (await update()).body;
    expect((await getOperation(op.name)).status).toBe(200);
    await expect(getOperation(op.name)).rejects.toThrow(TypeError); // fetch failed
    expect((await getOperation(op.name)).status).toBe(200);
  });

  it('probability with a seed: the same calls fail on every run with the same seed', async () => {
    const run = async () => {
      await sim.close();
      await start(42);
      await control.faults.add(recipe('flaky-api'));
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await getPool()).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  it('a clock window: requests fail from 1 to 5 minutes after the rule was added', async () => {
    await control.faults.add(recipe('outage-window'));
    expect((await getPool()).status).toBe(200);
    await control.clock.advance('1m');
    expect((await getPool()).body.error.status).toBe('UNAVAILABLE');
    await control.clock.advance('4m');
    expect((await getPool()).status).toBe(200);
  });
});

describe('annotation-sim recipes do what they say', () => {
  const SECRET = 'cookbook-secret';
  const admin = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };
  let sim: StartedAnnotationSim;
  let control: ReturnType<typeof createAnnotationSimClient>;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeEach(async () => {
    sim = await startAnnotationSim({ seed: 1, clock: START });
    control = createAnnotationSimClient({ baseUrl: sim.url });
    receiver = await startWebhookReceiver({ secret: SECRET });
    await control.seed({
      users: [{ username: 'alice', password: 'alice-password' }],
      projects: [{ name: 'p1', owner: 'alice' }],
      tasks: [{ name: 't1', owner: 'alice', project: 'p1', size: 10, segment_size: 5 }],
      webhooks: [
        {
          target_url: receiver.url,
          type: 'project',
          project: 'p1',
          owner: 'alice',
          secret: SECRET,
          events: ['update:task'],
        },
      ],
    });
  });
  afterEach(async () => {
    await sim.close();
    await receiver.close();
  });

  it('corrupted signature: the next delivery fails verification, the one after passes', async () => {
    await control.faults.add(recipe('bad-signature'));
    for (const name of ['t1-a', 't1-b']) {
      expect((await send(`${sim.url}/api/tasks/1`, 'PATCH', { name }, admin)).status).toBe(200);
    }
    await receiver.waitFor(2);
    expect(receiver.deliveries.map((d) => d.signatureValid)).toEqual([false, true]);
  });

  it('failed export: the request ends "failed" with the recipe\'s message', async () => {
    await control.faults.add(recipe('failed-export'));
    const started = await send(`${sim.url}/api/events/export`, 'POST', undefined, admin);
    expect(started.status).toBe(202);
    await control.clock.advance('1h');
    const status = await send(`${sim.url}/api/requests/${started.body.rq_id}`, 'GET', undefined, admin);
    expect(status.body).toMatchObject({
      status: 'failed',
      message: 'Export failed: ClickHouse query timed out',
    });
  });

  /** A new task without data, its data sent: the creation request's id. */
  async function createTaskData(): Promise<string> {
    const task = await send(`${sim.url}/api/tasks`, 'POST', { name: 't2', project_id: 1 }, admin);
    expect(task.status).toBe(201);
    const data = { image_quality: 70, server_files: ['a.jpg', 'b.jpg'] };
    const res = await send(`${sim.url}/api/tasks/${task.body.id}/data/`, 'POST', data, admin);
    expect(res.status).toBe(202);
    return res.body.rq_id;
  }
  const requestOf = async (rqId: string) =>
    (await send(`${sim.url}/api/requests/${encodeURIComponent(rqId)}`, 'GET', undefined, admin)).body;

  it('failed task creation: the request ends "failed" with the message, and the task has no jobs', async () => {
    await control.faults.add(recipe('failed-task-data'));
    const rqId = await createTaskData();
    expect(await requestOf(rqId)).toMatchObject({
      status: 'failed',
      message: 'ValueError: No media data found\n',
    });
    const jobs = await send(`${sim.url}/api/jobs?task_id=2`, 'GET', undefined, admin);
    expect(jobs.body.count).toBe(0);
  });

  it('lost worker: the task creation request stays "started" whatever the clock says', async () => {
    await control.faults.add(recipe('lost-worker'));
    const rqId = await createTaskData();
    await control.clock.advance('1d');
    expect((await requestOf(rqId)).status).toBe('started');
  });

  it('throttled API: the next task update answers 429', async () => {
    await control.faults.add(recipe('throttled'));
    expect((await send(`${sim.url}/api/tasks/1`, 'PATCH', { name: 'x' }, admin)).status).toBe(429);
    expect((await send(`${sim.url}/api/tasks/1`, 'PATCH', { name: 'y' }, admin)).status).toBe(200);
  });
});
