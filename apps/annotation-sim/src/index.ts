export type { AnnotationSim, AnnotationSimOptions, StartedAnnotationSim } from './app';
export { createAnnotationSim, startAnnotationSim } from './app';
export type {
  AnnotationCountView,
  AnnotationEventView,
  AnnotationsControlView,
  JobAnnotationsView,
} from './control/annotations-view';
export type { DeliverySettings } from './control/deliveries';
export type {
  BasicUserView,
  DeliveryView,
  EventsControlView,
  ExportJobView,
  RedeliverResult,
  WebhooksView,
  WebhookView,
} from './control/views';
export { createAnnotationDefinition, SIMULATOR_NAME, SIMULATOR_VERSION } from './definition';
export type { EgressPolicy, EgressResolver, EgressSettings } from './delivery/egress';
export { EGRESS_POLICIES } from './delivery/egress';
export type { DeliveryEngine, DeliveryOptions, OutboundEntry } from './delivery/engine';
export { CVAT_RETRY_DELAYS_S } from './delivery/engine';
export type { OutboundRequest, OutboundResult, WebhookSender } from './delivery/sender';
export { createHttpSender, createWorkerSender } from './delivery/sender';
export type { Actor, ResourceChange } from './domain/changes';
export { createEventPayload, createPingPayload } from './domain/payloads';
export { pythonJsonDumps } from './domain/python-json';
export type { SeedInput } from './domain/seed';
export { signWebhookBody } from './domain/signing';
export type { AnnotationState, Compat } from './domain/state';
