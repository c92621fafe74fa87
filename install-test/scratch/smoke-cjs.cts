// TypeScript compiled to CommonJS (a .cts file under NodeNext): the `require` condition's declarations.
import assert = require('node:assert/strict');
import clusterSim = require('@sims/cluster-sim');
import simClient = require('@sims/sim-client');

async function main(): Promise<void> {
  const sim: clusterSim.StartedClusterSim = await clusterSim.startClusterSim({
    port: 0,
    clock: { mode: 'manual' },
  });
  try {
    const health = await simClient.createClusterSimClient({ baseUrl: sim.url }).health();
    assert.equal(health.status, 'ok');
  } finally {
    await sim.close();
  }
  console.log('smoke-cjs.cts: ok');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
