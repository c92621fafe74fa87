// CommonJS, run with plain `node require.cjs`: what jest and other `require` runners load.
const assert = require('node:assert/strict');
const { startClusterSim } = require('@sims/cluster-sim');
const { startAnnotationSim } = require('@sims/annotation-sim');
const { createClusterSimClient } = require('@sims/sim-client');
const { ClusterSimContainer } = require('@sims/testcontainers');

assert.equal(typeof startAnnotationSim, 'function');
assert.equal(typeof ClusterSimContainer, 'function');

(async () => {
  const sim = await startClusterSim({ port: 0, clock: { mode: 'manual' } });
  try {
    const health = await createClusterSimClient({ baseUrl: sim.url }).health();
    assert.equal(health.status, 'ok');
  } finally {
    await sim.close();
  }
  console.log('require.cjs: ok');
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
