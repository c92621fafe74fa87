export {
  annotationStates,
  clusterStates,
  defineState,
  type ProviderState,
  type StateParam,
  webhookMessageStates,
} from './states';
