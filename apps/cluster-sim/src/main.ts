#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { loadScenario, nodeProcess, readCliFile, runSimulatorCli } from '@sims/sim-core';
import { startClusterSim } from './app';
import { SIMULATOR_NAME, SIMULATOR_VERSION } from './definition';

/** The `cluster-sim` binary: `cluster-sim --port 8085 --clock manual --scenario faults.yaml`. */
await runSimulatorCli({
  name: SIMULATOR_NAME,
  version: SIMULATOR_VERSION,
  defaultPort: 8085,
  proc: nodeProcess(),
  async start(options) {
    const sim = await startClusterSim({
      port: options.port,
      host: options.host,
      seed: options.seed,
      clock: { mode: options.clock, speed: options.speed },
      adminToken: options.adminToken,
    });
    const world = sim.world();
    try {
      for (const file of options.scenarios)
        loadScenario(sim.kernel.def, world, readCliFile(file, 'scenario'), file);
      if (options.stateFile) {
        let text: string | undefined;
        try {
          text = readFileSync(options.stateFile, 'utf8');
        } catch {
          text = undefined; // no snapshot yet: it is written on exit
        }
        if (text !== undefined) {
          const response = await sim.app.request('/_sim/state', { method: 'PUT', body: text });
          if (!response.ok) throw new Error(`cannot load ${options.stateFile}: ${await response.text()}`);
        }
      }
    } catch (err) {
      await sim.close();
      throw err;
    }
    return {
      url: sim.url,
      port: sim.port,
      host: sim.host,
      server: sim.server,
      close: () => sim.close(),
      async beforeExit() {
        if (!options.stateFile) return;
        const response = await sim.app.request('/_sim/state');
        writeFileSync(options.stateFile, await response.text());
      },
    };
  },
});
