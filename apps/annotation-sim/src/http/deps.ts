import type { SimKernel } from '@sims/sim-core';
import type { DeliveryEngine } from '../delivery/engine';
import type { AnnotationState } from '../domain/state';
import type { RouteDeps } from './api';

/** CVAT behaviours that are bugs or accidents of the real service, reproduced by default. */
export interface Quirks {
  /** `type: "project"` without `project_id` (or `organization` with one) is a DB-constraint 500. */
  webhookConstraint500: boolean;
  /** An unknown `delivery_id` is an unhandled DoesNotExist: 500 (off: 404). */
  unknownDelivery500: boolean;
}

export interface AppDeps extends RouteDeps {
  quirks: Quirks;
  /** The delivery engine of a world. */
  delivery(state: AnnotationState): DeliveryEngine;
}

export type Kernel = SimKernel<AnnotationState>;
