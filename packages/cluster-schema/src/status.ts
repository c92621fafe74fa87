import * as z from 'zod';

/** `google.rpc.ErrorInfo`. */
export const ErrorInfo = z.object({
  '@type': z.literal('type.googleapis.com/google.rpc.ErrorInfo'),
  reason: z.string(),
  domain: z.string(),
  metadata: z.record(z.string(), z.string()).optional(),
});

/** `google.rpc.BadRequest`. */
export const BadRequest = z.object({
  '@type': z.literal('type.googleapis.com/google.rpc.BadRequest'),
  fieldViolations: z.array(z.object({ field: z.string().optional(), description: z.string() })),
});

/** `google.rpc.RequestInfo`. */
export const RequestInfo = z.object({
  '@type': z.literal('type.googleapis.com/google.rpc.RequestInfo'),
  requestId: z.string(),
  servingData: z.string().optional(),
});

export const ErrorDetail = z.union([ErrorInfo, BadRequest, RequestInfo]);

/** `google.rpc.Status` as it appears inside `Operation.error` (code is the gRPC number). */
export const RpcStatus = z.object({
  code: z.int().optional(),
  message: z.string().optional(),
  details: z.array(z.looseObject({ '@type': z.string() })).optional(),
});

/**
 * One entry of the legacy `errors[]` array of the front end's error body. `domain` is `global` almost
 * always; the front end's type error for a bad enum value has none (`reason: invalid`, as recorded).
 */
export const LegacyError = z.object({
  domain: z.string().optional(),
  reason: z.string(),
  message: z.string(),
  location: z.string().optional(),
  locationType: z.string().optional(),
});

/**
 * The REST error body of Google's front end: `code` is the HTTP status, `status` the canonical gRPC
 * name, `errors[0].message` equals `message` (gaxios prints those messages).
 */
export const ErrorEnvelope = z.object({
  error: z.object({
    code: z.int(),
    message: z.string(),
    errors: z.array(LegacyError),
    status: z.string(),
    details: z.array(ErrorDetail).optional(),
  }),
});
