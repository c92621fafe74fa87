import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClusterSimClient } from '@sims/sim-client';
import { expect, it } from 'vitest';

// The installed package's `cluster-sim` executable, the file `npx cluster-sim` runs. Started with this
// process's own node it is one process, so SIGTERM reaches the simulator itself.
const cli = createRequire(import.meta.url).resolve('@sims/cluster-sim/cli');
const scenarios = fileURLToPath(new URL('../../scenarios/', import.meta.url));

it('runs the CLI on a free port with a scenario and stops it with SIGTERM', async () => {
  const args = ['--port', '0', '--clock', 'manual', '--scenario', 'busy-cluster.yaml'];
  const sim = spawn(process.execPath, [cli, ...args], {
    cwd: scenarios,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // One ready line: "cluster-sim 0.1.0 ready at http://127.0.0.1:<port> (dashboard …, control plane …)".
  const [line] = (await once(createInterface({ input: sim.stdout }), 'line')) as [string];
  const url = /ready at (http:\S+)/.exec(line)?.[1] ?? `no URL in "${line}"`;

  const control = createClusterSimClient({ baseUrl: url });
  expect(await control.health()).toMatchObject({ status: 'ok', simulator: 'cluster-sim' });
  expect((await control.faults.list()).map((rule) => rule.id)).toEqual(['busy-twice']);

  sim.kill('SIGTERM');
  const [code] = await once(sim, 'exit');
  expect(code).toBe(0);
});
