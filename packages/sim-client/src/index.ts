export type {
  AnnotationSimClient,
  DeliveryQueueStats,
  DeliverySettings,
  EventsControlState,
  EventsSettings,
  ExportJobView,
  OutboundDelivery,
  OutboundDeliveryFilter,
  RedeliverResult,
  WebhookDeliveryView,
  WebhookView,
} from './annotation';
export { createAnnotationSimClient } from './annotation';
export type {
  AddedFaultRule,
  FaultRuleHandle,
  JournalWaitOptions,
  SimClient,
  SimClientOptions,
  SimClock,
  SimFaults,
  SimJournal,
  SimNamespaces,
  SimRequestOptions,
} from './client';
export {
  ADMIN_TOKEN_HEADER,
  createSimClient,
  isFaultRuleHandle,
  isSimClient,
  NAMESPACE_HEADER,
} from './client';
export type {
  ClusterOperation,
  ClusterOperationStatus,
  ClusterOperationView,
  ClusterServerConfig,
  ClusterSimClient,
  ClusterSimPrincipal,
  ClusterSimSettings,
  ClusterSimSettingsPatch,
  ClusterView,
  NodePoolRolloutView,
  NodePoolView,
  RpcCodeName,
} from './cluster';
export { createClusterSimClient } from './cluster';
export { toMilliseconds } from './duration';
export type { SimControlErrorInit, SimControlRequest } from './errors';
export { parseControlError, SimControlError, SimWaitTimeoutError } from './errors';
export { describeFilter, formatEntry } from './format';
export type {
  ClockMode,
  ClockState,
  ClockTime,
  ConnectionEffect,
  DelayEffect,
  Duration,
  ErrorEffect,
  FaultEffect,
  FaultMatch,
  FaultRule,
  FaultRuleInput,
  FaultTrigger,
  HealthStatus,
  HttpEffect,
  JournalEntry,
  JournalFilter,
  JournalStats,
  NamespaceCreateResult,
  ScenarioInput,
  ScenarioResult,
  SeedResult,
  SimStateSnapshot,
} from './types';
export type { WaitForOptions } from './wait-for';
export { waitFor } from './wait-for';
export type {
  DeliveryAnswer,
  ReceivedDelivery,
  WebhookReceiver,
  WebhookReceiverOptions,
} from './webhook-receiver';
export {
  SIGNATURE_HEADER,
  signWebhookBody,
  startWebhookReceiver,
  verifyWebhookSignature,
} from './webhook-receiver';
