import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AnnotationSimContainer,
  ClusterSimContainer,
  freePort,
  NETWORK_ENV,
  SCENARIO_DIR,
  waitForHealth,
} from '../src/index';

/** Reads what the builder will hand to docker, without docker. */
class InspectedClusterSim extends ClusterSimContainer {
  env() {
    return this.environment;
  }
  files() {
    return this.filesToCopy;
  }
  contents() {
    return this.contentsToCopy;
  }
  /** The environment `start()` hands to docker, after its secure defaults. */
  started() {
    this.applySecureDefaults();
    return this.environment;
  }
}

class InspectedAnnotationSim extends AnnotationSimContainer {
  started() {
    this.applySecureDefaults();
    return this.environment;
  }
}

describe('container options (no Docker needed)', () => {
  const saved = process.env[NETWORK_ENV];
  afterEach(() => {
    if (saved === undefined) delete process.env[NETWORK_ENV];
    else process.env[NETWORK_ENV] = saved;
  });

  it('turns withSeed/withClock/withAdminToken into the CLI environment variables', () => {
    const c = new InspectedClusterSim().withSeed(42).withClock('real', 2.5).withAdminToken('t0ken');
    expect(c.env()).toMatchObject({
      SIM_SEED: '42',
      SIM_CLOCK: 'real',
      SIM_SPEED: '2.5',
      SIM_ADMIN_TOKEN: 't0ken',
    });
    expect(() => new ClusterSimContainer().withClock('sideways' as 'real')).toThrow(/real or manual/);
    expect(() => new ClusterSimContainer().withClock('real', 0)).toThrow(/speed must be > 0/);
  });

  it('starts with a random admin token (and a random API password) unless given, so a published port is never open', () => {
    const a = new InspectedClusterSim().started().SIM_ADMIN_TOKEN;
    const b = new InspectedClusterSim().started().SIM_ADMIN_TOKEN;
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(b).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(a).not.toBe(b);
    expect(new InspectedClusterSim().withAdminToken('mine').started().SIM_ADMIN_TOKEN).toBe('mine');
    expect(new InspectedClusterSim().withoutAdminToken().started()).not.toHaveProperty('SIM_ADMIN_TOKEN');
    // A token given after withoutAdminToken() wins again.
    expect(new InspectedClusterSim().withoutAdminToken().withAdminToken('t').started().SIM_ADMIN_TOKEN).toBe(
      't',
    );
    const annotation = new InspectedAnnotationSim().started();
    expect(annotation.SIM_ADMIN_TOKEN).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(annotation.SIM_ADMIN_PASSWORD).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(annotation.SIM_ADMIN_PASSWORD).not.toBe('admin');
    const chosen = new InspectedAnnotationSim().withApiCredentials('alice', 's3cret').started();
    expect(chosen).toMatchObject({ SIM_ADMIN_USERNAME: 'alice', SIM_ADMIN_PASSWORD: 's3cret' });
  });

  it('copies scenarios into the container and lists them, in order, in SIM_SCENARIO', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sims-tc-unit-'));
    try {
      const file = join(dir, 'my scenario.yaml');
      writeFileSync(file, 'name: from-file\n');
      const c = new InspectedClusterSim()
        .withScenario(file)
        .withScenario('faults:\n  - match: { operation: nodePools.update }\n')
        .withScenario('{"name":"json-text"}')
        .withScenario({ name: 'object' });
      const targets = [
        `${SCENARIO_DIR}/1-my_scenario.yaml`,
        `${SCENARIO_DIR}/2.yaml`,
        `${SCENARIO_DIR}/3.yaml`,
        `${SCENARIO_DIR}/4.json`,
      ];
      expect(c.env().SIM_SCENARIO).toBe(targets.join(','));
      expect(c.files()).toEqual([{ source: file, target: targets[0], mode: 0o644 }]);
      expect(c.contents().map((x) => [x.target, x.content])).toEqual([
        [targets[1], 'faults:\n  - match: { operation: nodePools.update }\n'],
        [targets[2], '{"name":"json-text"}'],
        [targets[3], '{"name":"object"}'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a scenario that is neither a file nor scenario text', () => {
    expect(() => new ClusterSimContainer().withScenario('no/such/file.yaml')).toThrow(
      /neither an existing file/,
    );
  });

  it(`selects host networking by withHostNetwork(), withNetworkMode('host') or ${NETWORK_ENV}=host`, () => {
    delete process.env[NETWORK_ENV];
    expect(new ClusterSimContainer().usesHostNetwork()).toBe(false);
    expect(new ClusterSimContainer().withHostNetwork().usesHostNetwork()).toBe(true);
    expect(new AnnotationSimContainer().withNetworkMode('host').usesHostNetwork()).toBe(true);
    process.env[NETWORK_ENV] = 'host';
    expect(new AnnotationSimContainer().usesHostNetwork()).toBe(true);
    expect(new AnnotationSimContainer().withHostNetwork(false).usesHostNetwork()).toBe(false);
  });

  it('uses sims/<simulator>:dev unless the image is given or set in the environment', () => {
    expect(new InspectedClusterSim().env()).toEqual({});
    const saved = process.env.SIMS_CLUSTER_SIM_IMAGE;
    process.env.SIMS_CLUSTER_SIM_IMAGE = 'registry.example/cluster-sim:1.2.3';
    try {
      expect(new InspectedClusterSim()['imageName'].string).toBe('registry.example/cluster-sim:1.2.3');
    } finally {
      if (saved === undefined) delete process.env.SIMS_CLUSTER_SIM_IMAGE;
      else process.env.SIMS_CLUSTER_SIM_IMAGE = saved;
    }
    expect(new InspectedClusterSim()['imageName'].string).toBe('sims/cluster-sim:dev');
    expect(new AnnotationSimContainer('my/annotation-sim:x')['imageName'].string).toBe('my/annotation-sim:x');
  });
});

describe('waitForHealth and freePort', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
  });

  it('polls /_sim/health until it answers 200', async () => {
    let calls = 0;
    server = createServer((req, res) => {
      calls++;
      res.statusCode = req.url === '/_sim/health' && calls >= 3 ? 200 : 503;
      res.end('{}');
    });
    const port = await freePort();
    await new Promise<void>((r) => server?.listen(port, '127.0.0.1', r));
    await waitForHealth(`http://127.0.0.1:${port}`, 5_000);
    expect(calls).toBe(3);
  });

  it('gives up after the timeout, saying what it last saw', async () => {
    const port = await freePort();
    await expect(waitForHealth(`http://127.0.0.1:${port}`, 200)).rejects.toThrow(
      /did not answer 200 within 200 ms \(last: .*ECONNREFUSED/,
    );
  });
});
