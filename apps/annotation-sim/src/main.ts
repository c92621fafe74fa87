import { loadScenario, nodeProcess, readCliFile, runSimulatorCli } from '@sims/sim-core';
import { startAnnotationSim } from './app';
import { SIMULATOR_NAME, SIMULATOR_VERSION } from './simulator';

/** `annotation-sim --port 8086 --scenario faults.yaml`: serve, print the ready line, stop on SIGTERM. */
await runSimulatorCli({
  name: SIMULATOR_NAME,
  version: SIMULATOR_VERSION,
  defaultPort: 8086,
  proc: nodeProcess(),
  async start(options) {
    const sim = await startAnnotationSim({
      port: options.port,
      host: options.host,
      seed: options.seed,
      clock: { mode: options.clock, speed: options.speed },
      adminToken: options.adminToken,
      admin: {
        username: process.env.SIM_ADMIN_USERNAME ?? 'admin',
        password: process.env.SIM_ADMIN_PASSWORD ?? 'admin',
      },
      signedUrls: process.env.SIM_SIGNED_URLS === 'true',
      strictAccept: process.env.SIM_STRICT_ACCEPT !== 'false',
      compat: { taskSegments: process.env.SIM_TASK_SEGMENTS === 'true' },
    });
    try {
      for (const file of options.scenarios)
        loadScenario(sim.kernel.def, sim.world(), readCliFile(file, 'scenario'), file);
    } catch (err) {
      await sim.close();
      throw err;
    }
    return { url: sim.url, port: sim.port, host: options.host, server: sim.server, close: sim.close };
  },
});
