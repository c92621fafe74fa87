import { jsonFieldName } from '@sims/cluster-schema';
import { fail, ok, type Result } from '../domain/errors';
import type { HttpError } from './errors';

/* The query parameters of a request, checked as Google's front end checks them. */

/** Query parameters every Google API accepts (system parameters); they change nothing here. */
const SYSTEM_PARAMS = new Set([
  '$alt',
  'alt',
  'prettyPrint',
  '$prettyPrint',
  'key',
  'fields',
  '$fields',
  '$.xgafv',
  'callback',
  '$callback',
  'quotaUser',
  'access_token',
  'oauth_token',
  'upload_protocol',
  'uploadType',
  'userIp',
]);

/**
 * The system parameters the container API's discovery document declares, with their types, for the
 * OpenAPI document (`$alt`, `$fields`, … are accepted too, undeclared, as Google does).
 */
export const DECLARED_SYSTEM_PARAMS: Readonly<Record<string, { type: string; enum?: string[] }>> = {
  '$.xgafv': { type: 'string', enum: ['1', '2'] },
  access_token: { type: 'string' },
  alt: { type: 'string', enum: ['json', 'media', 'proto'] },
  callback: { type: 'string' },
  fields: { type: 'string' },
  key: { type: 'string' },
  oauth_token: { type: 'string' },
  prettyPrint: { type: 'boolean' },
  quotaUser: { type: 'string' },
  upload_protocol: { type: 'string' },
  uploadType: { type: 'string' },
};

/** Request-message fields a GET may carry in the query (the deprecated ids). */
export const MESSAGE_PARAMS: ReadonlySet<string> = new Set([
  'projectId',
  'zone',
  'clusterId',
  'nodePoolId',
  'operationId',
  'name',
  'parent',
]);

/**
 * Bounds on a request's query, so that no query string costs more than its length to answer. Google's
 * front end refuses an over-long URL with its own 414 page before the API sees it; over a socket Node
 * refuses a request head over 16 KiB (431) first. These hold below that and for in-process requests
 * (`app.request`), answered 400 INVALID_ARGUMENT in the API's envelope with texts of the simulator's own
 * (FIDELITY.md).
 */
export const QUERY_LIMITS = {
  /** Characters of one query name or value, after percent-decoding. */
  valueChars: 8192,
  /** Query parameters of one request, repeats counted. */
  params: 1000,
} as const;

/** The query of a request URL within QUERY_LIMITS, else Google's 400. */
export function checkQueryBounds(url: string): Result<void, HttpError> {
  const at = url.indexOf('?');
  // A short query cannot break a bound (n parameters take 2n - 1 characters): no second parse of it.
  if (at === -1 || url.length - at - 1 < 2 * QUERY_LIMITS.params) return ok(undefined);
  let count = 0;
  for (const [name, value] of new URLSearchParams(url.slice(at + 1))) {
    if (++count > QUERY_LIMITS.params) {
      return fail({
        code: 'INVALID_REQUEST',
        message: `The request has more than ${QUERY_LIMITS.params} query parameters.`,
      });
    }
    if (name.length > QUERY_LIMITS.valueChars) {
      return fail({
        code: 'INVALID_REQUEST',
        message: `A query parameter name is longer than ${QUERY_LIMITS.valueChars} characters.`,
      });
    }
    if (value.length > QUERY_LIMITS.valueChars) {
      return fail({
        code: 'INVALID_REQUEST',
        message: `Invalid value at '${name}': longer than ${QUERY_LIMITS.valueChars} characters.`,
        field: name,
      });
    }
  }
  return ok(undefined);
}

/**
 * The query within its bounds (when the request's URL is given), then unknown query parameters rejected
 * like ESF does (when strict).
 */
export function checkQuery(
  query: Record<string, string>,
  strict: boolean,
  extra?: ReadonlySet<string>,
  url?: string,
): Result<void, HttpError> {
  if (url !== undefined) {
    const bounded = checkQueryBounds(url);
    if (!bounded.ok) return bounded;
  }
  if (!strict) return ok(undefined);
  const violations: { description: string }[] = [];
  for (const name of Object.keys(query)) {
    if (SYSTEM_PARAMS.has(name) || MESSAGE_PARAMS.has(name) || MESSAGE_PARAMS.has(jsonFieldName(name)))
      continue;
    if (extra?.has(name)) continue;
    violations.push({
      description: `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`,
    });
  }
  return violations.length > 0 ? fail({ code: 'BAD_PAYLOAD', violations }) : ok(undefined);
}
