export type { ApiCredentials } from './annotation-sim';
export {
  ANNOTATION_SIM_IMAGE,
  ANNOTATION_SIM_PORT,
  AnnotationSimContainer,
  StartedAnnotationSimContainer,
} from './annotation-sim';
export {
  CLUSTER_SIM_IMAGE,
  CLUSTER_SIM_PORT,
  ClusterSimContainer,
  StartedClusterSimContainer,
} from './cluster-sim';
export type { SimClientChoice, SimClockMode, SimEndpoint } from './sim-container';
export {
  freePort,
  NETWORK_ENV,
  READY_LINE,
  SCENARIO_DIR,
  SimContainer,
  StartedSimContainer,
  waitForHealth,
} from './sim-container';
