// One outgoing webhook request as the delivery engine hands it on: what outbound.ts puts in python-requests'
// words once it was sent, and what the thread protocol (thread/protocol.ts) encodes for the delivery thread.
// Apart from both, so the protocol needs nothing from the module that reads its outcomes.

/** One outgoing webhook POST, exactly as it will be written to the wire. */
export interface OutboundRequest {
  url: string;
  /** Header name → value, in the order python-requests sends them. */
  headers: [string, string][];
  body: Buffer;
  /** The body as a string of the same UTF-8 bytes, when the caller has it (the engine does: its bodies are ASCII). */
  bodyText?: string;
  /** `enable_ssl`: false skips certificate verification. */
  verifyTls: boolean;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /**
   * The whole exchange's deadline (connect, write and the complete answer), as CVAT's RQ job time-out
   * bounds a delivery job; absent: none, only the connect and read time-outs.
   */
  deadlineMs?: number;
  /**
   * The addresses the egress policy checked for the URL's host name (src/delivery/egress.ts): the
   * connection goes to these, in order, and the name is not resolved again. Absent for an IP address
   * host (nothing to resolve).
   */
  addresses?: string[];
}
