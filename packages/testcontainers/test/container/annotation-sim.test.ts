import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedAnnotationSimContainer } from '../../src/index';
import { annotationSim, docker, network, readLogsUntil, skipReason } from './support/engine';

const TOKEN = 'tc-annotation-token';

describe.skipIf(skipReason)('AnnotationSimContainer', () => {
  let sim: StartedAnnotationSimContainer;

  beforeAll(async () => {
    const t0 = performance.now();
    sim = await annotationSim()
      // A scenario given as an object (sent into the container as JSON).
      .withScenario({
        name: 'projects-down-once',
        faults: [
          {
            id: 'projects-down-once',
            match: { operation: 'projects.list' },
            trigger: { times: 1 },
            effect: { error: { status: 'UNAVAILABLE' } },
          },
        ],
      })
      .withSeed(4242)
      .withClock('real', 60)
      .withAdminToken(TOKEN)
      .start();
    console.log(
      `annotation-sim container: start() to healthy in ${Math.round(performance.now() - t0)} ms at ${sim.getBaseUrl()}`,
    );
  });

  afterAll(async () => {
    await sim?.stop();
  });

  it(`starts with ${network} networking and answers GET /_sim/health with 200`, async () => {
    expect(sim.usesHostNetwork()).toBe(network === 'host');
    const response = await fetch(`${sim.getBaseUrl()}/_sim/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', simulator: 'annotation-sim' });
  });

  it('serves its dashboard from the image: the page and its own script, nothing from elsewhere', async () => {
    const page = await fetch(`${sim.getBaseUrl()}/_sim/ui/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>annotation-sim dashboard</title>');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const script = await fetch(`${sim.getBaseUrl()}/_sim/ui/app.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('Deliveries');
  });

  it('seeds the API superuser with a random password, handed out by getApiCredentials()', async () => {
    const { username, password } = sim.getApiCredentials();
    expect(username).toBe('admin');
    expect(password).not.toBe('admin');
    const basic = (u: string, p: string) => ({
      authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`,
    });
    const guessed = await fetch(`${sim.getBaseUrl()}/api/users/self`, { headers: basic('admin', 'admin') });
    await guessed.arrayBuffer();
    expect(guessed.status).toBe(401);
    const self = await fetch(`${sim.getBaseUrl()}/api/users/self`, { headers: basic(username, password) });
    expect(self.status).toBe(200);
    expect(await self.json()).toMatchObject({ username: 'admin', is_superuser: true });
  });

  it('logs the ready line', async () => {
    const text = await readLogsUntil(await sim.logs(), / ready at http:\/\//);
    expect(text).toMatch(/annotation-sim \S+ ready at http:\/\//);
    expect(text).toContain('clock real');
  });

  it('applies the scenario: its fault rule is listed and fires once', async () => {
    const client = sim.client();
    expect((await client.faults.list()).map((rule) => rule.id)).toContain('projects-down-once');
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${sim.getBaseUrl()}/api/projects`);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses[0]).not.toBe(statuses[1]); // the injected error, then the simulator's own answer
    expect((await client.faults.get('projects-down-once')).fired).toBe(1);
    const [entry] = await client.journal.list({ operation: 'projects.list' });
    expect(entry?.faults).toEqual(['projects-down-once']);
  });

  it('runs the real clock at the chosen speed', async () => {
    const clock = await sim.client().clock.get();
    expect(clock).toMatchObject({ mode: 'real', speed: 60 });
  });

  it('derives ids from the seed: the same seed gives the same request ids', async () => {
    const namespace = 'seed-check';
    const response = await fetch(`${sim.getBaseUrl()}/api/projects`, {
      headers: { 'x-sim-namespace': namespace },
    });
    await response.arrayBuffer();
    const [entry] = await sim.client({ namespace }).journal.list();
    const again = await annotationSim().withSeed(4242).start();
    try {
      const r = await fetch(`${again.getBaseUrl()}/api/projects`, {
        headers: { 'x-sim-namespace': namespace },
      });
      await r.arrayBuffer();
      const [entryAgain] = await again.client({ namespace }).journal.list();
      expect(entry?.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(entryAgain?.requestId).toBe(entry?.requestId);
    } finally {
      await again.stop();
    }
  });

  it('protects the control plane with the admin token, which client() sends', async () => {
    const bare = await fetch(`${sim.getBaseUrl()}/_sim/faults`);
    await bare.arrayBuffer();
    expect(bare.status).toBe(401);
    // The annotation-specific part of the client reaches its own routes.
    await expect(sim.client().deliveries.stats()).resolves.toBeTypeOf('object');
    await expect(sim.client().events.get()).resolves.toBeTypeOf('object');
  });
});

describe.skipIf(skipReason)('AnnotationSimContainer lifecycle', () => {
  it('stops on SIGTERM: the simulator exits 0 at once', async () => {
    const sim = await annotationSim()
      .withHostNetwork(network === 'host')
      .start();
    const id = sim.getId();
    const t0 = performance.now();
    await sim.stop({ remove: false });
    const stopMs = performance.now() - t0;
    try {
      expect(await docker('inspect', '--format', '{{.State.ExitCode}}', id)).toBe('0');
      expect(stopMs).toBeLessThan(3_000);
    } finally {
      await docker('rm', '-f', id);
    }
  });

  it('fails start() with the container output when the simulator cannot start', async () => {
    const bad = annotationSim().withEnvironment({ SIM_CLOCK: 'sideways' }).withStartupTimeout(10_000);
    await expect(bad.start()).rejects.toThrow(/invalid --clock "sideways"/);
  });
});
