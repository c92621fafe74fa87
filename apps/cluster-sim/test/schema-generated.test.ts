import { CreateClusterRequest, CreateNodePoolRequest, UpdateNodePoolRequest } from '@sims/cluster-schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRequest } from '../src/http/parse';
import { CLUSTER, createHarness, type Harness, LOC, POOL } from './support/harness';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

/** A create request as real tools send it: the Cluster fields the hand-written schema lacked (13). */
const CLUSTER_BODY = {
  name: 'c9',
  initialNodeCount: 1,
  autopilot: { enabled: false },
  autoscaling: { enableNodeAutoprovisioning: false, autoscalingProfile: 'BALANCED' },
  binaryAuthorization: { evaluationMode: 'DISABLED' },
  controlPlaneEndpointsConfig: {
    dnsEndpointConfig: { allowExternalTraffic: false },
    ipEndpointsConfig: { enabled: true, enablePublicEndpoint: true },
  },
  ipAllocationPolicy: { useIpAliases: true, clusterIpv4CidrBlock: '/14', stackType: 'IPV4' },
  legacyAbac: { enabled: false },
  loggingService: 'logging.googleapis.com/kubernetes',
  maintenancePolicy: { window: { dailyMaintenanceWindow: { startTime: '03:00' } } },
  monitoringService: 'monitoring.googleapis.com/kubernetes',
  networkConfig: { enableIntraNodeVisibility: true, datapathProvider: 'ADVANCED_DATAPATH' },
  networkPolicy: { enabled: false, provider: 'PROVIDER_UNSPECIFIED' },
  notificationConfig: { pubsub: { enabled: false } },
  shieldedNodes: { enabled: true },
};

/** GKE's recorded 400 for a bad enum value (docs/research/gke-recordings.md). */
function enumError(message: string) {
  return {
    error: {
      code: 400,
      message,
      errors: [{ message, reason: 'invalid' }],
      status: 'INVALID_ARGUMENT',
    },
  };
}

describe('the generated Cluster schema at the HTTP edge', () => {
  it('takes a clusters.create carrying the standard fields real tools send', async () => {
    const res = await h.post(`${LOC}/clusters`, { cluster: CLUSTER_BODY });
    expect(res.status, res.text).toBe(200);
    expect(res.body.operationType).toBe('CREATE_CLUSTER');
  });

  it('takes the same fields in snake_case and enums as numbers', () => {
    const parsed = parseRequest(
      CreateClusterRequest,
      {
        cluster: { name: 'c9', binary_authorization: { evaluation_mode: 1 }, legacy_abac: { enabled: true } },
      },
      true,
    );
    expect(parsed.ok && parsed.value.cluster).toEqual({
      name: 'c9',
      binaryAuthorization: { evaluationMode: 'DISABLED' },
      legacyAbac: { enabled: true },
    });
  });

  it('still names an unknown field of a generated message', async () => {
    const res = await h.post(`${LOC}/clusters`, { cluster: { name: 'c9', legacyAbac: { on: true } } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      `Invalid JSON payload received. Unknown name "on" at 'cluster.legacy_abac': Cannot find field.`,
    );
  });
});

describe('a bad enum value', () => {
  it("answers GKE's recorded body for nodePools.create (v1beta1)", async () => {
    const res = await h.post(`${CLUSTER}/nodePools`, {
      nodePool: {
        name: 'np9',
        initialNodeCount: 1,
        config: { imageType: 'WINDOWS_LTSC_CONTAINERD', windowsNodeConfig: { osVersion: 'OS_2022' } },
        networkConfig: {},
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      enumError(
        `Invalid value at 'node_pool.config.windows_node_config.os_version' (type.googleapis.com/google.container.v1beta1.WindowsNodeConfig.OSVersion), "OS_2022"`,
      ),
    );
  });

  it('names the v1 type under v1, and a number unquoted', async () => {
    const res = await h.put(POOL.replace('/v1beta1/', '/v1/'), { upgradeSettings: { strategy: 9 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      enumError(
        `Invalid value at 'upgrade_settings.strategy' (type.googleapis.com/google.container.v1.NodePoolUpdateStrategy), 9`,
      ),
    );
  });

  it('names a generated enum of the cluster', async () => {
    const res = await h.post(`${LOC}/clusters`, {
      cluster: { name: 'c9', binaryAuthorization: { evaluationMode: 'SOMETIMES' } },
    });
    expect(res.body).toEqual(
      enumError(
        `Invalid value at 'cluster.binary_authorization.evaluation_mode' (type.googleapis.com/google.container.v1beta1.BinaryAuthorization.EvaluationMode), "SOMETIMES"`,
      ),
    );
  });

  it('leaves the other violations in the old form when an unknown name comes first', () => {
    const parsed = parseRequest(UpdateNodePoolRequest, { nope: 1, upgradeSettings: { strategy: 'X' } }, true);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toEqual({
        code: 'BAD_PAYLOAD',
        violations: [
          { description: 'Invalid JSON payload received. Unknown name "nope": Cannot find field.' },
        ],
      });
    }
  });
});

describe('v1beta1-only fields', () => {
  it('are unknown names when the parser is told the request is v1', () => {
    const body = { nodePool: { name: 'np9', config: { ephemeralStorageConfig: { localSsdCount: 1 } } } };
    expect(parseRequest(CreateNodePoolRequest, body, true, 'v1beta1').ok).toBe(true);
    const v1 = parseRequest(CreateNodePoolRequest, body, true, 'v1');
    expect(!v1.ok && v1.error).toEqual({
      code: 'BAD_PAYLOAD',
      violations: [
        {
          field: 'node_pool.config',
          description: `Invalid JSON payload received. Unknown name "ephemeralStorageConfig" at 'node_pool.config': Cannot find field.`,
        },
      ],
    });
    const cluster = parseRequest(CreateClusterRequest, { cluster: { master: {} } }, true, 'v1');
    expect(cluster.ok).toBe(false);
  });

  it('are refused over HTTP under v1 and taken under v1beta1', async () => {
    const v1 = await h.post(`${LOC.replace('/v1beta1/', '/v1/')}/clusters`, {
      cluster: { name: 'c8', master: {} },
    });
    expect(v1.status).toBe(400);
    expect(v1.body.error.message).toBe(
      `Invalid JSON payload received. Unknown name "master" at 'cluster': Cannot find field.`,
    );
    const beta = await h.post(`${LOC}/clusters`, {
      cluster: { name: 'c8', initialNodeCount: 1, master: {} },
    });
    expect(beta.status, beta.text).toBe(200);
  });
});
