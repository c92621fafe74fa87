import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodePoolApi, createNodePoolUpgrader } from '../../consumers/node-pool-upgrader/src';
import { clusterStates } from '../../src/states';
import { createPact, recorded } from './support/pact';

const { regex, integer, string, arrayContaining, fromProviderState } = MatchersV3;

// The world every interaction starts from (values are exact provider-state params).
const PROJECT = 'sim-project';
const LOCATION = 'us-central1-a';
const CLUSTER = 'cluster-1';
const NODE_POOL = 'pool-1';
const REF = { project: PROJECT, location: LOCATION, cluster: CLUSTER, nodePool: NODE_POOL };
const POOL_PATH = `/v1beta1/projects/${PROJECT}/locations/${LOCATION}/clusters/${CLUSTER}/nodePools/${NODE_POOL}`;
const MASTER_VERSION = '1.30.5-gke.1014000';
const VALID_NODE_VERSIONS = ['1.30.5-gke.1014000', '1.30.4-gke.1348000', '1.29.8-gke.1211000'];
const POOL_VERSION = '1.29.8-gke.1211000';
// Real etags are opaque; a 2025 one looked like a UUID (reference §3.1).
const ETAG = '8e0970c5-f451-40a6-977d-380192c89e0f';
const NEWER_ETAG = 'c41f0b8e-5d1a-4c36-9f0e-2b7d9a6e1c55';
// The etag the upgrader read: a server-computed checksum (reference §3.1) that changes with every write
// to the pool (an operation starting on it, too). The state handlers return the pool's current etag as
// `etag`, and the verifier puts it into the request; the consumer's mock server uses the example.
// biome-ignore lint/suspicious/noTemplateCurlyInString: pact's provider-state expression, not a template
const CURRENT_ETAG = fromProviderState('${etag}', ETAG);
const OPERATION = 'operation-1731137433803-29e34938-9333-469b-b14f-5bdf10b143d2';
const OPERATION_PATH = `/v1beta1/projects/${PROJECT}/locations/${LOCATION}/operations/${OPERATION}`;
// The blue-green operation's id is the provider's own; the soaking state returns it as `operationId`.
const BLUE_GREEN_OPERATION_PATH = fromProviderState(
  `/v1beta1/projects/${PROJECT}/locations/${LOCATION}/operations/\${operationId}`,
  OPERATION_PATH,
);
const ACCESS_TOKEN = 'ya29.sim-access-token';
const EXPIRED_TOKEN = 'ya29.expired-access-token';
const VIEWER_TOKEN = 'ya29.viewer-access-token';

const CLUSTER_STATE = clusterStates.cluster.with({
  project: PROJECT,
  location: LOCATION,
  cluster: CLUSTER,
  masterVersion: MASTER_VERSION,
  validNodeVersions: VALID_NODE_VERSIONS,
});
const POOL_STATE = clusterStates.nodePool.with({
  nodePool: NODE_POOL,
  cluster: CLUSTER,
  version: POOL_VERSION,
  etag: ETAG,
});

const GREEN_VERSION = '1.30.5-gke.1014000';
const SOAKING_STATE = clusterStates.blueGreenSoaking.with({
  nodePool: NODE_POOL,
  cluster: CLUSTER,
  nodeVersion: GREEN_VERSION,
});

const EXPLICIT_VERSION = /^\d+\.\d+\.\d+-gke\.\d+$/;
const OPERATION_ID = /^operation-\d{13}-[0-9a-f-]+$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
// Real GKE answers `application/json; charset=UTF-8`; the upgrader only needs JSON.
const JSON_RESPONSE = {
  'Content-Type': regex(/^application\/json(;.*)?$/, 'application/json; charset=UTF-8'),
};
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const ANY_BEARER = { Authorization: regex(/^Bearer \S+$/, `Bearer ${ACCESS_TOKEN}`) };
// Modern Google errors carry a RequestInfo detail (reference §5.1); the upgrader reports its id.
const REQUEST_INFO = {
  '@type': 'type.googleapis.com/google.rpc.RequestInfo',
  requestId: regex(/^0x[0-9a-f]{16}$/, '0xbc082b8846774fe9'),
};

function noSleep(): Promise<void> {
  return Promise.resolve();
}

function apiFor(url: string, accessToken = ACCESS_TOKEN) {
  return createNodePoolApi({ baseUrl: url, accessToken });
}

// Interactions used by more than one test are built here, so that each is defined once.
function readsPool(pact: PactV4) {
  return pact
    .addInteraction()
    .given(...CLUSTER_STATE)
    .given(...POOL_STATE)
    .uponReceiving('a request to read node pool pool-1')
    .withRequest('GET', POOL_PATH, (b) => b.headers(ANY_BEARER))
    .willRespondWith(200, (b) =>
      b.headers(JSON_RESPONSE).jsonBody({
        name: NODE_POOL,
        version: regex(EXPLICIT_VERSION, POOL_VERSION),
        etag: string(ETAG),
      }),
    );
}

function updatesPoolWithCurrentEtag(pact: PactV4) {
  return pact
    .addInteraction()
    .given(...CLUSTER_STATE)
    .given(...POOL_STATE)
    .uponReceiving('a request to update node pool pool-1 to 1.30.5-gke.1014000 with its current etag')
    .withRequest('PUT', POOL_PATH, (b) =>
      b.headers(ANY_BEARER).jsonBody({ nodeVersion: '1.30.5-gke.1014000', etag: CURRENT_ETAG }),
    )
    .willRespondWith(200, (b) =>
      b.headers(JSON_RESPONSE).jsonBody({
        name: regex(OPERATION_ID, OPERATION),
        operationType: 'UPGRADE_NODES',
        status: regex(/^(PENDING|RUNNING)$/, 'RUNNING'),
      }),
    );
}

describe('node-pool-upgrader → cluster-sim', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('node-pool-upgrader', 'cluster-sim');
  });

  it('upgrades to an explicit version: reads the etag, updates with it and polls the operation to DONE', async () => {
    readsPool(pact);
    updatesPoolWithCurrentEtag(pact);
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(
        ...clusterStates.operationDone.with({
          operationId: OPERATION,
          nodePool: NODE_POOL,
          cluster: CLUSTER,
        }),
      )
      .uponReceiving('a request to read the finished operation on pool-1')
      .withRequest('GET', OPERATION_PATH, (b) => b.headers(ANY_BEARER))
      .willRespondWith(200, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          name: OPERATION,
          status: 'DONE',
          endTime: regex(RFC3339, '2026-08-12T10:04:09.194981254Z'),
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const upgrader = createNodePoolUpgrader({ api: apiFor(server.url), sleep: noSleep });
          const report = await upgrader.upgrade({ ...REF, nodeVersion: '1.30.5-gke.1014000' });
          expect(report).toEqual({
            outcome: 'upgraded',
            nodePool: NODE_POOL,
            fromVersion: POOL_VERSION,
            toVersion: '1.30.5-gke.1014000',
            operation: OPERATION,
            updateAttempts: 1,
            polls: 1,
          });
        }),
      );
  });

  it('reports an operation that ends DONE with an error', async () => {
    readsPool(pact);
    updatesPoolWithCurrentEtag(pact);
    // No public record shows a current failed UPGRADE_NODES operation's text; the state hands the provider
    // this one, and the pact matches the text by type.
    const errorMessage = 'Node pool upgrade failed: 1 of 3 nodes failed to upgrade.';
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(
        ...clusterStates.operationFailed.with({
          operationId: OPERATION,
          nodePool: NODE_POOL,
          cluster: CLUSTER,
          errorCode: 13,
          errorMessage,
        }),
      )
      .uponReceiving('a request to read the failed operation on pool-1')
      .withRequest('GET', OPERATION_PATH, (b) => b.headers(ANY_BEARER))
      .willRespondWith(200, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          name: OPERATION,
          status: 'DONE',
          // A failed operation carries both (reference §10.20); the code is the gRPC number.
          statusMessage: string(errorMessage),
          error: { code: integer(13), message: string(errorMessage) },
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const upgrader = createNodePoolUpgrader({ api: apiFor(server.url), sleep: noSleep });
          const report = await upgrader.upgrade({ ...REF, nodeVersion: '1.30.5-gke.1014000' });
          expect(report).toEqual({
            outcome: 'operation-failed',
            operation: OPERATION,
            error: { code: 13, message: errorMessage },
          });
        }),
      );
  });

  it('reads a running operation as RUNNING with its progress detail', async () => {
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(
        ...clusterStates.operationRunning.with({
          operationId: OPERATION,
          nodePool: NODE_POOL,
          cluster: CLUSTER,
        }),
      )
      .uponReceiving('a request to read the running operation on pool-1')
      .withRequest('GET', OPERATION_PATH, (b) => b.headers(ANY_BEARER))
      .willRespondWith(200, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          name: OPERATION,
          status: 'RUNNING',
          // Real wording (GoogleCloudPlatform/magic-modules#5671).
          detail: string('Updating pool-1, processed 0 out of 3 nodes (0.0%)'),
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const poll = await apiFor(server.url).getOperation({
            project: PROJECT,
            location: LOCATION,
            operation: OPERATION,
          });
          expect(poll).toEqual({
            ok: true,
            value: {
              name: OPERATION,
              status: 'RUNNING',
              detail: 'Updating pool-1, processed 0 out of 3 nodes (0.0%)',
            },
          });
        }),
      );
  });

  it('gets 409 ABORTED, not an operation, when the etag is stale', async () => {
    const abortedMessage = `Etag "${ETAG}" does not match the current etag of node pool "${NODE_POOL}".`;
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(
        ...clusterStates.nodePool.with({
          nodePool: NODE_POOL,
          cluster: CLUSTER,
          version: POOL_VERSION,
          etag: NEWER_ETAG,
        }),
      )
      .uponReceiving('a request to update node pool pool-1 with a stale etag')
      .withRequest('PUT', POOL_PATH, (b) =>
        b.headers(ANY_BEARER).jsonBody({ nodeVersion: '1.30.5-gke.1014000', etag: ETAG }),
      )
      .willRespondWith(409, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          error: {
            code: 409,
            // GKE's wording for an etag mismatch is not public (reference §5.4): type-matched only.
            message: string(abortedMessage),
            errors: [{ domain: 'global', message: string(abortedMessage), reason: string('aborted') }],
            status: 'ABORTED',
            details: arrayContaining(REQUEST_INFO),
          },
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const update = await apiFor(server.url).updateNodePool(REF, {
            nodeVersion: '1.30.5-gke.1014000',
            etag: ETAG,
          });
          expect(update).toMatchObject({
            ok: false,
            error: { httpStatus: 409, status: 'ABORTED', requestId: '0xbc082b8846774fe9' },
          });
        }),
      );
  });

  it('gets 400 FAILED_PRECONDITION while another operation runs on the pool', async () => {
    const message = `Cluster is running incompatible operation ${OPERATION}.`;
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(
        ...clusterStates.operationRunning.with({
          operationId: OPERATION,
          nodePool: NODE_POOL,
          cluster: CLUSTER,
        }),
      )
      .uponReceiving('a request to update node pool pool-1 while another operation runs on it')
      .withRequest('PUT', POOL_PATH, (b) =>
        b.headers(ANY_BEARER).jsonBody({ nodeVersion: '1.30.5-gke.1014000', etag: CURRENT_ETAG }),
      )
      .willRespondWith(400, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          error: {
            code: 400,
            // Current wording (rancher/gke-operator#509); the older "Operation … is currently upgrading
            // cluster …" text is just as valid for the upgrader, which reads only `status`.
            message: string(message),
            errors: [{ domain: 'global', message: string(message), reason: 'failedPrecondition' }],
            status: 'FAILED_PRECONDITION',
            details: arrayContaining(REQUEST_INFO),
          },
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const update = await apiFor(server.url).updateNodePool(REF, {
            nodeVersion: '1.30.5-gke.1014000',
            etag: ETAG,
          });
          expect(update).toEqual({
            ok: false,
            error: {
              httpStatus: 400,
              status: 'FAILED_PRECONDITION',
              message,
              reason: 'failedPrecondition',
              requestId: '0xbc082b8846774fe9',
            },
          });
        }),
      );
  });

  it('updates with the alias 1.30 and reads back the highest valid 1.30 version', async () => {
    pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .uponReceiving('a request to update node pool pool-1 to the version alias 1.30')
      .withRequest('PUT', POOL_PATH, (b) =>
        b.headers(ANY_BEARER).jsonBody({ nodeVersion: '1.30', etag: CURRENT_ETAG }),
      )
      .willRespondWith(200, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          name: regex(OPERATION_ID, OPERATION),
          operationType: 'UPGRADE_NODES',
          status: regex(/^(PENDING|RUNNING)$/, 'RUNNING'),
        }),
      );
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(
        ...clusterStates.nodePoolUpdated.with({ nodePool: NODE_POOL, cluster: CLUSTER, nodeVersion: '1.30' }),
      )
      .uponReceiving('a request to read node pool pool-1 after its update to 1.30 is done')
      .withRequest('GET', POOL_PATH, (b) => b.headers(ANY_BEARER))
      .willRespondWith(200, (b) =>
        // The pool stores the resolved explicit version, never the alias (reference §6); with the
        // cluster's valid versions above that is exactly 1.30.5-gke.1014000.
        b
          .headers(JSON_RESPONSE)
          .jsonBody({ name: NODE_POOL, version: '1.30.5-gke.1014000', etag: string(NEWER_ETAG) }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const api = apiFor(server.url);
          const update = await api.updateNodePool(REF, { nodeVersion: '1.30', etag: ETAG });
          expect(update).toMatchObject({ ok: true, value: { name: OPERATION } });
          const after = await api.getNodePool(REF);
          expect(after).toMatchObject({ ok: true, value: { version: '1.30.5-gke.1014000' } });
        }),
      );
  });

  it('stops with 401 UNAUTHENTICATED when the access token has expired', async () => {
    const message =
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(...clusterStates.tokenExpired.with({ accessToken: EXPIRED_TOKEN }))
      .uponReceiving('a request to read node pool pool-1 with an expired access token')
      .withRequest('GET', POOL_PATH, (b) => b.headers(bearer(EXPIRED_TOKEN)))
      .willRespondWith(401, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          error: {
            code: 401,
            message,
            // The ESF front end's legacy entry has its own short message here (reference §9).
            errors: [
              {
                message: 'Invalid Credentials',
                domain: 'global',
                reason: 'authError',
                location: 'Authorization',
                locationType: 'header',
              },
            ],
            status: 'UNAUTHENTICATED',
            details: arrayContaining({
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'ACCESS_TOKEN_EXPIRED',
              domain: 'googleapis.com',
              metadata: {
                service: 'container.googleapis.com',
                method: 'google.container.v1beta1.ClusterManager.GetNodePool',
              },
            }),
          },
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const upgrader = createNodePoolUpgrader({ api: apiFor(server.url, EXPIRED_TOKEN), sleep: noSleep });
          const report = await upgrader.upgrade({ ...REF, nodeVersion: '1.30.5-gke.1014000' });
          expect(report).toEqual({
            outcome: 'rejected',
            step: 'read',
            error: {
              httpStatus: 401,
              status: 'UNAUTHENTICATED',
              message,
              reason: 'authError',
              errorInfoReason: 'ACCESS_TOKEN_EXPIRED',
            },
          });
        }),
      );
  });

  it('gets 403 PERMISSION_DENIED when the caller lacks container.clusters.update', async () => {
    // Real GKE writes the cluster as `zones/` for zonal locations in some messages and `locations/`
    // in others (reference §5.3 vs §9); either is accepted.
    const deniedMessage = regex(
      /^Required "container\.clusters\.update" permission\(s\) for "projects\/sim-project\/(locations|zones)\/us-central1-a\/clusters\/cluster-1"\.$/,
      `Required "container.clusters.update" permission(s) for "projects/${PROJECT}/locations/${LOCATION}/clusters/${CLUSTER}".`,
    );
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(
        ...clusterStates.tokenLacksPermission.with({
          accessToken: VIEWER_TOKEN,
          permission: 'container.clusters.update',
        }),
      )
      .uponReceiving('a request to update node pool pool-1 by a caller without container.clusters.update')
      .withRequest('PUT', POOL_PATH, (b) =>
        b.headers(bearer(VIEWER_TOKEN)).jsonBody({ nodeVersion: '1.30.5-gke.1014000', etag: CURRENT_ETAG }),
      )
      .willRespondWith(403, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          error: {
            code: 403,
            message: deniedMessage,
            errors: [{ domain: 'global', message: deniedMessage, reason: 'forbidden' }],
            status: 'PERMISSION_DENIED',
          },
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const update = await apiFor(server.url, VIEWER_TOKEN).updateNodePool(REF, {
            nodeVersion: '1.30.5-gke.1014000',
            etag: ETAG,
          });
          expect(update).toMatchObject({
            ok: false,
            error: { httpStatus: 403, status: 'PERMISSION_DENIED', reason: 'forbidden' },
          });
        }),
      );
  });
  it('resizes node pool pool-1 with setSize: a SET_NODE_POOL_SIZE operation', async () => {
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .uponReceiving('a request to set the size of node pool pool-1 to 5 nodes')
      // `POST …/nodePools/*}:setSize` body `{nodeCount}` (reference §4).
      .withRequest('POST', `${POOL_PATH}:setSize`, (b) => b.headers(ANY_BEARER).jsonBody({ nodeCount: 5 }))
      .willRespondWith(200, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          name: regex(OPERATION_ID, OPERATION),
          // SET_NODE_POOL_SIZE = 14 (reference §2.3).
          operationType: 'SET_NODE_POOL_SIZE',
          status: regex(/^(PENDING|RUNNING)$/, 'PENDING'),
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const resize = await apiFor(server.url).setNodePoolSize(REF, 5);
          expect(resize).toEqual({ ok: true, value: { name: OPERATION, status: 'PENDING' } });
        }),
      );
  });

  it('starts a blue-green upgrade: reads the etag and updates with BLUE_GREEN upgradeSettings', async () => {
    readsPool(pact);
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .uponReceiving(
        'a request to start a blue-green upgrade of node pool pool-1 to 1.30.5-gke.1014000 with its current etag',
      )
      .withRequest('PUT', POOL_PATH, (b) =>
        b.headers(ANY_BEARER).jsonBody({
          nodeVersion: GREEN_VERSION,
          etag: CURRENT_ETAG,
          // UpgradeSettings with strategy BLUE_GREEN and its BlueGreenSettings (reference §1.4).
          upgradeSettings: {
            strategy: 'BLUE_GREEN',
            blueGreenSettings: {
              standardRolloutPolicy: { batchNodeCount: 1 },
              nodePoolSoakDuration: '3600s',
            },
          },
        }),
      )
      .willRespondWith(200, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          name: regex(OPERATION_ID, OPERATION),
          operationType: 'UPGRADE_NODES',
          status: regex(/^(PENDING|RUNNING)$/, 'PENDING'),
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const upgrader = createNodePoolUpgrader({ api: apiFor(server.url), sleep: noSleep });
          const report = await upgrader.startBlueGreenUpgrade({
            ...REF,
            nodeVersion: GREEN_VERSION,
            batchNodeCount: 1,
            nodePoolSoakDuration: '3600s',
          });
          expect(report).toEqual({
            outcome: 'started',
            nodePool: NODE_POOL,
            fromVersion: POOL_VERSION,
            operation: OPERATION,
            updateAttempts: 1,
          });
        }),
      );
  });

  it('ends a blue-green soak early: reads NODE_POOL_SOAKING, then completeUpgrade answers {}', async () => {
    pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(...SOAKING_STATE)
      .uponReceiving('a request to read node pool pool-1 while its blue-green upgrade soaks')
      .withRequest('GET', POOL_PATH, (b) => b.headers(ANY_BEARER))
      .willRespondWith(200, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          name: NODE_POOL,
          // The blue pool's version until the blue pool is deleted.
          version: regex(EXPLICIT_VERSION, POOL_VERSION),
          etag: string(NEWER_ETAG),
          // NodePool.updateInfo.blueGreenInfo (reference §3.1).
          updateInfo: { blueGreenInfo: { phase: 'NODE_POOL_SOAKING', greenPoolVersion: GREEN_VERSION } },
        }),
      );
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(...SOAKING_STATE)
      .uponReceiving('a request to complete the soaking blue-green upgrade of node pool pool-1')
      // `POST …:completeUpgrade` body `{}`, answering google.protobuf.Empty (reference §4).
      .withRequest('POST', `${POOL_PATH}:completeUpgrade`, (b) => b.headers(ANY_BEARER).jsonBody({}))
      .willRespondWith(200, (b) => b.headers(JSON_RESPONSE).jsonBody({}))
      .executeTest(
        recorded(pact, async (server) => {
          const upgrader = createNodePoolUpgrader({ api: apiFor(server.url), sleep: noSleep });
          const report = await upgrader.completeBlueGreenUpgrade(REF);
          expect(report).toEqual({
            outcome: 'completed',
            nodePool: NODE_POOL,
            greenPoolVersion: GREEN_VERSION,
          });
        }),
      );
  });

  it('reads a soaking blue-green operation as RUNNING at UPGRADE_STAGE NODE_POOL_SOAKING', async () => {
    await pact
      .addInteraction()
      .given(...CLUSTER_STATE)
      .given(...POOL_STATE)
      .given(...SOAKING_STATE)
      .uponReceiving('a request to read the blue-green upgrade operation on pool-1 while the pool soaks')
      .withRequest('GET', BLUE_GREEN_OPERATION_PATH, (b) => b.headers(ANY_BEARER))
      .willRespondWith(200, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          name: regex(OPERATION_ID, OPERATION),
          status: 'RUNNING',
          // OperationProgress metrics (reference §2.5): the phase as a string-valued UPGRADE_STAGE.
          progress: {
            metrics: arrayContaining({ name: 'UPGRADE_STAGE', stringValue: 'NODE_POOL_SOAKING' }),
          },
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const poll = await apiFor(server.url).getOperation({
            project: PROJECT,
            location: LOCATION,
            operation: OPERATION,
          });
          expect(poll).toEqual({
            ok: true,
            value: { name: OPERATION, status: 'RUNNING', upgradeStage: 'NODE_POOL_SOAKING' },
          });
        }),
      );
  });
});
