import { describe, expect, it } from 'vitest';
import { createHarness } from './support/harness';

describe('GET /openapi.json', () => {
  it('documents every emulated route with schemas generated from @sims/cluster-schema', async () => {
    const h = createHarness();
    const res = await h.get('/openapi.json', { token: null });
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    const paths = Object.keys(doc.paths);
    expect(paths).toContain(
      '/v1beta1/projects/{projectId}/locations/{location}/clusters/{clusterId}/nodePools/{nodePoolId}',
    );
    expect(paths).toContain(
      '/v1beta1/projects/{projectId}/zones/{zone}/clusters/{clusterId}/nodePools/{nodePoolId}/update',
    );
    expect(paths).toContain('/v1/projects/{projectId}/locations/{location}/operations/{operationId}:cancel');
    for (const verb of ['setSize', 'setManagement', 'setAutoscaling', 'rollback', 'completeUpgrade']) {
      expect(
        doc.paths[
          `/v1beta1/projects/{projectId}/locations/{location}/clusters/{clusterId}/nodePools/{nodePoolId}:${verb}`
        ],
      ).toHaveProperty('post');
    }
    expect(paths).toContain(
      '/v1/projects/{projectId}/zones/{zone}/clusters/{clusterId}/nodePools/{nodePoolId}/autoscaling',
    );
    expect(doc.components.schemas.NodePoolUpgradeInfo.properties.upgradeDetails.type).toBe('array');
    expect(
      Object.keys(
        doc.paths[
          '/v1beta1/projects/{projectId}/locations/{location}/clusters/{clusterId}/nodePools/{nodePoolId}'
        ],
      ),
    ).toEqual(['get', 'put', 'delete']);
    const update = doc.components.schemas.UpdateNodePoolRequest;
    expect(update.properties.diskSizeGb).toMatchObject({ type: 'string', pattern: '^-?\\d+$' });
    expect(update.properties.upgradeSettings.properties.strategy.enum).toContain('SURGE');
    expect(doc.components.schemas.Operation.properties.status.enum).toEqual([
      'STATUS_UNSPECIFIED',
      'PENDING',
      'RUNNING',
      'DONE',
      'ABORTING',
    ]);
    h.close();
  });

  it('documents the simulator-specific control routes beside the kernel ones', async () => {
    const h = createHarness();
    const doc = (await h.get('/_sim/openapi.json', { token: null })).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/_sim/settings', '/_sim/operations/{id}/complete']),
    );
    h.close();
  });
});
