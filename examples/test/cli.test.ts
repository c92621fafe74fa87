import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClusterSimClient } from '@sims/sim-client';
import { expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));

it('runs the CLI on a free port with a scenario and stops it with SIGTERM', async () => {
  // After `pnpm build` the same flags work with `node apps/cluster-sim/dist/main.js` (the `cluster-sim` bin).
  const args = ['--port', '0', '--clock', 'manual', '--scenario', 'scenarios/busy-cluster.yaml'];
  const cli = spawn('node', ['--import', 'tsx', 'apps/cluster-sim/src/main.ts', ...args], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // One ready line: "cluster-sim 0.1.0 ready at http://127.0.0.1:<port> (control plane …)".
  const [line] = (await once(createInterface({ input: cli.stdout }), 'line')) as [string];
  const url = /ready at (http:\S+)/.exec(line)?.[1] ?? `no URL in "${line}"`;

  const control = createClusterSimClient({ baseUrl: url });
  expect(await control.health()).toMatchObject({ status: 'ok', simulator: 'cluster-sim' });
  expect((await control.faults.list()).map((rule) => rule.id)).toEqual(['busy-twice']);

  cli.kill('SIGTERM');
  const [code] = await once(cli, 'exit');
  expect(code).toBe(0);
});
