import { v1beta1 as gapicBeta } from '@google-cloud/container';
import { credentials } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { bridgeRequest } from '../src/grpc/bridge-request';
import { useSocketSim } from './support/client-sim';
import { aCluster, aNodePool } from './support/fixtures';

/**
 * The bridge from a gRPC call to the simulator's app: the lightweight Request it hands the app (what
 * the app can observe of it is what `new Request(url, init)` would give), that no native Request is
 * built for a call the app answers from what is kept, and that the request messages it remembers do
 * not answer another call.
 */

const URL_OF = 'http://localhost/v1/projects/p/locations/l/clusters/c/nodePools/np';

function aPut(body = '{"etag":"x"}') {
  const bytes = new TextEncoder().encode(body);
  return bridgeRequest({
    method: 'PUT',
    url: URL_OF,
    headers: {
      authorization: 'Bearer t',
      'content-type': 'application/json',
      'content-length': String(bytes.length),
    },
    body: bytes,
  });
}

describe('the Request a gRPC call hands the app', () => {
  it('is a Request with the method, URL and headers it was made with', () => {
    const request = aPut();
    expect(request).toBeInstanceOf(Request);
    expect(request.method).toBe('PUT');
    expect(request.url).toBe(URL_OF);
    expect(request.headers).toBeInstanceOf(Headers);
    expect(request.headers.get('authorization')).toBe('Bearer t');
    expect(request.headers.get('content-length')).toBe('12');
    expect(request.bodyUsed).toBe(false);
  });

  it('gives its body once, as text, JSON or bytes, and refuses a second read as a native Request does', async () => {
    const request = aPut();
    expect(await request.json()).toEqual({ etag: 'x' });
    expect(request.bodyUsed).toBe(true);
    await expect(request.text()).rejects.toThrow(TypeError);
    expect(await aPut('abc').text()).toBe('abc');
    expect(new Uint8Array(await aPut('abc').arrayBuffer())).toEqual(new Uint8Array([97, 98, 99]));
    await expect(aPut('{').json()).rejects.toThrow(SyntaxError);
  });

  it('answers what only a native Request has (signal, body stream, clone) from one built on first use', async () => {
    const request = aPut();
    expect(request.signal).toBeInstanceOf(AbortSignal);
    expect(request.body).toBeInstanceOf(ReadableStream);
    expect(await request.clone().text()).toBe('{"etag":"x"}');
    expect(await request.text()).toBe('{"etag":"x"}');
    const get = bridgeRequest({ method: 'GET', url: URL_OF, headers: {}, body: undefined });
    expect(get.body).toBeNull();
    expect(get.cache).toBe('default');
  });
});

describe('gRPC calls through the bridge', () => {
  const simOf = useSocketSim(35, { seedEach: true });
  const NativeRequest = globalThis.Request;
  afterEach(() => {
    globalThis.Request = NativeRequest;
  });
  const CLUSTER = 'projects/p1/locations/us-central1-a/clusters/c1';
  const TOKEN = { otherArgs: { headers: { authorization: 'Bearer fake-token' } }, retry: null };

  const client = () => {
    const [host, port] = simOf().grpcEndpoint.split(':');
    return new gapicBeta.ClusterManagerClient({
      apiEndpoint: host,
      port: Number(port),
      sslCreds: credentials.createInsecure(),
    });
  };

  it('builds no native Request for the app to answer a read or a stale update', async () => {
    const gapic = client();
    try {
      const name = `${CLUSTER}/nodePools/np1`;
      await gapic.getNodePool({ name }, TOKEN); // the channel and the gRPC server, loaded before counting
      let built = 0;
      globalThis.Request = new Proxy(NativeRequest, {
        construct(target, args, newTarget) {
          built++;
          return Reflect.construct(target, args, newTarget);
        },
      });
      for (let i = 0; i < 5; i++) {
        const [pool] = await gapic.getNodePool({ name }, TOKEN);
        expect(pool.name).toBe('np1');
        await expect(
          gapic.updateNodePool({ name, nodeVersion: '-', etag: 'c3RhbGU=' }, TOKEN),
        ).rejects.toMatchObject({ code: 10 });
      }
      expect(built).toBe(0);
    } finally {
      await gapic.close();
    }
  });

  it('answers each request message for itself after a repeated one (A, A, B, A)', async () => {
    const res = await simOf().app.request('/_sim/seed', {
      method: 'POST',
      body: JSON.stringify({ clusters: [aCluster('c2').withPools(aNodePool('np2')).build()] }),
    });
    expect(res.status).toBe(201);
    const gapic = client();
    try {
      const names = [];
      for (const name of ['c1/nodePools/np1', 'c1/nodePools/np1', 'c2/nodePools/np2', 'c1/nodePools/np1']) {
        const [answer] = await gapic.getNodePool(
          { name: `projects/p1/locations/us-central1-a/clusters/${name}` },
          TOKEN,
        );
        names.push(answer.name);
      }
      expect(names).toEqual(['np1', 'np1', 'np2', 'np1']);
    } finally {
      await gapic.close();
    }
  });
});
