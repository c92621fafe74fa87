import http2, { type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import { gunzipSync, inflateSync } from 'node:zlib';
import type { Http2Sink } from './same-port';
import { GRPC_CODES, type GrpcError } from './status';

/**
 * A unary method: the request message's bytes and the call's metadata (a record of its own, the
 * method's to keep or change) → the response message's length-prefixed frame (`grpcFrame`) or a status.
 */
export type UnaryMethod = (
  request: Uint8Array,
  metadata: Record<string, string>,
) => Promise<{ ok: true; frame: Uint8Array } | { ok: false; error: GrpcError }>;

/** The largest request message taken, as gRPC's default receive limit (4 MiB). */
const MAX_MESSAGE = 4 * 1024 * 1024;

/** Request headers that are HTTP/2 or gRPC framing, not call metadata a REST request carries. */
const FRAMING = /^(:|grpc-|content-type$|te$|user-agent$)/;

const RESPONSE_HEADERS = {
  ':status': 200,
  'content-type': 'application/grpc+proto',
  'grpc-accept-encoding': 'identity,deflate,gzip',
};

/** A status message that needs no percent-encoding: printable ASCII without `%`. */
const PLAIN = /^[\x20-\x24\x26-\x7e]*$/;

/**
 * gRPC's status message header: percent-encoded outside printable ASCII and `%` (the gRPC over HTTP/2
 * protocol's Status-Message), so that UTF-8 texts reach the client whole.
 */
function statusMessage(text: string): string {
  if (PLAIN.test(text)) return text;
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A trailers-only answer: the status in the headers, no message. */
function refuse(stream: ServerHttp2Stream, error: GrpcError): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond(
    {
      ...RESPONSE_HEADERS,
      'grpc-status': String(error.code),
      'grpc-message': statusMessage(error.message),
      ...(error.details ? { 'grpc-status-details-bin': error.details.toString('base64') } : {}),
    },
    { endStream: true },
  );
}

/** A message as gRPC frames it: no compression flag, its length (big-endian), the message. */
export function grpcFrame(message: Uint8Array): Uint8Array {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

function answer(stream: ServerHttp2Stream, frame: Uint8Array): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
  stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', 'grpc-message': 'OK' }));
  stream.end(frame);
}

function metadataOf(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in headers) {
    const value = headers[key];
    if (FRAMING.test(key) || key.endsWith('-bin') || value === undefined) continue;
    out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The one length-prefixed message of a unary request, inflated when its flag says it is compressed. */
function messageOf(body: Buffer, encoding: string | undefined): Uint8Array | GrpcError {
  if (body.length < 5) {
    return { code: GRPC_CODES.UNIMPLEMENTED, message: 'Unary request with no message' };
  }
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) {
    return { code: GRPC_CODES.UNIMPLEMENTED, message: 'Unary request with more or less than one message' };
  }
  const message = body.subarray(5);
  if (body[0] === 0) return message;
  try {
    if (encoding === 'gzip') return gunzipSync(message, { maxOutputLength: MAX_MESSAGE });
    if (encoding === 'deflate') return inflateSync(message, { maxOutputLength: MAX_MESSAGE });
  } catch (err) {
    return {
      code: GRPC_CODES.INTERNAL,
      message: `Received invalid ${encoding} message: ${(err as Error).message}`,
    };
  }
  return {
    code: GRPC_CODES.UNIMPLEMENTED,
    message: `Received message compressed with unsupported encoding "${encoding ?? 'identity'}"`,
  };
}

function serveStream(
  methods: ReadonlyMap<string, UnaryMethod>,
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
): void {
  stream.on('error', () => stream.destroy());
  const contentType = headers['content-type'];
  if (typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) {
    // The gRPC over HTTP/2 protocol: a request of another content type gets HTTP's 415.
    stream.respond({ ':status': 415, 'content-type': 'text/plain' });
    stream.end(`unsupported content-type ${String(contentType)}: this port serves gRPC over HTTP/2\n`);
    return;
  }
  const path = String(headers[':path']);
  const method = headers[':method'] === 'POST' ? methods.get(path) : undefined;
  if (!method) {
    stream.resume();
    refuse(stream, {
      code: GRPC_CODES.UNIMPLEMENTED,
      message: `The server does not implement the method ${path}`,
    });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let declared = -1;
  stream.on('data', (chunk: Buffer) => {
    if (stream.headersSent) return; // refused: the rest is read and dropped
    chunks.push(chunk);
    size += chunk.length;
    if (declared < 0 && size >= 5) declared = Buffer.concat(chunks, size).readUInt32BE(1);
    // Refused as soon as the prefix declares too much, not after 4 MiB more have been read and kept.
    if (declared > MAX_MESSAGE || size > MAX_MESSAGE + 5) {
      refuse(stream, {
        code: GRPC_CODES.RESOURCE_EXHAUSTED,
        message: `Received message larger than max (${Math.max(declared, size - 5)} vs. ${MAX_MESSAGE})`,
      });
      chunks.length = 0;
    }
  });
  stream.on('end', () => {
    if (stream.headersSent) return;
    const grpcEncoding = headers['grpc-encoding'];
    const message = messageOf(
      chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size),
      typeof grpcEncoding === 'string' ? grpcEncoding : undefined,
    );
    if (!(message instanceof Uint8Array)) return refuse(stream, message);
    method(message, metadataOf(headers)).then(
      (result) => (result.ok ? answer(stream, result.frame) : refuse(stream, result.error)),
      (err: Error) => refuse(stream, { code: GRPC_CODES.INTERNAL, message: err.message }),
    );
  });
}

/**
 * Unary gRPC over HTTP/2 (plaintext, prior knowledge), on node:http2 itself: each stream's one message
 * handed to its method by path, the answer sent as a message and trailers, an error as a trailers-only
 * answer with `grpc-status-details-bin`. It listens on no port: connections come from
 * `serveHttp2OnSamePort`. (Why not @grpc/grpc-js's server: docs/decisions/0025-grpc-transport.md.)
 */
export function createUnarySink(methods: ReadonlyMap<string, UnaryMethod>): Http2Sink {
  const server = http2.createServer();
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.on('error', () => session.destroy());
  });
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) =>
    serveStream(methods, stream, headers),
  );
  return {
    injectConnection: (socket) => server.emit('connection', socket),
    destroy: () => {
      for (const session of sessions) session.destroy();
      sessions.clear();
      server.close();
    },
  };
}
