import { describe, expect, it } from 'vitest';
import {
  type ApiResult,
  createNodePoolUpgrader,
  type NodePoolApi,
  type NodePoolView,
  type OperationView,
  parseGoogleError,
} from '../consumers/node-pool-upgrader/src';
import { toNodePoolView, toOperationView } from '../consumers/node-pool-upgrader/src/node-pool-api';

const REF = { project: 'p', location: 'us-central1-a', cluster: 'c1', nodePool: 'np1' };
const OP = 'operation-1731137433803-29e34938-9333-469b-b14f-5bdf10b143d2';

const pool = (etag: string, version = '1.29.8-gke.1211000'): ApiResult<NodePoolView> => ({
  ok: true,
  value: { name: 'np1', version, etag },
});
const op = (status: string, extra: Partial<OperationView> = {}): ApiResult<OperationView> => ({
  ok: true,
  value: { name: OP, status, ...extra },
});
const googleError = (code: number, status: string, message = status): ApiResult<never> => ({
  ok: false,
  error: parseGoogleError(code, { error: { code, message, status } }),
});
const ABORTED = googleError(409, 'ABORTED', 'etag mismatch');
const BUSY = googleError(400, 'FAILED_PRECONDITION', `Cluster is running incompatible operation ${OP}.`);

/** A NodePoolApi answering from scripts, one answer per call, recording what it was asked. */
function scriptedApi(script: {
  getNodePool?: ApiResult<NodePoolView>[];
  updateNodePool?: ApiResult<OperationView>[];
  getOperation?: ApiResult<OperationView>[];
  setNodePoolSize?: ApiResult<OperationView>[];
  completeNodePoolUpgrade?: ApiResult<undefined>[];
}) {
  const calls: string[] = [];
  const next = <T>(queue: T[] | undefined, what: string): T => {
    const answer = queue?.shift();
    if (answer === undefined) throw new Error(`unexpected call: ${what}`);
    return answer;
  };
  const api: NodePoolApi = {
    getNodePool: async () => {
      calls.push('get');
      return next(script.getNodePool, 'getNodePool');
    },
    updateNodePool: async (_ref, update) => {
      const strategy = update.upgradeSettings ? ` ${update.upgradeSettings.strategy}` : '';
      calls.push(`update ${update.nodeVersion} ${update.etag}${strategy}`);
      return next(script.updateNodePool, 'updateNodePool');
    },
    setNodePoolSize: async (_ref, nodeCount) => {
      calls.push(`setSize ${nodeCount}`);
      return next(script.setNodePoolSize, 'setNodePoolSize');
    },
    completeNodePoolUpgrade: async () => {
      calls.push('completeUpgrade');
      return next(script.completeNodePoolUpgrade, 'completeNodePoolUpgrade');
    },
    getOperation: async (ref) => {
      calls.push(`poll ${ref.operation}`);
      return next(script.getOperation, 'getOperation');
    },
  };
  return { api, calls };
}

function recordingSleep() {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms: number) => void sleeps.push(ms) };
}

describe('createNodePoolUpgrader', () => {
  it('retries once after ABORTED and succeeds with the fresh etag', async () => {
    const { api, calls } = scriptedApi({
      getNodePool: [pool('e1'), pool('e2')],
      updateNodePool: [ABORTED, op('DONE')],
    });
    const report = await createNodePoolUpgrader({ api, sleep: recordingSleep().sleep }).upgrade({
      ...REF,
      nodeVersion: '1.30.5-gke.1014000',
    });
    expect(report).toMatchObject({ outcome: 'upgraded', updateAttempts: 2, polls: 0 });
    expect(calls).toEqual(['get', 'update 1.30.5-gke.1014000 e1', 'get', 'update 1.30.5-gke.1014000 e2']);
  });

  it('gives up after maxAbortedRetries re-reads when every update is ABORTED', async () => {
    const { api, calls } = scriptedApi({
      getNodePool: [pool('e1'), pool('e2'), pool('e3')],
      updateNodePool: [ABORTED, ABORTED, ABORTED],
    });
    const report = await createNodePoolUpgrader({
      api,
      sleep: recordingSleep().sleep,
      maxAbortedRetries: 2,
    }).upgrade({ ...REF, nodeVersion: '1.30.5-gke.1014000' });
    expect(report).toEqual({
      outcome: 'gave-up',
      reason: 'ABORTED',
      updateAttempts: 3,
      lastError: { httpStatus: 409, status: 'ABORTED', message: 'etag mismatch' },
    });
    expect(calls.filter((c) => c === 'get')).toHaveLength(3);
  });

  it('waits the configured delays after FAILED_PRECONDITION and retries with the same etag', async () => {
    const { api, calls } = scriptedApi({
      getNodePool: [pool('e1')],
      updateNodePool: [BUSY, BUSY, op('DONE')],
    });
    const { sleep, sleeps } = recordingSleep();
    const report = await createNodePoolUpgrader({ api, sleep, busyRetryDelaysMs: [100, 200, 300] }).upgrade({
      ...REF,
      nodeVersion: '1.30.5-gke.1014000',
    });
    expect(report).toMatchObject({ outcome: 'upgraded', updateAttempts: 3 });
    expect(sleeps).toEqual([100, 200]);
    expect(calls.filter((c) => c.startsWith('update'))).toEqual(
      Array(3).fill('update 1.30.5-gke.1014000 e1'),
    );
  });

  it('re-reads the etag when the busy cluster finished an operation that changed the pool', async () => {
    const { api, calls } = scriptedApi({
      getNodePool: [pool('e1'), pool('e2')],
      updateNodePool: [BUSY, ABORTED, op('DONE')],
    });
    const report = await createNodePoolUpgrader({ api, sleep: recordingSleep().sleep }).upgrade({
      ...REF,
      nodeVersion: '1.30.5-gke.1014000',
    });
    expect(report).toMatchObject({ outcome: 'upgraded', updateAttempts: 3 });
    expect(calls.at(-1)).toBe('update 1.30.5-gke.1014000 e2');
  });

  it('gives up when the cluster is still busy after the last delay', async () => {
    const { api } = scriptedApi({ getNodePool: [pool('e1')], updateNodePool: [BUSY, BUSY] });
    const { sleep, sleeps } = recordingSleep();
    const report = await createNodePoolUpgrader({ api, sleep, busyRetryDelaysMs: [50] }).upgrade({
      ...REF,
      nodeVersion: '1.30.5-gke.1014000',
    });
    expect(report).toMatchObject({ outcome: 'gave-up', reason: 'FAILED_PRECONDITION', updateAttempts: 2 });
    expect(sleeps).toEqual([50]);
  });

  it('does not retry an INVALID_ARGUMENT, although it is also HTTP 400', async () => {
    const invalid = googleError(400, 'INVALID_ARGUMENT', 'Node version "1.31.0-gke.1" is unsupported.');
    const { api, calls } = scriptedApi({ getNodePool: [pool('e1')], updateNodePool: [invalid] });
    const report = await createNodePoolUpgrader({ api, sleep: recordingSleep().sleep }).upgrade({
      ...REF,
      nodeVersion: '1.31.0-gke.1',
    });
    expect(report).toMatchObject({
      outcome: 'rejected',
      step: 'update',
      error: { status: 'INVALID_ARGUMENT' },
    });
    expect(calls).toHaveLength(2);
  });

  it('polls a PENDING operation through RUNNING to DONE, sleeping between polls', async () => {
    const { api, calls } = scriptedApi({
      getNodePool: [pool('e1')],
      updateNodePool: [op('PENDING')],
      getOperation: [op('RUNNING'), op('RUNNING'), op('DONE')],
    });
    const { sleep, sleeps } = recordingSleep();
    const report = await createNodePoolUpgrader({ api, sleep, pollIntervalMs: 7 }).upgrade({
      ...REF,
      nodeVersion: '1.30.5-gke.1014000',
    });
    expect(report).toMatchObject({ outcome: 'upgraded', polls: 3, toVersion: '1.30.5-gke.1014000' });
    expect(sleeps).toEqual([7, 7, 7]);
    expect(calls.filter((c) => c.startsWith('poll'))).toEqual(Array(3).fill(`poll ${OP}`));
  });

  it('reports a time-out after maxPolls polls of an operation that stays RUNNING', async () => {
    const { api } = scriptedApi({
      getNodePool: [pool('e1')],
      updateNodePool: [op('RUNNING')],
      getOperation: [op('RUNNING'), op('RUNNING')],
    });
    const report = await createNodePoolUpgrader({ api, sleep: recordingSleep().sleep, maxPolls: 2 }).upgrade({
      ...REF,
      nodeVersion: '1.30.5-gke.1014000',
    });
    expect(report).toEqual({ outcome: 'timed-out', operation: OP, polls: 2 });
  });

  it('reads the pool back to report the explicit version an alias resolved to', async () => {
    const { api, calls } = scriptedApi({
      getNodePool: [pool('e1'), pool('e2', '1.30.5-gke.1014000')],
      updateNodePool: [op('DONE')],
    });
    const report = await createNodePoolUpgrader({ api, sleep: recordingSleep().sleep }).upgrade({
      ...REF,
      nodeVersion: '1.30',
    });
    expect(report).toMatchObject({
      outcome: 'upgraded',
      fromVersion: '1.29.8-gke.1211000',
      toVersion: '1.30.5-gke.1014000',
    });
    expect(calls).toEqual(['get', 'update 1.30 e1', 'get']);
  });

  it('reports the error of an operation that ends DONE with an error', async () => {
    const { api } = scriptedApi({
      getNodePool: [pool('e1')],
      updateNodePool: [op('RUNNING')],
      getOperation: [op('DONE', { error: { code: 13, message: 'upgrade failed' } })],
    });
    const report = await createNodePoolUpgrader({ api, sleep: recordingSleep().sleep }).upgrade({
      ...REF,
      nodeVersion: '1.30.5-gke.1014000',
    });
    expect(report).toEqual({
      outcome: 'operation-failed',
      operation: OP,
      error: { code: 13, message: 'upgrade failed' },
    });
  });
});

describe('blue-green upgrades', () => {
  const soaking = (phase: string): ApiResult<NodePoolView> => ({
    ok: true,
    value: { name: 'np1', version: '1.29.8-gke.1211000', etag: 'e1', blueGreen: { phase } },
  });

  it('starts with the blue-green settings and retries a stale etag like upgrade does', async () => {
    const { api, calls } = scriptedApi({
      getNodePool: [pool('e1'), pool('e2')],
      updateNodePool: [ABORTED, op('PENDING')],
    });
    const report = await createNodePoolUpgrader({ api, sleep: recordingSleep().sleep }).startBlueGreenUpgrade(
      {
        ...REF,
        nodeVersion: '1.30.5-gke.1014000',
      },
    );
    expect(report).toEqual({
      outcome: 'started',
      nodePool: 'np1',
      fromVersion: '1.29.8-gke.1211000',
      operation: OP,
      updateAttempts: 2,
    });
    expect(calls).toEqual([
      'get',
      'update 1.30.5-gke.1014000 e1 BLUE_GREEN',
      'get',
      'update 1.30.5-gke.1014000 e2 BLUE_GREEN',
    ]);
  });

  it('completes the upgrade only while the pool soaks', async () => {
    const { api, calls } = scriptedApi({
      getNodePool: [soaking('DRAINING_BLUE_POOL'), pool('e1'), soaking('NODE_POOL_SOAKING')],
      completeNodePoolUpgrade: [{ ok: true, value: undefined }],
    });
    const upgrader = createNodePoolUpgrader({ api, sleep: recordingSleep().sleep });
    expect(await upgrader.completeBlueGreenUpgrade(REF)).toEqual({
      outcome: 'not-soaking',
      nodePool: 'np1',
      phase: 'DRAINING_BLUE_POOL',
    });
    expect(await upgrader.completeBlueGreenUpgrade(REF)).toEqual({ outcome: 'not-soaking', nodePool: 'np1' });
    expect(await upgrader.completeBlueGreenUpgrade(REF)).toEqual({ outcome: 'completed', nodePool: 'np1' });
    expect(calls).toEqual(['get', 'get', 'get', 'completeUpgrade']);
  });

  it('reports a refused completeUpgrade', async () => {
    const { api } = scriptedApi({
      getNodePool: [soaking('NODE_POOL_SOAKING')],
      completeNodePoolUpgrade: [googleError(400, 'FAILED_PRECONDITION', 'not soaking')],
    });
    const report = await createNodePoolUpgrader({
      api,
      sleep: recordingSleep().sleep,
    }).completeBlueGreenUpgrade(REF);
    expect(report).toMatchObject({
      outcome: 'rejected',
      step: 'complete',
      error: { status: 'FAILED_PRECONDITION' },
    });
  });
});

describe('toNodePoolView', () => {
  it('reads the blue-green phase and green version only when the pool has updateInfo', () => {
    expect(toNodePoolView({ name: 'np1', version: 'v1', etag: 'e1' })).toEqual({
      name: 'np1',
      version: 'v1',
      etag: 'e1',
    });
    expect(
      toNodePoolView({
        name: 'np1',
        version: 'v1',
        etag: 'e1',
        updateInfo: { blueGreenInfo: { phase: 'NODE_POOL_SOAKING', greenPoolVersion: 'v2' } },
      }).blueGreen,
    ).toEqual({ phase: 'NODE_POOL_SOAKING', greenPoolVersion: 'v2' });
  });
});

describe('toOperationView', () => {
  it('reads the UPGRADE_STAGE metric of a blue-green operation', () => {
    const view = toOperationView({
      name: OP,
      status: 'RUNNING',
      progress: {
        metrics: [
          { name: 'UPGRADE_STAGE', stringValue: 'CORDONING_BLUE_POOL' },
          { name: 'NODES_TOTAL', intValue: '3' },
        ],
      },
    });
    expect(view).toEqual({ name: OP, status: 'RUNNING', upgradeStage: 'CORDONING_BLUE_POOL' });
  });

  it('treats a DONE operation that carries only statusMessage as failed with UNKNOWN', () => {
    // The 2017 form of a failed operation (hashicorp/terraform#15601).
    const statusMessage =
      'Failed to start node upgrade: Desired node version (1.7.0) cannot be greater than current master version (1.6.6)';
    expect(toOperationView({ name: OP, status: 'DONE', statusMessage })).toEqual({
      name: OP,
      status: 'DONE',
      error: { code: 2, message: statusMessage },
    });
  });
});

describe('parseGoogleError', () => {
  it('reads status, legacy reason, RequestInfo and ErrorInfo from the envelope', () => {
    const body = {
      error: {
        code: 401,
        message: 'Request had invalid authentication credentials.',
        errors: [{ message: 'Invalid Credentials', domain: 'global', reason: 'authError' }],
        status: 'UNAUTHENTICATED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_EXPIRED' },
          { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId: '0xbc082b8846774fe9' },
        ],
      },
    };
    expect(parseGoogleError(401, body)).toEqual({
      httpStatus: 401,
      status: 'UNAUTHENTICATED',
      message: 'Request had invalid authentication credentials.',
      reason: 'authError',
      requestId: '0xbc082b8846774fe9',
      errorInfoReason: 'ACCESS_TOKEN_EXPIRED',
    });
  });

  it('falls back to UNKNOWN for a body that is not a Google envelope', () => {
    expect(parseGoogleError(502, '<html>Bad Gateway</html>')).toEqual({
      httpStatus: 502,
      status: 'UNKNOWN',
      message: '<html>Bad Gateway</html>',
    });
  });
});
