import { type ClusterSimClient, createClusterSimClient } from '@sims/sim-client';
import type { StartedTestContainer } from 'testcontainers';
import { type SimClientChoice, SimContainer, type SimEndpoint, StartedSimContainer } from './sim-container';

/** The image `scripts/docker-images.sh` builds; `SIMS_CLUSTER_SIM_IMAGE` overrides it. */
export const CLUSTER_SIM_IMAGE = 'sims/cluster-sim:dev';
/** cluster-sim's port inside the container (its default port). */
export const CLUSTER_SIM_PORT = 8085;

/**
 * The GKE container API (v1beta1 node pools) simulator in a container.
 *
 * @example
 * const sim = await new ClusterSimContainer().withClock('manual').withSeed(42).start();
 * const gke = new ClusterManagerClient({ apiEndpoint: sim.getBaseUrl(), ... });
 * await sim.client().clock.advance('5m');
 * await sim.stop();
 */
export class ClusterSimContainer extends SimContainer<StartedClusterSimContainer> {
  constructor(image: string = process.env.SIMS_CLUSTER_SIM_IMAGE || CLUSTER_SIM_IMAGE) {
    super(image, 'cluster-sim', CLUSTER_SIM_PORT);
  }

  protected override createStarted(started: StartedTestContainer, endpoint: SimEndpoint) {
    return new StartedClusterSimContainer(started, endpoint);
  }
}

export class StartedClusterSimContainer extends StartedSimContainer {
  /** The cluster-sim control-plane client (`createClusterSimClient` from `@sims/sim-client`). */
  override client(options: SimClientChoice = {}): ClusterSimClient {
    return createClusterSimClient(this.clientOptions(options));
  }
}
