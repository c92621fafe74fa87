import { connect } from 'node:net';
import { v1beta1 as gapicBeta, v1 as gapicV1 } from '@google-cloud/container';
import { credentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { useSocketSim } from './support/client-sim';
import { aCluster, aNodePool } from './support/fixtures';

/**
 * @google-cloud/container on its default transport, gRPC, against the simulator's own port (HTTP/2
 * told from HTTP/1.1 by its preface): both API versions, the same answers, errors and rules as REST.
 */

const simOf = useSocketSim(35, { seedEach: true });
const TOKEN = { authorization: 'Bearer fake-token' };
const CLUSTER = 'projects/p1/locations/us-central1-a/clusters/c1';
const POOL = `${CLUSTER}/nodePools/np1`;

type Version = 'v1beta1' | 'v1';
type Gapic = InstanceType<typeof gapicV1.ClusterManagerClient>;

function client(version: Version): Gapic {
  const Client = version === 'v1beta1' ? gapicBeta.ClusterManagerClient : gapicV1.ClusterManagerClient;
  const [host, port] = simOf().grpcEndpoint.split(':');
  return new Client({
    apiEndpoint: host,
    port: Number(port),
    sslCreds: credentials.createInsecure(),
  }) as Gapic;
}

/** Call options: the bearer token (insecure channel credentials carry none) and other metadata. */
const withHeaders = (headers: Record<string, string> = TOKEN) => ({ otherArgs: { headers }, retry: null });

async function rest(path: string, init: RequestInit = {}) {
  const res = await simOf().app.request(path, {
    ...init,
    headers: { ...TOKEN, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface ErrorBody {
  message: string;
  details: ({ '@type'?: string } & Record<string, unknown>)[];
}

interface GrpcError {
  errorInfoMetadata?: unknown;
  code: number;
  details: string;
  reason?: string;
  domain?: string;
  statusDetails?: unknown[];
}

describe.each(['v1beta1', 'v1'] as const)('@google-cloud/container over gRPC, %s', (version) => {
  it('gets the cluster and its pool with the data a REST get carries', async () => {
    const gke = client(version);
    const [cluster] = await gke.getCluster({ name: CLUSTER }, withHeaders());
    const [pool] = await gke.getNodePool({ name: POOL }, withHeaders());
    const [list] = await gke.listNodePools({ parent: CLUSTER }, withHeaders());
    const restCluster = await rest(`/${version}/${CLUSTER}`);
    const restPool = await rest(`/${version}/${POOL}`);
    expect(cluster).toMatchObject(restCluster.body);
    expect(pool).toMatchObject(restPool.body);
    expect(list.nodePools?.map((p) => p.name)).toEqual(['np1']);
    await gke.close();
  });

  it('updates a pool (an Operation) and reads the operation back', async () => {
    const gke = client(version);
    const [pool] = await gke.getNodePool({ name: POOL }, withHeaders());
    const [op] = await gke.updateNodePool(
      { name: POOL, nodeVersion: '-', etag: pool.etag ?? '' },
      withHeaders(),
    );
    expect(op).toMatchObject({ operationType: 'UPGRADE_NODES' });
    const [again] = await gke.getOperation(
      { name: `projects/p1/locations/us-central1-a/operations/${op.name}` },
      withHeaders(),
    );
    expect(again).toMatchObject({ name: op.name, operationType: 'UPGRADE_NODES' });
    await gke.close();
  });

  it('carries Timestamps both ways as the proto3 JSON mapping the REST side speaks', async () => {
    const gke = client(version);
    const window = {
      recurringWindow: {
        window: {
          startTime: { seconds: '1767225600', nanos: 0 },
          endTime: { seconds: '1767240000', nanos: 0 },
        },
        recurrence: 'FREQ=DAILY',
      },
      maintenanceExclusions: {
        hold: {
          startTime: { seconds: '1773014400', nanos: 500_000_000 },
          endTime: { seconds: '1773100800' },
        },
      },
    };
    await gke.setMaintenancePolicy({ name: CLUSTER, maintenancePolicy: { window } }, withHeaders());
    await simOf().app.request('/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ by: '1m' }) });
    const restWindow = ((await rest(`/${version}/${CLUSTER}`)).body.maintenancePolicy as { window: unknown })
      .window;
    expect(restWindow).toMatchObject({
      recurringWindow: { window: { startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-01T04:00:00Z' } },
      maintenanceExclusions: {
        hold: { startTime: '2026-03-09T00:00:00.500Z', endTime: '2026-03-10T00:00:00Z' },
      },
    });
    const [cluster] = await gke.getCluster({ name: CLUSTER }, withHeaders());
    expect(cluster.maintenancePolicy?.window).toMatchObject({
      recurringWindow: { window: { startTime: { seconds: '1767225600', nanos: 0 } } },
      maintenanceExclusions: { hold: { startTime: { seconds: '1773014400', nanos: 500_000_000 } } },
    });
    await gke.close();
  });

  it('answers a stale etag with ABORTED (10) and GKE error details', async () => {
    const gke = client(version);
    const err = (await gke
      .updateNodePool({ name: POOL, nodeVersion: '-', etag: 'c3RhbGVldGFn' }, withHeaders())
      .catch((e: unknown) => e)) as GrpcError;
    const restAnswer = await rest(`/${version}/${POOL}`, {
      method: 'PUT',
      body: JSON.stringify({ nodeVersion: '-', etag: 'c3RhbGVldGFn' }),
    });
    const restError = restAnswer.body.error as ErrorBody;
    expect(err.code).toBe(10);
    expect(err.details).toBe(restError.message);
    // The details as Google's client decodes them from grpc-status-details-bin: the same as REST's.
    expect(err.statusDetails?.map((d) => ({ ...(d as object) }))).toEqual(
      restError.details.map(({ '@type': _, ...fields }) => ({
        ...fields,
        requestId: expect.stringMatching(/^0x[0-9a-f]{16}$/),
      })),
    );
    await gke.close();
  });

  it('answers a missing cluster with NOT_FOUND (5) and a missing token with UNAUTHENTICATED (16)', async () => {
    const gke = client(version);
    const missing = (await gke
      .getCluster({ name: `${CLUSTER}x` }, withHeaders())
      .catch((e: unknown) => e)) as GrpcError;
    expect(missing.code).toBe(5);
    expect(missing.details).toContain('Not found');
    const anonymous = (await gke
      .getCluster({ name: CLUSTER }, withHeaders({}))
      .catch((e: unknown) => e)) as GrpcError;
    const restAnonymous = await simOf().app.request(`/${version}/${CLUSTER}`);
    const restError = ((await restAnonymous.json()) as { error: ErrorBody }).error;
    const errorInfo = restError.details.find((d) => d['@type']?.endsWith('ErrorInfo'));
    expect(restAnonymous.status).toBe(401);
    expect(anonymous).toMatchObject({
      code: 16,
      details: restError.message,
      reason: errorInfo?.reason,
      domain: errorInfo?.domain,
    });
    expect({ ...(anonymous.errorInfoMetadata as object) }).toEqual(errorInfo?.metadata);
    await gke.close();
  });

  it('fires a fault rule on nodePools.update for a gRPC call, journaled as REST calls are', async () => {
    await simOf().app.request('/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({
        id: 'busy',
        match: { operation: 'nodePools.update' },
        trigger: { times: 1 },
        effect: { error: { status: 'RESOURCE_EXHAUSTED' } },
      }),
    });
    const gke = client(version);
    const err = (await gke
      .updateNodePool({ name: POOL, nodeVersion: '-' }, withHeaders())
      .catch((e: unknown) => e)) as GrpcError;
    expect(err.code).toBe(8);
    const journal = await simOf().app.request('/_sim/journal?operation=nodePools.update');
    const { entries } = (await journal.json()) as { entries: { status: number; faults: string[] }[] };
    expect(entries.map((e) => [e.status, e.faults])).toEqual([[429, ['busy']]]);
    await gke.close();
  });

  it('keeps namespaces apart through the x-sim-namespace metadata key', async () => {
    const gke = client(version);
    const namespace = `elsewhere-${version}`;
    const other = { ...TOKEN, 'x-sim-namespace': namespace };
    const err = (await gke
      .getCluster({ name: CLUSTER }, withHeaders(other))
      .catch((e: unknown) => e)) as GrpcError;
    expect(err.code).toBe(5);
    await simOf().app.request('/_sim/seed', {
      method: 'POST',
      headers: { 'x-sim-namespace': namespace },
      body: JSON.stringify({ clusters: [aCluster().withPools(aNodePool('elsewhere-pool')).build()] }),
    });
    const [cluster] = await gke.getCluster({ name: CLUSTER }, withHeaders(other));
    expect(cluster.nodePools?.map((p) => p.name)).toEqual(['elsewhere-pool']);
    const [home] = await gke.getCluster({ name: CLUSTER }, withHeaders());
    expect(home.nodePools?.map((p) => p.name)).toEqual(['np1']);
    await gke.close();
  });
});

/** Sends `parts` on one connection, a pause between each, and resolves with all that came back. */
function exchange(parts: string[]): Promise<string> {
  const { port } = simOf();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString('latin1');
      if (/\r\n\r\n[\s\S]*\}$/.test(answer)) socket.end();
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.once('connect', async () => {
      for (const part of parts) {
        socket.write(part);
        await new Promise((r) => setTimeout(r, 15));
      }
    });
  });
}

describe('one port for both transports', () => {
  it('answers HTTP/1.1 whose first bytes arrive apart, including a prefix of the HTTP/2 preface', async () => {
    const body = JSON.stringify({ nodeVersion: '-' });
    const request = `PUT /v1/${POOL} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer t\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`;
    // "P" is also how HTTP/2's preface starts: the connection is told apart at the next byte.
    const answer = await exchange(['P', request.slice(1, 20), request.slice(20)]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"operationType":"UPGRADE_NODES"');
  });
});
