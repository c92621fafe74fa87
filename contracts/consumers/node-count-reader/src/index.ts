export {
  type ApiResult,
  createNodeCountApi,
  type ManagerPage,
  type ManagerRef,
  type ManagerView,
  managerRefOf,
  type NodeCountApi,
  type NodeCountApiOptions,
  type PoolRef,
} from './node-count-api';
export {
  createNodeCountReader,
  type NodeCountRead,
  type NodeCountReader,
  type ReadMode,
} from './node-count-reader';
