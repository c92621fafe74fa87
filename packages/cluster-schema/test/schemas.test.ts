import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  ErrorEnvelope,
  enumNameOf,
  int64,
  isInt64Schema,
  NodePool,
  NodePoolUpdateStrategy,
  Operation,
  OperationType,
  UpdateNodePoolRequest,
} from '../src/index';

describe('cluster schemas', () => {
  it('accepts a real recorded node pool update response operation', () => {
    const op = {
      name: 'operation-1718024305921-fd4f65ea-7da5-4d36-a166-f619a83fb205',
      operationType: 'UPGRADE_NODES',
      selfLink: 'https://container.googleapis.com/v1beta1/projects/123/zones/us-central1-a/operations/x',
      startTime: '2024-04-01T12:34:56.123456Z',
      status: 'RUNNING',
      targetLink:
        'https://container.googleapis.com/v1beta1/projects/123/zones/us-central1-a/clusters/c/nodePools/np',
      zone: 'us-central1-a',
      progress: { metrics: [{ name: 'NODES_TOTAL', intValue: '1' }] },
    };
    expect(Operation.parse(op)).toEqual(op);
  });

  it('has every field of the seed table 2.1 in UpdateNodePoolRequest', () => {
    const fields = [
      'projectId',
      'zone',
      'clusterId',
      'nodePoolId',
      'nodeVersion',
      'imageType',
      'locations',
      'workloadMetadataConfig',
      'upgradeSettings',
      'tags',
      'taints',
      'labels',
      'linuxNodeConfig',
      'kubeletConfig',
      'nodeNetworkConfig',
      'gcfsConfig',
      'confidentialNodes',
      'gvnic',
      'etag',
      'fastSocket',
      'loggingConfig',
      'resourceLabels',
      'windowsNodeConfig',
      'accelerators',
      'machineType',
      'diskType',
      'diskSizeGb',
      'resourceManagerTags',
      'containerdConfig',
      'queuedProvisioning',
      'storagePools',
      'maxRunDuration',
      'flexStart',
    ];
    expect(Object.keys(UpdateNodePoolRequest.shape)).toEqual(expect.arrayContaining(fields));
  });

  it('types diskSizeGb as an int64 string and maxRunDuration as a Duration', () => {
    expect(isInt64Schema(UpdateNodePoolRequest.shape.diskSizeGb.unwrap())).toBe(true);
    expect(int64.safeParse('200').success).toBe(true);
    expect(UpdateNodePoolRequest.safeParse({ maxRunDuration: '3600s' }).success).toBe(true);
    expect(UpdateNodePoolRequest.safeParse({ maxRunDuration: '0.000000001s' }).success).toBe(true);
    expect(UpdateNodePoolRequest.safeParse({ maxRunDuration: '1h' }).success).toBe(false);
    expect(UpdateNodePoolRequest.safeParse({ diskSizeGb: 'ten' }).success).toBe(false);
  });

  it('keeps the proto numbering of enums', () => {
    expect(enumNameOf(NodePoolUpdateStrategy, 3)).toBe('SURGE');
    expect(enumNameOf(OperationType, 4)).toBe('UPGRADE_NODES');
    expect(enumNameOf(OperationType, 17)).toBeUndefined();
  });

  it('describes the error envelope of the front end', () => {
    const body = {
      error: {
        code: 404,
        message: 'Not found: projects/p/zones/us-central1-a/clusters/c.',
        errors: [
          {
            domain: 'global',
            reason: 'notFound',
            message: 'Not found: projects/p/zones/us-central1-a/clusters/c.',
          },
        ],
        status: 'NOT_FOUND',
      },
    };
    expect(ErrorEnvelope.parse(body)).toEqual(body);
  });

  it('converts to JSON Schema for the OpenAPI document', () => {
    const schema = z.toJSONSchema(NodePool, { unrepresentable: 'any' }) as {
      properties: Record<string, unknown>;
    };
    expect(schema.properties).toHaveProperty('etag');
  });
});
