export type { ClusterSim, ClusterSimOptions, StartedClusterSim } from './app';
export { createClusterSim, startClusterSim } from './app';
export type {
  ClusterView,
  OperationMetricView,
  OperationView,
  PoolAutoscalingView,
  PoolRolloutView,
  PoolView,
} from './control/views';
export { domainEffects, SIMULATOR_NAME, SIMULATOR_VERSION } from './definition';
export type { DomainError } from './domain/errors';
export type { SeedInput, SeedResult } from './domain/seed';
export type { ClusterState, Principal, Settings } from './domain/state';
export { DEFAULT_SETTINGS, defaultServerConfig } from './domain/state';
export { resolveNodeVersion } from './domain/versions';
export type { HttpError } from './http/errors';
export { createOpenApiDocument } from './http/openapi';
