/** The request a control-plane error answered. */
export interface SimControlRequest {
  method: string;
  url: string;
}

export interface SimControlErrorInit {
  status: number;
  reason: string;
  message: string;
  path?: string;
  request: SimControlRequest;
  /** The response body as text, when it was not the control plane's envelope. */
  body?: string;
}

/**
 * A non-2xx answer from the control plane, carrying its envelope
 * `{ "error": { "status", "reason", "message", "path"? } }`.
 *
 * An answer that is not the control envelope (a proxy's 502, the emulated API's 404 for an unknown
 * `/_sim` route) becomes a SimControlError too, with reason `UNEXPECTED_RESPONSE` and the body in `body`,
 * so a test never mistakes a provider-shaped error for a control-plane one.
 *
 * @example
 * try {
 *   await sim.faults.add({ effect: { error: { status: 'ABORTED' } }, trigger: { times: 0 } });
 * } catch (err) {
 *   if (err instanceof SimControlError && err.status === 400) console.log(err.path); // 'trigger.times'
 * }
 */
export class SimControlError extends Error {
  override readonly name = 'SimControlError';
  /** HTTP status. */
  readonly status: number;
  /** The envelope's reason: `INVALID_INPUT`, `UNAUTHENTICATED`, `NOT_FOUND`, `TIMEOUT`, … */
  readonly reason: string;
  /** Where in the input the problem is (`trigger.times`, `faults[0].effect`), when the server said. */
  readonly path?: string;
  readonly request: SimControlRequest;
  readonly body?: string;

  constructor(init: SimControlErrorInit) {
    super(init.message);
    this.status = init.status;
    this.reason = init.reason;
    this.path = init.path;
    this.request = init.request;
    this.body = init.body;
  }

  override toString(): string {
    const where = this.path ? ` at ${this.path}` : '';
    return `${this.name}: ${this.request.method} ${this.request.url} → ${this.status} ${this.reason}${where}: ${this.message}`;
  }
}

/** Thrown by the `waitFor` helpers when what they wait for did not happen in time. */
export class SimWaitTimeoutError extends Error {
  override readonly name = 'SimWaitTimeoutError';
}

/**
 * Builds a SimControlError from a response body, reading the control envelope when there is one.
 *
 * @example parseControlError(400, '{"error":{"status":400,"reason":"INVALID_INPUT","message":"bad"}}', { method: 'POST', url: '/_sim/faults' })
 */
export function parseControlError(status: number, text: string, request: SimControlRequest): SimControlError {
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const envelope = (parsed as { error?: unknown } | undefined)?.error;
  if (
    envelope !== null &&
    typeof envelope === 'object' &&
    typeof (envelope as { message?: unknown }).message === 'string' &&
    typeof (envelope as { reason?: unknown }).reason === 'string'
  ) {
    const e = envelope as { status?: number; reason: string; message: string; path?: string };
    return new SimControlError({
      status: typeof e.status === 'number' ? e.status : status,
      reason: e.reason,
      message: e.message,
      path: typeof e.path === 'string' ? e.path : undefined,
      request,
    });
  }
  const preview = text.length > 500 ? `${text.slice(0, 500)}…` : text;
  return new SimControlError({
    status,
    reason: 'UNEXPECTED_RESPONSE',
    message: `${request.method} ${request.url} answered ${status} without the control-plane error envelope: ${preview || '(empty body)'}`,
    request,
    body: text,
  });
}
