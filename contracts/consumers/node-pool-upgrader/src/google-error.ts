/**
 * What the upgrader reads from a Google API error body:
 * `{"error": {"code", "message", "errors": [{"domain", "message", "reason"}], "status", "details": [Any]}}`.
 * `status` (the canonical gRPC code name) is what tells FAILED_PRECONDITION from INVALID_ARGUMENT:
 * both are HTTP 400 (reference gke-nodepools-v1beta1.md §5.2).
 */
export interface GoogleApiError {
  readonly httpStatus: number;
  /** Canonical code name (`ABORTED`, `FAILED_PRECONDITION`, ...); `UNKNOWN` when the body has none. */
  readonly status: string;
  readonly message: string;
  /** Legacy `errors[0].reason` (`failedPrecondition`, `forbidden`, `authError`, ...). */
  readonly reason?: string;
  /** `google.rpc.RequestInfo.requestId`, quoted in support tickets. */
  readonly requestId?: string;
  /** `google.rpc.ErrorInfo.reason`, e.g. `ACCESS_TOKEN_EXPIRED`. */
  readonly errorInfoReason?: string;
}

const REQUEST_INFO = 'type.googleapis.com/google.rpc.RequestInfo';
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Reads a Google error envelope; tolerates bodies that are not one (a proxy's HTML page, say).
 *
 * @example
 * parseGoogleError(409, { error: { code: 409, message: 'etag mismatch', status: 'ABORTED' } }).status; // 'ABORTED'
 */
export function parseGoogleError(httpStatus: number, body: unknown): GoogleApiError {
  const envelope = isRecord(body) && isRecord(body['error']) ? body['error'] : undefined;
  const legacy = Array.isArray(envelope?.['errors']) ? envelope['errors'].find(isRecord) : undefined;
  const details = Array.isArray(envelope?.['details']) ? envelope['details'].filter(isRecord) : [];
  const requestInfo = details.find((d) => d['@type'] === REQUEST_INFO);
  const errorInfo = details.find((d) => d['@type'] === ERROR_INFO);
  const error: {
    -readonly [K in keyof GoogleApiError]: GoogleApiError[K];
  } = {
    httpStatus,
    status: stringField(envelope, 'status') ?? 'UNKNOWN',
    message: stringField(envelope, 'message') ?? (typeof body === 'string' ? body : `HTTP ${httpStatus}`),
  };
  const reason = stringField(legacy, 'reason');
  const requestId = stringField(requestInfo, 'requestId');
  const errorInfoReason = stringField(errorInfo, 'reason');
  if (reason !== undefined) error.reason = reason;
  if (requestId !== undefined) error.requestId = requestId;
  if (errorInfoReason !== undefined) error.errorInfoReason = errorInfoReason;
  return error;
}
