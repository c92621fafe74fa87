import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAnnotationSimClient, createClusterSimClient, waitFor } from '@sims/sim-client';
import { freePort } from '@sims/testcontainers';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { removeContainers, repo, sh, skipReason } from './support';

/**
 * The README's Docker examples against the real images: `examples/docker/run.sh` as it is, and the compose
 * file's services started with the `docker run` each stands for (there is no `docker compose` here).
 * Free ports instead of 8085/8086, so that a running `npm start` does not get in the way.
 */
let started: string[] = [];
afterEach(async () => {
  await removeContainers(started);
  started = [];
});

const healthy = (url: string) =>
  waitFor(() => createClusterSimClient({ baseUrl: url }).health(), { timeout: 20_000, interval: 100 });

describe.skipIf(skipReason)('Docker examples', () => {
  it('run.sh starts both simulators, cluster-sim with the busy-cluster scenario', async () => {
    const [clusterPort, annotationPort] = [await freePort(), await freePort()];
    const out = await sh('bash', ['examples/docker/run.sh'], {
      CLUSTER_SIM_PORT: String(clusterPort),
      ANNOTATION_SIM_PORT: String(annotationPort),
    });
    started = out.split(/\s+/).filter(Boolean);
    expect(started).toHaveLength(2);

    const cluster = `http://127.0.0.1:${clusterPort}`;
    const annotation = `http://127.0.0.1:${annotationPort}`;
    expect(await healthy(cluster)).toMatchObject({ simulator: 'cluster-sim' });
    expect(await healthy(annotation)).toMatchObject({ simulator: 'annotation-sim' });
    const clusterFaults = await createClusterSimClient({ baseUrl: cluster }).faults.list();
    expect(clusterFaults.map((rule) => rule.id)).toEqual(['busy-twice']);
    expect((await createClusterSimClient({ baseUrl: cluster }).clock.get()).mode).toBe('manual');
  });

  it("compose.yaml's services start and become healthy by the images' own HEALTHCHECK", async () => {
    const compose = parse(readFileSync(join(repo, 'examples/docker/compose.yaml'), 'utf8')) as {
      services: Record<string, { image: string; network_mode: string; environment: Record<string, string> }>;
    };
    const ports: Record<string, number> = {
      CLUSTER_SIM_PORT: await freePort(),
      ANNOTATION_SIM_PORT: await freePort(),
    };
    // ${NAME:-default} as compose interpolates it, with the free ports as the variables' values.
    const interpolate = (value: string) =>
      String(value).replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) =>
        String(ports[name] ?? fallback),
      );
    const urls: Record<string, string> = {};
    for (const [name, service] of Object.entries(compose.services)) {
      const env = Object.entries(service.environment).flatMap(([k, v]) => ['-e', `${k}=${interpolate(v)}`]);
      const args = ['run', '-d', '--rm', `--network=${service.network_mode}`, '--health-interval=1s', ...env];
      started.push(await sh('docker', [...args, service.image]));
      urls[name] = `http://127.0.0.1:${interpolate(service.environment.SIM_PORT ?? '')}`;
    }
    expect(Object.keys(urls)).toEqual(['cluster-sim', 'annotation-sim']);
    const cluster = createClusterSimClient({ baseUrl: urls['cluster-sim'] ?? '' });
    const annotation = createAnnotationSimClient({ baseUrl: urls['annotation-sim'] ?? '' });
    await healthy(cluster.baseUrl);
    await healthy(annotation.baseUrl);
    expect((await cluster.clock.get()).mode).toBe('manual');
    expect((await annotation.clock.get()).mode).toBe('manual');
    // What `docker compose up --wait` waits for: the HEALTHCHECK of both images passes.
    const status = () => sh('docker', ['inspect', '--format', '{{.State.Health.Status}}', ...started]);
    expect(
      await waitFor(async () => ((await status()) === 'healthy\nhealthy' ? true : undefined), {
        timeout: 20_000,
        interval: 250,
      }),
    ).toBe(true);
  });

  it("the CI file's service containers become healthy with their env and options", async () => {
    const workflow = parse(readFileSync(join(repo, 'examples/ci/github-actions.yml'), 'utf8')) as {
      jobs: {
        test: { services: Record<string, { image: string; env: Record<string, string>; options: string }> };
      };
    };
    for (const service of Object.values(workflow.jobs.test.services)) {
      // A runner maps the ports; this engine has only host networking, so the port moves instead.
      const port = await freePort();
      const env = Object.entries({ ...service.env, SIM_HOST: '127.0.0.1', SIM_PORT: String(port) });
      const args = ['run', '-d', '--rm', '--network=host', ...env.flatMap(([k, v]) => ['-e', `${k}=${v}`])];
      started.push(await sh('docker', [...args, ...service.options.split(/\s+/), service.image]));
    }
    const status = () => sh('docker', ['inspect', '--format', '{{.State.Health.Status}}', ...started]);
    const healthy = await waitFor(async () => ((await status()) === 'healthy\nhealthy' ? true : undefined), {
      timeout: 30_000,
      interval: 250,
    });
    expect(healthy).toBe(true);
  });
});
