/**
 * The query parameters every method of a Google API takes (a discovery document's `parameters`), as the
 * container API's document has them; Compute's adds the legacy `userIp`.
 */
export const STANDARD_PARAMETERS: Readonly<Record<string, Record<string, unknown>>> = {
  '$.xgafv': { type: 'string', location: 'query', enum: ['1', '2'], description: 'V1 or v2 error format.' },
  access_token: { type: 'string', location: 'query', description: 'OAuth access token.' },
  alt: { type: 'string', location: 'query', enum: ['json', 'media', 'proto'], default: 'json' },
  callback: { type: 'string', location: 'query', description: 'JSONP callback.' },
  fields: { type: 'string', location: 'query', description: 'Partial response selector.' },
  key: { type: 'string', location: 'query', description: 'API key.' },
  oauth_token: { type: 'string', location: 'query', description: 'OAuth 2.0 token.' },
  prettyPrint: { type: 'boolean', location: 'query', default: 'true' },
  quotaUser: { type: 'string', location: 'query' },
  uploadType: { type: 'string', location: 'query' },
  upload_protocol: { type: 'string', location: 'query' },
};
