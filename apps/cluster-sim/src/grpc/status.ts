import { enumNumbers, RpcCode } from '@sims/cluster-schema';
// The default import: protobufjs is CommonJS, whose named exports Node's ESM loader cannot see.
import protobuf, { type Root } from 'protobufjs';
import type { z } from 'zod';

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

/** google.rpc.Code: the gRPC status codes by their canonical names (cluster-schema's `RpcCode`). */
export const GRPC_CODES = enumNumbers(RpcCode) as Readonly<Record<z.infer<typeof RpcCode>, number>>;

/** HTTP statuses a body without a canonical name maps to (google.rpc.Code's HTTP mapping). */
const BY_HTTP: Record<number, number> = {
  400: GRPC_CODES.INVALID_ARGUMENT,
  401: GRPC_CODES.UNAUTHENTICATED,
  403: GRPC_CODES.PERMISSION_DENIED,
  404: GRPC_CODES.NOT_FOUND,
  409: GRPC_CODES.ABORTED,
  412: GRPC_CODES.FAILED_PRECONDITION,
  429: GRPC_CODES.RESOURCE_EXHAUSTED,
  499: GRPC_CODES.CANCELLED,
  501: GRPC_CODES.UNIMPLEMENTED,
  503: GRPC_CODES.UNAVAILABLE,
  504: GRPC_CODES.DEADLINE_EXCEEDED,
};

function codeOf(httpStatus: number, error: RestError | undefined): number {
  const named = error?.status ? (GRPC_CODES as Record<string, number>)[error.status] : undefined;
  if (typeof named === 'number') return named;
  return BY_HTTP[httpStatus] ?? (httpStatus >= 500 ? GRPC_CODES.INTERNAL : GRPC_CODES.UNKNOWN);
}

/** A call's gRPC status other than OK: its code, message and `grpc-status-details-bin` if any. */
export interface GrpcError {
  code: number;
  message: string;
  details?: Buffer;
}

/** Turns a REST error answer (its HTTP status and body text) into the gRPC status GKE sends. */
export type RestErrorToStatus = (httpStatus: number, bodyText: string) => GrpcError;

/**
 * The gRPC status a REST error answer becomes, as GKE's gRPC front end sends it: the code from the
 * canonical name, the message, and `grpc-status-details-bin` (a serialized `google.rpc.Status` whose
 * `details` are the REST body's details as `Any`s). A detail of a type the protos lack is left out.
 * The types are looked up once, here (each lookup walks the root's namespaces).
 */
export function restErrorToStatus(root: Root): RestErrorToStatus {
  const statusType = root.lookupType('google.rpc.Status');
  const byUrl = new Map<string, protobuf.Type | undefined>();
  const detailType = (typeUrl: string): protobuf.Type | undefined => {
    if (!byUrl.has(typeUrl)) {
      const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
      const type = name.startsWith('google.rpc.') ? root.lookup(name) : null;
      byUrl.set(typeUrl, type instanceof protobuf.Type ? type : undefined);
    }
    return byUrl.get(typeUrl);
  };
  return (httpStatus, bodyText) => {
    let error: RestError | undefined;
    try {
      error = (JSON.parse(bodyText) as { error?: RestError }).error;
    } catch {}
    const code = codeOf(httpStatus, error);
    const message = error?.message ?? bodyText;
    const details = [];
    for (const detail of error?.details ?? []) {
      const typeUrl = detail['@type'];
      const type = typeUrl ? detailType(typeUrl) : undefined;
      if (!type || !typeUrl) continue;
      const { '@type': _, ...fields } = detail;
      // `type_url`: the container protos keep Any's field names as declared.
      details.push({ type_url: typeUrl, value: type.encode(type.fromObject(fields)).finish() });
    }
    const status = statusType.fromObject({ code, message, details });
    return { code, message, details: Buffer.from(statusType.encode(status).finish()) };
  };
}
