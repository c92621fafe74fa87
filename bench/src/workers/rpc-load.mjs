// Figure 11's load generator (in its own process): `concurrency` callers, each sending its next call as soon
// as the last one is answered, for `seconds`, over one transport:
//   rest <url> <method> <body|->   node:http with a keep-alive agent of `concurrency` sockets
//   grpc <host:port> <rpc> <json>  one HTTP/2 session (node:http2, plaintext), each call a stream carrying the
//                                  request message encoded once, its gRPC status read from the trailers
//   grpc-js <host:port> <rpc> <json>  the same through one @grpc/grpc-js channel (Google's clients' transport)
// None parses the answers. `grpc` costs the client about what node:http does per call, as autocannon does
// in figure 3, so the figure measures the server; `grpc-js` shows what a Cloud Client Library adds.
// Prints one JSON line: { calls, seconds, rps, p50, p99, codes }, codes by HTTP status or gRPC status code.
// Traffic goes to 127.0.0.1 only. The gRPC modules and Google's protos are resolved from cluster-sim's
// own dependencies (the versions it serves), not the bench's.
import http from 'node:http';
import http2 from 'node:http2';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [transport, target, what, payload, secondsArg, concurrencyArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 16);
const AUTH = 'Bearer bench';

const latencies = [];
const codes = {};
const count = (code) => {
  codes[code] = (codes[code] ?? 0) + 1;
};

function restCaller() {
  const url = new URL(target);
  if (url.hostname !== '127.0.0.1') throw new Error('bench traffic stays on 127.0.0.1');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const body = payload === '-' ? undefined : payload;
  const headers = { authorization: AUTH, ...(body ? { 'content-type': 'application/json' } : {}) };
  return () =>
    new Promise((done, fail) => {
      const req = http.request(url, { method: what, headers, agent }, (res) => {
        res.on('data', () => {});
        res.on('end', () => done(res.statusCode));
        res.on('error', fail);
      });
      req.on('error', fail);
      req.end(body);
    });
}

/** The request message of `what` (`google.container.v1beta1.ClusterManager/GetNodePool`) encoded from `payload`. */
function encodedRequest(app) {
  const protobuf = app('protobufjs');
  const root = protobuf.Root.fromJSON(app('@google-cloud/container/build/protos/protos.json'));
  const [service, method] = what.split('/');
  const rpc = root.lookupService(service).methods[method];
  rpc.resolve();
  const type = rpc.resolvedRequestType;
  return Buffer.from(type.encode(type.fromObject(JSON.parse(payload))).finish());
}

function clusterSimRequire() {
  if (!target.startsWith('127.0.0.1:')) throw new Error('bench traffic stays on 127.0.0.1');
  return createRequire(
    join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'apps/cluster-sim/package.json'),
  );
}

function http2Caller() {
  const message = encodedRequest(clusterSimRequire());
  // gRPC's length-prefixed message: no compression flag, the length big-endian, the message.
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  const session = http2.connect(`http://${target}`);
  const headers = {
    ':method': 'POST',
    ':path': `/${what}`,
    'content-type': 'application/grpc',
    te: 'trailers',
    authorization: AUTH,
  };
  return () =>
    new Promise((done, fail) => {
      const stream = session.request(headers);
      let status;
      // A trailers-only answer (an error) carries grpc-status in its headers.
      stream.on('response', (h) => {
        if (h['grpc-status'] !== undefined) status = Number(h['grpc-status']);
      });
      stream.on('trailers', (t) => {
        status = Number(t['grpc-status']);
      });
      stream.on('data', () => {});
      stream.on('end', () => done(status ?? 'no grpc-status'));
      stream.on('error', fail);
      stream.end(frame);
    });
}

function grpcJsCaller() {
  const app = clusterSimRequire();
  const grpc = app('@grpc/grpc-js');
  const bytes = encodedRequest(app);
  const [service, method] = what.split('/');
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', AUTH);
  const path = `/${service}/${method}`;
  const identity = (b) => b;
  return () =>
    new Promise((done) => {
      client.makeUnaryRequest(path, identity, identity, bytes, metadata, (err) => done(err ? err.code : 0));
    });
}

const call = transport === 'grpc' ? http2Caller() : transport === 'grpc-js' ? grpcJsCaller() : restCaller();
const t0 = performance.now();
const deadline = t0 + seconds * 1000;
async function caller() {
  while (performance.now() < deadline) {
    const start = performance.now();
    count(await call());
    latencies.push(performance.now() - start);
  }
}
await Promise.all(Array.from({ length: concurrency }, caller));
const elapsed = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
const at = (p) =>
  latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)] ?? Number.NaN;
console.log(
  JSON.stringify({
    calls: latencies.length,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    codes,
  }),
);
process.exit(0);
