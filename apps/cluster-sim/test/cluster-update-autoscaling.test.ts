import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_OAUTH_SCOPES } from '../src/domain/defaults';
import { clusterUpdates } from './support/cluster-update';
import { CLUSTER, createHarness, type Harness } from './support/harness';

/**
 * ClusterUpdate `desiredClusterAutoscaling` (node auto-provisioning and the autoscaling profile): one
 * UPDATE_CLUSTER on the cluster, `autoscaling` replaced at DONE as GKE keeps it, GKE's refusals.
 */
let h: Harness;

beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const { operations, applyUpdate, refused: refusedUpdate } = clusterUpdates(() => h);

/** Applies `desiredClusterAutoscaling` (see `applyUpdate`); the cluster's autoscaling before and after. */
async function update(desiredClusterAutoscaling: Record<string, unknown>, cluster = CLUSTER) {
  const { before, after } = await applyUpdate({ desiredClusterAutoscaling }, cluster);
  return { before: before.autoscaling, after: after.autoscaling };
}

/** Expects `desiredClusterAutoscaling` refused as an INVALID_ARGUMENT, starting nothing; the message. */
async function refused(desiredClusterAutoscaling: Record<string, unknown>): Promise<string> {
  const error = await refusedUpdate({ desiredClusterAutoscaling }, 400);
  expect(error.status).toBe('INVALID_ARGUMENT');
  expect(await operations()).toEqual([]);
  return error.message;
}

describe('clusters.update desiredClusterAutoscaling', () => {
  it('turns on node auto-provisioning with the pool defaults GKE fills in, at DONE', async () => {
    const { before, after } = await update({
      enableNodeAutoprovisioning: true,
      resourceLimits: [
        { resourceType: 'cpu', minimum: 0, maximum: 12 },
        { resourceType: 'memory', minimum: '04', maximum: '48' },
      ],
      autoprovisioningNodePoolDefaults: { diskSizeGb: 50 },
      autopilotGeneralProfile: 'NO_PERFORMANCE',
    });
    // Unchanged until the operation is DONE.
    expect(before).toEqual({ autoscalingProfile: 'BALANCED' });
    expect(after).toEqual({
      enableNodeAutoprovisioning: true,
      resourceLimits: [
        { resourceType: 'cpu', maximum: '12' },
        { resourceType: 'memory', minimum: '4', maximum: '48' },
      ],
      autoscalingProfile: 'BALANCED',
      autopilotGeneralProfile: 'NO_PERFORMANCE',
      autoprovisioningNodePoolDefaults: {
        oauthScopes: DEFAULT_OAUTH_SCOPES,
        serviceAccount: 'default',
        upgradeSettings: { maxSurge: 1, strategy: 'SURGE' },
        management: { autoUpgrade: true, autoRepair: true },
        diskSizeGb: 50,
        diskType: 'pd-balanced',
        shieldedInstanceConfig: { enableIntegrityMonitoring: true },
        imageType: 'COS_CONTAINERD',
      },
    });
    // No pods, so no auto-provisioned pool: the seeded one alone.
    const pools = (await h.get(`${CLUSTER}/nodePools`)).body.nodePools;
    expect(pools.map((p: { name: string }) => p.name)).toEqual(['np1']);
  });

  it('sets the profile and turns auto-provisioning off again (replaced whole)', async () => {
    await update({
      enableNodeAutoprovisioning: true,
      resourceLimits: [
        { resourceType: 'cpu', maximum: 4 },
        { resourceType: 'memory', maximum: 16 },
      ],
    });
    const { after } = await update({
      enableNodeAutoprovisioning: false,
      autoscalingProfile: 'OPTIMIZE_UTILIZATION',
      defaultComputeClassConfig: { enabled: false },
    });
    expect(after).toEqual({ autoscalingProfile: 'OPTIMIZE_UTILIZATION', defaultComputeClassConfig: {} });
  });

  it("refuses what GKE refuses, with GKE's texts, starting nothing", async () => {
    expect(await refused({ enableNodeAutoprovisioning: true })).toBe(
      'Resource limits for cpu, memory must be specified when enabling node autoprovisioning.',
    );
    expect(
      await refused({
        enableNodeAutoprovisioning: true,
        resourceLimits: [{ resourceType: 'cpu', maximum: 4 }],
      }),
    ).toBe('Resource limits for memory must be specified when enabling node autoprovisioning.');
    expect(await refused({ resourceLimits: [{ resourceType: 'cpu', maximum: 4 }] })).toBe(
      'Resource limits are supported only with node autoprovisioning.',
    );
    expect(
      await refused({
        enableNodeAutoprovisioning: true,
        resourceLimits: [
          { resourceType: 'cpu', maximum: 4 },
          { resourceType: 'memory', maximum: 16 },
          { resourceType: 'accelerator', maximum: 4 },
        ],
      }),
    ).toBe('Invalid resource: accelerator.');
    expect(
      await refused({
        enableNodeAutoprovisioning: true,
        resourceLimits: [
          { resourceType: 'cpu', minimum: 8, maximum: 4 },
          { resourceType: 'memory', maximum: 16 },
        ],
      }),
    ).toBe('Resource limit for cpu: minimum 8 is greater than maximum 4.');
  });

  it('takes accelerator limits by their type name', async () => {
    const { after } = await update({
      enableNodeAutoprovisioning: true,
      resourceLimits: [
        { resourceType: 'cpu', maximum: 64 },
        { resourceType: 'memory', maximum: 900 },
        { resourceType: 'nvidia-tesla-t4', maximum: 4 },
      ],
    });
    expect(after.resourceLimits).toContainEqual({ resourceType: 'nvidia-tesla-t4', maximum: '4' });
  });
});
