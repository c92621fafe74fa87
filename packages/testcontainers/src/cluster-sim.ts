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
  /**
   * Where gRPC clients connect, `host:port` (plaintext HTTP/2): the same port as REST, which the
   * simulator tells apart by HTTP/2's preface. Insecure channel credentials carry no token: send
   * `authorization: Bearer <any>` as call metadata.
   *
   * @example
   * import { v1 } from '@google-cloud/container';
   * import { credentials } from '@grpc/grpc-js';
   * const [host, port] = sim.getGrpcEndpoint().split(':'); // '127.0.0.1', '32768'
   * const gke = new v1.ClusterManagerClient({ apiEndpoint: host, port: Number(port), sslCreds: credentials.createInsecure() });
   * const [cluster] = await gke.getCluster(
   *   { name: 'projects/p1/locations/us-central1-a/clusters/c1' },
   *   { otherArgs: { headers: { authorization: 'Bearer any-token' } } },
   * );
   */
  getGrpcEndpoint(): string {
    return this.getBaseUrl().replace(/^https?:\/\//, '');
  }

  /** The cluster-sim control-plane client (`createClusterSimClient` from `@sims/sim-client`). */
  override client(options: SimClientChoice = {}): ClusterSimClient {
    return createClusterSimClient(this.clientOptions(options));
  }
}
