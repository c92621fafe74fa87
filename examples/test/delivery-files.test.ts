import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ANNOTATION_SIM_IMAGE,
  ANNOTATION_SIM_PORT,
  CLUSTER_SIM_IMAGE,
  CLUSTER_SIM_PORT,
} from '@sims/testcontainers';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The Docker-side examples, checked without an engine: the image names, ports and health checks they use
 * are the images' real ones (the container project runs them: test/container/docker.test.ts).
 */
const repo = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(repo, path), 'utf8');
const simulators = {
  'cluster-sim': { image: CLUSTER_SIM_IMAGE, port: CLUSTER_SIM_PORT },
  'annotation-sim': { image: ANNOTATION_SIM_IMAGE, port: ANNOTATION_SIM_PORT },
};

describe('the Dockerfiles', () => {
  it.each(Object.entries(simulators))('%s exposes its default port and checks /_sim/health', (name, sim) => {
    const dockerfile = read(`apps/${name}/Dockerfile`);
    expect(dockerfile).toContain(`EXPOSE ${sim.port}`);
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/_sim\/health/);
    // scripts/docker-images.sh tags each image sims/<app>:<SIMS_IMAGE_TAG, default dev>.
    expect(read('scripts/docker-images.sh')).toContain('image=sims/$app:$TAG');
    expect(sim.image).toBe(`sims/${name}:dev`);
  });
});

describe('examples/ci/github-actions.yml', () => {
  const workflow = parse(read('examples/ci/github-actions.yml'));
  const services = workflow.jobs.test.services as Record<
    string,
    { image: string; ports: string[]; env: Record<string, string>; options: string }
  >;

  it('runs both simulators as services, with their images and default ports', () => {
    expect(Object.keys(services)).toEqual(Object.keys(simulators));
    for (const [name, sim] of Object.entries(simulators)) {
      expect.soft(services[name]?.image, name).toBe(sim.image);
      expect.soft(services[name]?.ports, name).toEqual([`${sim.port}:${sim.port}`]);
    }
  });

  it('paces the health check only: the test command is the image HEALTHCHECK on /_sim/health', () => {
    for (const service of Object.values(services)) {
      expect(service.options).toMatch(/--health-interval \S+/);
      expect(service.options).not.toContain('--health-cmd');
    }
  });

  it('points the tests at the mapped ports', () => {
    expect(workflow.jobs.test.env).toEqual({
      CLUSTER_SIM_URL: `http://127.0.0.1:${CLUSTER_SIM_PORT}`,
      ANNOTATION_SIM_URL: `http://127.0.0.1:${ANNOTATION_SIM_PORT}`,
    });
  });
});

describe('examples/docker/compose.yaml', () => {
  const compose = parse(read('examples/docker/compose.yaml'));
  const services = compose.services as Record<
    string,
    { image: string; network_mode?: string; environment: Record<string, string> }
  >;

  it('has both simulators on the host network, on loopback, on their default ports', () => {
    expect(Object.keys(services)).toEqual(Object.keys(simulators));
    for (const [name, sim] of Object.entries(simulators)) {
      const service = services[name];
      expect.soft(service?.image, name).toBe(sim.image);
      expect.soft(service?.network_mode, name).toBe('host');
      expect.soft(service?.environment.SIM_HOST, name).toBe('127.0.0.1');
      expect.soft(service?.environment.SIM_PORT, name).toMatch(new RegExp(`^\\$\\{\\w+:-${sim.port}\\}$`));
    }
  });

  it('creates no network of its own (the engine has no bridge)', () => {
    expect(compose.networks).toBeUndefined();
    for (const service of Object.values(services)) expect(service).not.toHaveProperty('networks');
  });
});

describe('examples/docker/run.sh', () => {
  const script = read('examples/docker/run.sh');

  it('runs both images on the host network with their default ports', () => {
    for (const [name, sim] of Object.entries(simulators)) {
      expect.soft(script, name).toContain(sim.image);
      expect.soft(script, name).toMatch(new RegExp(`SIM_PORT="\\$\\{\\w+:-${sim.port}\\}"`));
    }
    expect(script.match(/^docker run .*--network host/gm)).toHaveLength(2);
  });
});
