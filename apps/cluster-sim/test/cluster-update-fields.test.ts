import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterUpdates } from './support/cluster-update';
import { CLUSTER, createHarness, type Harness } from './support/harness';

/**
 * ClusterUpdate fields that change one field of the cluster: an UPDATE_CLUSTER operation aimed at the
 * cluster, the change landing when it is DONE, and no progress (as recorded for cluster updates).
 */
let h: Harness;

beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

/** The update's operation aimed at the cluster (v1beta1 link, its zone) and with no progress at DONE. */
const { operations, applyUpdate } = clusterUpdates(() => h, {
  operation: { zone: 'us-central1-a' },
  targetLink:
    /^https:\/\/container\.googleapis\.com\/v1beta1\/projects\/\d+\/zones\/us-central1-a\/clusters\/c1$/,
  unchangedUntilDone: false,
  noProgress: true,
});

describe('clusters.update: fields replaced on the cluster', () => {
  it('desiredLoggingService and desiredMonitoringService together (as Terraform sends them)', async () => {
    const { before, after } = await applyUpdate({
      desiredLoggingService: 'none',
      desiredMonitoringService: 'none',
    });
    expect(before.loggingService).toBe('logging.googleapis.com/kubernetes');
    expect(after.loggingService).toBe('none');
    expect(after.monitoringService).toBe('none');
    // The component configs stay as they were (as recorded).
    expect(after.loggingConfig).toEqual(before.loggingConfig);
    expect(after.monitoringConfig).toEqual(before.monitoringConfig);
    expect(after.etag).not.toBe(before.etag);
  });

  it('refuses a logging or monitoring service the reference does not list, starting nothing', async () => {
    const res = await h.put(CLUSTER, { update: { desiredMonitoringService: 'prometheus' } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.message).toBe(
      'Monitoring service "prometheus" is not supported; use "monitoring.googleapis.com/kubernetes" or "none".',
    );
    // The legacy service is "no longer available as of GKE 1.15" (ClusterUpdate's reference).
    const legacy = await h.put(CLUSTER, { update: { desiredLoggingService: 'logging.googleapis.com' } });
    expect(legacy.status, legacy.text).toBe(400);
    expect(await operations()).toEqual([]);
  });

  it('desiredAddonsConfig replaces the addons it names and keeps the others', async () => {
    const { before, after } = await applyUpdate({
      desiredAddonsConfig: {
        httpLoadBalancing: { disabled: true },
        gcsFuseCsiDriverConfig: { enabled: true },
      },
    });
    expect(after.addonsConfig).toEqual({
      ...before.addonsConfig,
      httpLoadBalancing: { disabled: true },
      gcsFuseCsiDriverConfig: { enabled: true },
    });
    // An addon turned off comes back as an empty message (proto3 drops false).
    const off = await applyUpdate({ desiredAddonsConfig: { gcsFuseCsiDriverConfig: { enabled: false } } });
    expect(off.after.addonsConfig.gcsFuseCsiDriverConfig).toEqual({});
    expect(off.after.addonsConfig.httpLoadBalancing).toEqual({ disabled: true });
  });

  it('desiredLoggingConfig and desiredMonitoringConfig replace the parts they name', async () => {
    const logging = await applyUpdate({
      desiredLoggingConfig: { componentConfig: { enableComponents: ['SYSTEM_COMPONENTS'] } },
    });
    expect(logging.after.loggingConfig).toEqual({
      componentConfig: { enableComponents: ['SYSTEM_COMPONENTS'] },
    });
    const monitoring = await applyUpdate({
      desiredMonitoringConfig: { managedPrometheusConfig: { enabled: false } },
    });
    expect(monitoring.after.monitoringConfig).toEqual({
      ...monitoring.before.monitoringConfig,
      managedPrometheusConfig: {},
    });
    expect(monitoring.after.monitoringConfig.componentConfig).toEqual(
      monitoring.before.monitoringConfig.componentConfig,
    );
  });

  it('desiredVerticalPodAutoscaling, desiredBinaryAuthorization, desiredNotificationConfig and desiredResourceUsageExportConfig replace the message', async () => {
    expect(
      (await applyUpdate({ desiredVerticalPodAutoscaling: { enabled: true } })).after.verticalPodAutoscaling,
    ).toEqual({
      enabled: true,
    });
    const binauthz = await applyUpdate({
      desiredBinaryAuthorization: { evaluationMode: 'PROJECT_SINGLETON_POLICY_ENFORCE' },
    });
    expect(binauthz.after.binaryAuthorization).toEqual({
      evaluationMode: 'PROJECT_SINGLETON_POLICY_ENFORCE',
    });
    const topic = 'projects/p1/topics/upgrades';
    const notify = await applyUpdate({ desiredNotificationConfig: { pubsub: { enabled: true, topic } } });
    expect(notify.after.notificationConfig).toEqual({ pubsub: { enabled: true, topic } });
    const quiet = await applyUpdate({ desiredNotificationConfig: { pubsub: { enabled: false } } });
    expect(quiet.after.notificationConfig).toEqual({ pubsub: {} });
    const usage = await applyUpdate({
      desiredResourceUsageExportConfig: {
        bigqueryDestination: { datasetId: 'usage' },
        consumptionMeteringConfig: { enabled: true },
      },
    });
    expect(usage.after.resourceUsageExportConfig).toEqual({
      bigqueryDestination: { datasetId: 'usage' },
      consumptionMeteringConfig: { enabled: true },
    });
  });

  it('desiredReleaseChannel replaces the channel; UNSPECIFIED leaves none', async () => {
    expect(
      (await applyUpdate({ desiredReleaseChannel: { channel: 'STABLE' } })).after.releaseChannel,
    ).toEqual({
      channel: 'STABLE',
    });
    expect(
      (await applyUpdate({ desiredReleaseChannel: { channel: 'UNSPECIFIED' } })).after.releaseChannel,
    ).toEqual({});
  });

  it('takes an enum as its number (the GAPIC client) and the legacy zones path', async () => {
    const res = await h.put('/v1beta1/projects/p1/zones/us-central1-a/clusters/c1', {
      update: { desiredReleaseChannel: { channel: 3 } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.operationType).toBe('UPDATE_CLUSTER');
    await h.advance('2s');
    expect((await h.get(CLUSTER)).body.releaseChannel).toEqual({ channel: 'STABLE' });
  });

  it('refuses a release channel while a pool has auto-upgrade off, with the text GKE gives on create', async () => {
    await applyUpdate({ desiredReleaseChannel: { channel: 'UNSPECIFIED' } });
    const pool = `${CLUSTER}/nodePools/np1:setManagement`;
    expect((await h.post(pool, { management: { autoUpgrade: false, autoRepair: true } })).status).toBe(200);
    await h.advance('2s');
    const res = await h.put(CLUSTER, { update: { desiredReleaseChannel: { channel: 'RAPID' } } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.message).toBe('Auto_upgrade cannot be false when release_channel RAPID is set.');
  });

  it('answers the v1 surface with v1 links and refuses a v1beta1-only addon there', async () => {
    const v1 = '/v1/projects/p1/locations/us-central1-a/clusters/c1';
    const res = await h.put(v1, { update: { desiredVerticalPodAutoscaling: { enabled: true } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.targetLink).toMatch(
      /^https:\/\/container\.googleapis\.com\/v1\/projects\/\d+\/zones\/us-central1-a\/clusters\/c1$/,
    );
    await h.advance('2s');
    const beta = await h.put(v1, { update: { desiredAddonsConfig: { istioConfig: { disabled: true } } } });
    expect(beta.status, beta.text).toBe(400);
    expect(beta.body.error.message).toMatch(/Unknown name "istioConfig" at 'update.desired_addons_config'/);
  });

  it('refuses two of these fields in one update, and one beside another kind of field, as not simulated', async () => {
    for (const update of [
      { desiredVerticalPodAutoscaling: { enabled: true }, desiredLoggingService: 'none' },
      { desiredAddonsConfig: {}, desiredMasterVersion: '-' },
    ]) {
      const res = await h.put(CLUSTER, { update });
      expect(res.status, res.text).toBe(501);
      expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
      expect(res.body.error.message).toMatch(
        /^A ClusterUpdate with "desired[A-Za-z]+", "desired[A-Za-z]+" together/,
      );
    }
    expect(await operations()).toEqual([]);
  });

  it('blocks other operations while it runs, as every UPDATE_CLUSTER does', async () => {
    const res = await h.put(CLUSTER, { update: { desiredLoggingService: 'none' } });
    expect(res.status, res.text).toBe(200);
    const busy = await h.put(`${CLUSTER}/nodePools/np1`, { labels: { labels: { a: 'b' } } });
    expect(busy.status, busy.text).toBe(400);
    expect(busy.body.error.message).toBe(`Cluster is running incompatible operation ${res.body.name}.`);
  });
});
