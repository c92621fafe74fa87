// jest, CommonJS: both simulators in the test process (127.0.0.1, a free port, a manual clock), loaded
// with require() from the packages' CommonJS build.
const { startAnnotationSim } = require('@sims/annotation-sim');
const { startClusterSim } = require('@sims/cluster-sim');
const {
  createAnnotationSimClient,
  createClusterSimClient,
  startWebhookReceiver,
} = require('@sims/sim-client');

describe('cluster-sim', () => {
  let sim;
  beforeAll(async () => {
    sim = await startClusterSim({ port: 0, clock: { mode: 'manual' } });
  });
  afterAll(() => sim.close());

  const api = (path, init = {}) =>
    fetch(`${sim.url}/v1beta1/projects/demo/locations/us-central1-a${path}`, {
      ...init,
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    });

  test('an update is ABORTED once, then goes through and finishes on the world clock', async () => {
    const control = createClusterSimClient({ baseUrl: sim.url });
    await control.seed({
      clusters: [
        {
          projectId: 'demo',
          location: 'us-central1-a',
          name: 'c1',
          nodePools: [{ name: 'default-pool', version: '1.29.8-gke.1211000' }],
        },
      ],
    });
    await control.faults.add({
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { error: { status: 'ABORTED' } },
    });
    const update = () =>
      api('/clusters/c1/nodePools/default-pool', { method: 'PUT', body: '{"nodeVersion":"-"}' });

    const aborted = await update();
    expect(aborted.status).toBe(409);
    expect((await aborted.json()).error.status).toBe('ABORTED');
    const op = await (await update()).json();
    expect(op.operationType).toBe('UPGRADE_NODES');

    await control.clock.advance('10m'); // no sleeping
    expect((await (await api(`/operations/${op.name}`)).json()).status).toBe('DONE');
    expect(await control.journal.list({ operation: 'nodePools.update' })).toHaveLength(2);
  });
});

describe('annotation-sim', () => {
  let sim;
  let receiver;
  beforeAll(async () => {
    sim = await startAnnotationSim({ port: 0, clock: { mode: 'manual' } });
    receiver = await startWebhookReceiver({ secret: 's3cret' });
  });
  afterAll(async () => {
    await receiver.close();
    await sim.close();
  });

  test('a task update reaches the webhook receiver, signed with the secret', async () => {
    await createAnnotationSimClient({ baseUrl: sim.url }).seed({
      users: [{ username: 'alice', password: 'pw', token: 'alice-token' }],
      projects: [{ name: 'cats', owner: 'alice' }],
      tasks: [{ name: 't1', owner: 'alice', project: 'cats', size: 10, segment_size: 10 }],
      webhooks: [
        {
          target_url: receiver.url,
          type: 'project',
          project: 'cats',
          owner: 'alice',
          secret: 's3cret',
          events: ['update:task'],
        },
      ],
    });
    const patched = await fetch(`${sim.url}/api/tasks/1`, {
      method: 'PATCH',
      headers: { authorization: 'Token alice-token', 'content-type': 'application/json' },
      body: '{"name":"renamed"}',
    });
    expect(patched.status).toBe(200);

    const [delivery] = await receiver.waitFor(1);
    expect(delivery.body).toMatchObject({ event: 'update:task', task: { name: 'renamed' } });
    expect(delivery.signatureValid).toBe(true);
  });
});
