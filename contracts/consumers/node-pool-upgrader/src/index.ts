export { type GoogleApiError, parseGoogleError } from './google-error';
export {
  type ApiResult,
  type BlueGreenUpgradeSettings,
  type BlueGreenView,
  createNodePoolApi,
  type NodePoolApi,
  type NodePoolApiOptions,
  type NodePoolRef,
  type NodePoolView,
  type OperationView,
} from './node-pool-api';
export {
  type BlueGreenStartReport,
  type BlueGreenUpgradeRequest,
  createNodePoolUpgrader,
  isExplicitVersion,
  type NodePoolUpgrader,
  type SoakCompletionReport,
  type UpgradeReport,
  type UpgradeRequest,
  type UpgraderOptions,
} from './upgrader';
