import http2 from 'node:http2';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { afterAll, describe, expect, it } from 'vitest';
import { useSocketSim } from './support/client-sim';

/**
 * The gRPC over HTTP/2 protocol as the simulator's port speaks it, seen from a client framing it by hand:
 * what Google's client libraries never send but other clients may (a compressed message, an unknown
 * method, a message past the size limit, a request that is not gRPC), and the headers every answer has.
 */

const simOf = useSocketSim(36, { seedEach: true });
const POOL = 'projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1';
const GET_POOL = '/google.container.v1.ClusterManager/GetNodePool';

const root = protobuf.Root.fromJSON(
  createRequire(import.meta.url)('@google-cloud/container/build/protos/protos.json'),
);
const GetNodePoolRequest = root.lookupType('google.container.v1.GetNodePoolRequest');
const NodePool = root.lookupType('google.container.v1.NodePool');

const sessions: http2.ClientHttp2Session[] = [];
afterAll(() => {
  for (const s of sessions) s.close();
});

interface Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

function call(path: string, body: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const session = http2.connect(`http://${simOf().grpcEndpoint}`);
  sessions.push(session);
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      authorization: 'Bearer t',
      ...headers,
    });
    let answered: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      answered = h;
    });
    stream.on('trailers', (t) => {
      trailers = t;
    });
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.on('end', () =>
      resolve({
        status: Number(answered[':status']),
        headers: answered,
        trailers,
        body: Buffer.concat(chunks),
      }),
    );
    stream.on('error', reject);
    stream.end(body);
  });
}

/** gRPC's length-prefixed message. */
function framed(message: Uint8Array, compressed = false): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out[0] = compressed ? 1 : 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

const getPool = () => GetNodePoolRequest.encode(GetNodePoolRequest.fromObject({ name: POOL })).finish();

describe('gRPC over HTTP/2 on the REST port', () => {
  it('answers a message then trailers with grpc-status 0, in application/grpc', async () => {
    const res = await call(GET_POOL, framed(getPool()));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/grpc/);
    expect(res.trailers['grpc-status']).toBe('0');
    expect(res.body[0]).toBe(0);
    expect(res.body.readUInt32BE(1)).toBe(res.body.length - 5);
    const pool = NodePool.toObject(NodePool.decode(res.body.subarray(5))) as { name: string };
    expect(pool.name).toBe('np1');
  });

  it('takes a gzip-compressed message when grpc-encoding says gzip', async () => {
    const res = await call(GET_POOL, framed(gzipSync(getPool()), true), { 'grpc-encoding': 'gzip' });
    expect(res.trailers['grpc-status']).toBe('0');
    expect((NodePool.decode(res.body.subarray(5)) as unknown as { name: string }).name).toBe('np1');
  });

  it('refuses a compressed message in an encoding it does not know with UNIMPLEMENTED', async () => {
    const res = await call(GET_POOL, framed(getPool(), true), { 'grpc-encoding': 'snappy' });
    expect(res.headers['grpc-status']).toBe('12');
    expect(decodeURIComponent(String(res.headers['grpc-message']))).toBe(
      'Received message compressed with unsupported encoding "snappy"',
    );
  });

  it('answers an unknown method UNIMPLEMENTED naming it, in a trailers-only answer', async () => {
    const res = await call('/google.container.v1.ClusterManager/NoSuchMethod', framed(getPool()));
    expect(res.status).toBe(200);
    expect(res.headers['grpc-status']).toBe('12');
    expect(res.headers['grpc-message']).toBe(
      'The server does not implement the method /google.container.v1.ClusterManager/NoSuchMethod',
    );
    expect(res.body.length).toBe(0);
  });

  it('refuses a message past 4 MiB with RESOURCE_EXHAUSTED before reading it whole', async () => {
    const header = Buffer.alloc(5);
    header.writeUInt32BE(5 * 1024 * 1024, 1);
    const res = await call(GET_POOL, Buffer.concat([header, Buffer.alloc(4 * 1024 * 1024 + 64)]));
    expect(res.headers['grpc-status']).toBe('8');
    expect(String(res.headers['grpc-message'])).toMatch(
      /^Received message larger than max \(\d+ vs\. 4194304\)$/,
    );
  });

  it('refuses a body that is not one whole message', async () => {
    const message = framed(getPool());
    const res = await call(GET_POOL, message.subarray(0, message.length - 1));
    expect(res.headers['grpc-status']).toBe('12');
  });

  it('answers a request that is not gRPC with HTTP 415', async () => {
    const res = await call(GET_POOL, Buffer.from('{}'), { 'content-type': 'application/json' });
    expect(res.status).toBe(415);
  });

  it('sends an error with its google.rpc.Status details, its message percent-encoded', async () => {
    const sim = simOf();
    const rule = await sim.app.request('/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({
        match: { operation: 'nodePools.get' },
        effect: { error: { status: 'UNAVAILABLE', message: 'Zone « us-central1-a » is busy' } },
      }),
    });
    expect(rule.status).toBe(201);
    const res = await call(GET_POOL, framed(getPool()));
    expect(res.headers['grpc-status']).toBe('14');
    expect(String(res.headers['grpc-message'])).toBe('Zone %C2%AB us-central1-a %C2%BB is busy');
    const Status = root.lookupType('google.rpc.Status');
    const details = Status.decode(
      Buffer.from(String(res.headers['grpc-status-details-bin']), 'base64'),
    ) as unknown as {
      code: number;
      message: string;
    };
    expect(details.code).toBe(14);
    expect(details.message).toBe('Zone « us-central1-a » is busy');
  });
});
