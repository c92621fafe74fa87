export { type GoogleApiError, parseGoogleError } from './google-error';
export {
  type ApiResult,
  createNodePoolApi,
  type NodePoolApi,
  type NodePoolApiOptions,
  type NodePoolRef,
  type NodePoolView,
  type OperationView,
} from './node-pool-api';
export {
  createNodePoolUpgrader,
  isExplicitVersion,
  type NodePoolUpgrader,
  type UpgradeReport,
  type UpgradeRequest,
  type UpgraderOptions,
} from './upgrader';
