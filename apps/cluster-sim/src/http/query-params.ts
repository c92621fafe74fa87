import { fail, ok, type Result } from '../domain/errors';
import type { HttpError } from './errors';
import { snakeToCamel } from './parse';

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

/** Request-message fields a GET may carry in the query (the deprecated ids). */
const MESSAGE_PARAMS = new Set([
  'projectId',
  'zone',
  'clusterId',
  'nodePoolId',
  'operationId',
  'name',
  'parent',
]);

/** Unknown query parameters are rejected like ESF does (when strict). */
export function checkQuery(
  query: Record<string, string>,
  strict: boolean,
  extra?: ReadonlySet<string>,
): Result<void, HttpError> {
  if (!strict) return ok(undefined);
  const violations: { description: string }[] = [];
  for (const name of Object.keys(query)) {
    if (SYSTEM_PARAMS.has(name) || MESSAGE_PARAMS.has(name) || MESSAGE_PARAMS.has(snakeToCamel(name)))
      continue;
    if (extra?.has(name)) continue;
    violations.push({
      description: `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`,
    });
  }
  return violations.length > 0 ? fail({ code: 'BAD_PAYLOAD', violations }) : ok(undefined);
}
