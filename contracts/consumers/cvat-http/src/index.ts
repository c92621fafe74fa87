export {
  type Annotations,
  type Label,
  listLabels,
  readAnnotations,
  readLabelPage,
  type Shape,
} from './annotations';
export { type CvatError, parseCvatError } from './cvat-error';
export {
  CVAT_JSON,
  type CvatHttp,
  type CvatHttpOptions,
  type CvatResponse,
  type CvatResult,
  createCvatHttp,
  expectStatus,
  type Query,
} from './cvat-http';
export { asArray, asObject, bool, type Json, num, numOrNull, str, strings, strOrNull } from './read';
export {
  type CvatRequest,
  type CvatRequestStatus,
  type FollowedRequest,
  followRequest,
  type PollOptions,
  readCvatRequest,
} from './request';
