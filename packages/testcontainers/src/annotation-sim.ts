import { type AnnotationSimClient, createAnnotationSimClient } from '@sims/sim-client';
import type { StartedTestContainer } from 'testcontainers';
import {
  randomSecret,
  type SimClientChoice,
  SimContainer,
  type SimEndpoint,
  StartedSimContainer,
} from './sim-container';

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

  /** The seeded CVAT superuser's name and password (`SIM_ADMIN_USERNAME`, `SIM_ADMIN_PASSWORD`). */
  withApiCredentials(username: string, password: string): this {
    return this.withEnvironment({ SIM_ADMIN_USERNAME: username, SIM_ADMIN_PASSWORD: password });
  }

  /** Also a random password for the API superuser unless one was given: never admin/admin on a published port. */
  protected override applySecureDefaults(): void {
    super.applySecureDefaults();
    if (!this.environment.SIM_ADMIN_PASSWORD) this.withEnvironment({ SIM_ADMIN_PASSWORD: randomSecret() });
  }

  protected override createStarted(started: StartedTestContainer, endpoint: SimEndpoint) {
    return new StartedAnnotationSimContainer(started, endpoint, {
      username: this.environment.SIM_ADMIN_USERNAME || 'admin',
      password: this.environment.SIM_ADMIN_PASSWORD ?? 'admin',
    });
  }
}

/** The CVAT superuser the simulator seeded: sign in with these (Basic auth or `POST /api/auth/login`). */
export interface ApiCredentials {
  username: string;
  password: string;
}

export class StartedAnnotationSimContainer extends StartedSimContainer {
  constructor(
    started: StartedTestContainer,
    endpoint: SimEndpoint,
    private readonly credentials: ApiCredentials,
  ) {
    super(started, endpoint);
  }

  /** The superuser's name and password: random unless `withApiCredentials()` set them. */
  getApiCredentials(): ApiCredentials {
    return { ...this.credentials };
  }

  /** The annotation-sim control-plane client (`createAnnotationSimClient` from `@sims/sim-client`). */
  override client(options: SimClientChoice = {}): AnnotationSimClient {
    return createAnnotationSimClient(this.clientOptions(options));
  }
}
