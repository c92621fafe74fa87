import { status as GrpcStatus, Metadata, type ServiceError } from '@grpc/grpc-js';
// The default import: protobufjs is CommonJS, whose named exports Node's ESM loader cannot see.
import protobuf, { type Root } from 'protobufjs';

/**
 * The `google.rpc` error details the REST side sends, as error_details.proto declares them (the
 * container protos carry `google.rpc.Status` and `Any` but not these; google-gax's copy is not among
 * its package's exports).
 */
const ERROR_DETAILS = {
  ErrorInfo: {
    fields: {
      reason: { type: 'string', id: 1 },
      domain: { type: 'string', id: 2 },
      metadata: { keyType: 'string', type: 'string', id: 3 },
    },
  },
  RequestInfo: { fields: { requestId: { type: 'string', id: 1 }, servingData: { type: 'string', id: 2 } } },
  BadRequest: {
    fields: { fieldViolations: { rule: 'repeated', type: 'FieldViolation', id: 1 } },
    nested: {
      FieldViolation: {
        fields: {
          field: { type: 'string', id: 1 },
          description: { type: 'string', id: 2 },
          reason: { type: 'string', id: 3 },
          localizedMessage: { type: 'LocalizedMessage', id: 4 },
        },
      },
    },
  },
  LocalizedMessage: { fields: { locale: { type: 'string', id: 1 }, message: { type: 'string', id: 2 } } },
};

/** Adds the error details to a root holding `google.rpc.Status` (the container protos). */
export function addErrorDetails(root: Root): void {
  const rpc = root.lookup('google.rpc');
  if (!(rpc instanceof protobuf.Namespace)) throw new Error('the protos lack google.rpc');
  rpc.addJSON(ERROR_DETAILS);
}

/** A REST answer's `google.rpc.Status` JSON (`{ error: { code, message, status, details } }`). */
interface RestError {
  code?: number;
  message?: string;
  status?: string;
  details?: ({ '@type'?: string } & Record<string, unknown>)[];
}

/** HTTP statuses a body without a canonical name maps to (google.rpc.Code's HTTP mapping). */
const BY_HTTP: Record<number, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
  409: GrpcStatus.ABORTED,
  412: GrpcStatus.FAILED_PRECONDITION,
  429: GrpcStatus.RESOURCE_EXHAUSTED,
  499: GrpcStatus.CANCELLED,
  501: GrpcStatus.UNIMPLEMENTED,
  503: GrpcStatus.UNAVAILABLE,
  504: GrpcStatus.DEADLINE_EXCEEDED,
};

function codeOf(httpStatus: number, error: RestError | undefined): GrpcStatus {
  const named = error?.status ? (GrpcStatus as unknown as Record<string, number>)[error.status] : undefined;
  if (typeof named === 'number') return named;
  return BY_HTTP[httpStatus] ?? (httpStatus >= 500 ? GrpcStatus.INTERNAL : GrpcStatus.UNKNOWN);
}

/**
 * The gRPC status a REST error answer becomes, as GKE's gRPC front end sends it: the code from the
 * canonical name, the message, and `grpc-status-details-bin` (a serialized `google.rpc.Status` whose
 * `details` are the REST body's details as `Any`s). A detail of a type the protos lack is left out.
 */
export function restErrorToStatus(root: Root, httpStatus: number, bodyText: string): ServiceError {
  let error: RestError | undefined;
  try {
    error = (JSON.parse(bodyText) as { error?: RestError }).error;
  } catch {}
  const code = codeOf(httpStatus, error);
  const message = error?.message ?? bodyText;
  const details = [];
  for (const detail of error?.details ?? []) {
    const typeUrl = detail['@type'];
    const name = typeUrl?.slice(typeUrl.lastIndexOf('/') + 1);
    const type = name?.startsWith('google.rpc.') ? root.lookup(name) : null;
    if (!(type instanceof protobuf.Type) || !typeUrl) continue;
    const { '@type': _, ...fields } = detail;
    // `type_url`: the container protos keep Any's field names as declared.
    details.push({ type_url: typeUrl, value: type.encode(type.fromObject(fields)).finish() });
  }
  const metadata = new Metadata();
  const statusType = root.lookupType('google.rpc.Status');
  const status = statusType.fromObject({ code, message, details });
  metadata.set('grpc-status-details-bin', Buffer.from(statusType.encode(status).finish()));
  return Object.assign(new Error(message), { code, details: message, metadata });
}
