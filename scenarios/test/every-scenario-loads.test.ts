import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAnnotationSim } from '@sims/annotation-sim';
import { createClusterSim } from '@sims/cluster-sim';
import { describe, expect, it } from 'vitest';
import { scenario } from './support';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = readdirSync(folder).filter((f) => f.endsWith('.yaml'));
const CLUSTER =
  /^(demo-cluster|aborted-first-update|slow-realistic-upgrade|busy-cluster|operation-fails-midway|surge-upgrade|blue-green-upgrade)\.yaml$/;

describe('every scenario file', () => {
  it.each(files)('%s loads into its simulator without error', async (file) => {
    const sim = CLUSTER.test(file) ? createClusterSim() : createAnnotationSim();
    const res = await sim.app.request(`/_sim/scenarios?source=${file}`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: scenario(file),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(((await res.json()) as { name: string }).name).toBe(file.replace('.yaml', ''));
    sim.close();
  });
});
