import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What a connection that opens with HTTP/2's preface is handed to (the gRPC server's injector). */
export interface Http2Sink {
  injectConnection(socket: Socket): void;
  /** Closes every connection handed over. */
  destroy(): void;
}

/** The client preface every HTTP/2 connection starts with (RFC 9113 §3.4); no HTTP/1.1 request does. */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * Lets one port serve both transports: each new connection of `server` is read until its first bytes
 * tell HTTP/2's preface from an HTTP/1.1 request line, the bytes are put back, and the connection goes
 * to the HTTP/1.1 server as before or to the sink `load` builds on the first HTTP/2 connection (so the
 * protos and @grpc/grpc-js load on first use, not at start). Returns the function that closes what the
 * sink holds and the connections still being read.
 */
export function serveHttp2OnSamePort(server: Server, load: () => Promise<Http2Sink>): () => void {
  const http1 = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const sniffing = new Set<Socket>();
  let sink: Promise<Http2Sink> | undefined;
  let closed = false;
  const toHttp1 = (socket: Socket) => {
    for (const listener of http1) listener.call(server, socket);
  };
  const toHttp2 = (socket: Socket) => {
    // Node's HTTP/1.1 server turns Nagle's algorithm off on each connection it takes (its `noDelay`);
    // this one never reaches it. With Nagle on, an answer's trailers (a frame of their own) waited for
    // the client's delayed ACK: ~40 ms a call, gRPC at a tenth of REST's throughput.
    socket.setNoDelay(true);
    sink ??= load();
    sink.then(
      (s) => (closed ? socket.destroy() : s.injectConnection(socket)),
      (err: Error) => {
        socket.destroy();
        process.emitWarning(`cluster-sim: the gRPC server did not load: ${err.message}`);
      },
    );
  };
  server.on('connection', (socket: Socket) => {
    sniffing.add(socket);
    let seen: Buffer = Buffer.alloc(0);
    const decide = (chunk: Buffer) => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, PREFACE.length);
      const h2 = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (h2 && n < PREFACE.length) return; // a prefix of the preface: read on
      socket.off('data', decide);
      socket.off('close', gone);
      sniffing.delete(socket);
      if (h2) {
        // Put back for the HTTP/2 session, which reads what the socket holds when it binds it.
        socket.pause();
        socket.unshift(seen);
        toHttp2(socket);
        return;
      }
      // HTTP/1.1's server binds its parser to the socket's handle (what arrives next goes straight to
      // it) and listens to 'data': the bytes read so far are handed to that listener, in order, before
      // anything else can arrive (this all runs in one turn), and the stream keeps flowing.
      socket.off('error', drop);
      toHttp1(socket);
      socket.emit('data', seen);
    };
    const gone = () => sniffing.delete(socket);
    const drop = () => socket.destroy();
    socket.on('error', drop);
    socket.on('data', decide);
    socket.once('close', gone);
  });
  return () => {
    closed = true;
    for (const socket of sniffing) socket.destroy();
    sniffing.clear();
    sink?.then(
      (s) => s.destroy(),
      () => undefined,
    );
  };
}
