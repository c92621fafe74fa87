import { type AnnotationSimClient, createAnnotationSimClient } from '@sims/sim-client';
import type { StartedTestContainer } from 'testcontainers';
import { type SimClientChoice, SimContainer, type SimEndpoint, StartedSimContainer } from './sim-container';

/** The image `scripts/docker-images.sh` builds; `SIMS_ANNOTATION_SIM_IMAGE` overrides it. */
export const ANNOTATION_SIM_IMAGE = 'sims/annotation-sim:dev';
/** annotation-sim's port inside the container (its default port). */
export const ANNOTATION_SIM_PORT = 8086;

/**
 * The CVAT webhooks and events API simulator in a container.
 *
 * @example
 * const sim = await new AnnotationSimContainer().withScenario('scenarios/flaky-webhook-receiver.yaml').start();
 * const cvatUrl = sim.getBaseUrl();
 * await sim.client().journal.waitFor({ operation: 'webhooks.deliver' });
 * await sim.stop();
 */
export class AnnotationSimContainer extends SimContainer<StartedAnnotationSimContainer> {
  constructor(image: string = process.env.SIMS_ANNOTATION_SIM_IMAGE || ANNOTATION_SIM_IMAGE) {
    super(image, 'annotation-sim', ANNOTATION_SIM_PORT);
  }

  protected override createStarted(started: StartedTestContainer, endpoint: SimEndpoint) {
    return new StartedAnnotationSimContainer(started, endpoint);
  }
}

export class StartedAnnotationSimContainer extends StartedSimContainer {
  /** The annotation-sim control-plane client (`createAnnotationSimClient` from `@sims/sim-client`). */
  override client(options: SimClientChoice = {}): AnnotationSimClient {
    return createAnnotationSimClient(this.clientOptions(options));
  }
}
