// Figure 11's @grpc/grpc-js row (in its own process): `concurrency` callers on one grpc-js channel (one
// HTTP/2 connection, as Google's Cloud Client Libraries use it), each sending its next call as soon as the
// last one is answered, for `seconds`:
//   node rpc-load.mjs <host:port> <service/method> <request JSON> <seconds> <concurrency>
// The answers are not parsed. REST and gRPC themselves are driven by h2load (sections/grpc.ts); this row
// shows what a Cloud Client Library's transport adds, and is not judged.
// Prints one JSON line: { calls, seconds, rps, p50, p99, codes }, codes by gRPC status code.
// Traffic goes to 127.0.0.1 only. grpc-js and Google's protos are resolved from cluster-sim's own
// dependencies (the versions it serves), not the bench's.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [target, what, payload, secondsArg, concurrencyArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 16);
const AUTH = 'Bearer bench';

const latencies = [];
const codes = {};
const count = (code) => {
  codes[code] = (codes[code] ?? 0) + 1;
};

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

const call = grpcJsCaller();
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
