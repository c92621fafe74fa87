export type { CliIo } from './cli';
export { parseVerifyArgs, runVerifyCli, verifyUsage } from './cli';
export type {
  MessageRequest,
  ProducedMessage,
  ProviderDefinition,
  ProviderSession,
  StateHandler,
  StateParams,
} from './provider';
export { int, paramsOf, str, strings } from './provider';
export type {
  BrokerOptions,
  ConsumerVersionSelector,
  Mismatch,
  ProviderResult,
  VerifyOptions,
  VerifyResult,
} from './verify';
export { collectPactFiles, mismatchesOf, verifyPacts } from './verify';
