import { afterAll, describe, expect, it } from 'vitest';
import { createHarness } from './support/harness';

/** The Compute slice's rows in `/openapi.json`, with Compute's parameters and schema names. */
const h = createHarness();
afterAll(() => h.close());

const ZONE = '/compute/v1/projects/{project}/zones/{zone}';

describe("the OpenAPI document's Compute rows", () => {
  it("lists each Compute row under its operation with Compute's response schema and error envelope", async () => {
    const doc = (await h.get('/openapi.json', { token: null })).body;
    const get = doc.paths[`${ZONE}/instanceGroupManagers/{name}`].get;
    expect(get.operationId).toBe('compute.instanceGroupManagers.get');
    expect(get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/InstanceGroupManager',
    });
    expect(get.responses.default.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ComputeError',
    });
    expect(doc.components.schemas.InstanceGroupManager.properties.kind).toEqual({
      const: 'compute#instanceGroupManager',
    });
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/compute/v1/'))).toHaveLength(8);
  });

  it("declares Compute's list parameters on lists, and none of the container API's request ids", async () => {
    const doc = (await h.get('/openapi.json', { token: null })).body;
    const names = (op: { parameters?: { name?: string; $ref?: string }[] }) =>
      (op.parameters ?? []).map((p) => p.name ?? p.$ref);
    const list = doc.paths[`${ZONE}/instanceGroupManagers`].get;
    expect(names(list)).toEqual(
      expect.arrayContaining(['filter', 'maxResults', 'orderBy', 'pageToken', 'returnPartialSuccess']),
    );
    expect(names(list).join()).not.toMatch(/projectId|clusterId|nodePoolId/);
    const listInstances = doc.paths[`${ZONE}/instanceGroups/{name}/listInstances`].post;
    expect(listInstances.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/InstanceGroupsListInstancesRequest',
    });
    expect(names(doc.paths[`${ZONE}/instances/{name}`].get)).not.toContain('filter');
  });
});
