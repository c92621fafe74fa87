import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnyJson, createHarness, type Harness } from './support/harness';

/**
 * What clusters.create refuses in the request itself (src/domain/cluster-request-rules.ts), with GKE's
 * texts as public logs of real answers show them: 400 INVALID_ARGUMENT, nothing created, no operation.
 */

const LOC = '/v1beta1/projects/p1/locations/us-central1-a';
const NAME_RULE =
  "Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)' (only lowercase alphanumerics and '-' allowed, must start with a letter and end with an alphanumeric, and must be no longer than 40 characters).";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.close());

async function refused(cluster: AnyJson): Promise<string> {
  const res = await h.post(`${LOC}/clusters`, { cluster });
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.status).toBe('INVALID_ARGUMENT');
  expect((await h.get(`${LOC}/clusters`)).body.clusters ?? []).toEqual([]);
  expect((await h.get(`${LOC}/operations`)).body.operations ?? []).toEqual([]);
  return res.body.error.message;
}

describe('clusters.create refuses', () => {
  it('two node pools of one name with the 500 GKE answers (rancher/gke-operator#122), nothing created', async () => {
    const pool = { name: 'np', initialNodeCount: 1 };
    const res = await h.post(`${LOC}/clusters`, { cluster: { name: 'c1', nodePools: [pool, { ...pool }] } });
    expect(res.status, res.text).toBe(500);
    expect(res.body.error).toMatchObject({
      code: 500,
      status: 'INTERNAL',
      message: 'Internal error encountered.',
    });
    expect(res.body.error.errors?.[0]?.reason).toBe('backendError');
    expect(res.headers.get('x-sim-reason')).toBe('gke-internal-error-repeated-pool-name');
    expect((await h.get(`${LOC}/clusters`)).body.clusters ?? []).toEqual([]);
    expect((await h.get(`${LOC}/operations`)).body.operations ?? []).toEqual([]);
    // Two names are two pools.
    const two = await h.post(`${LOC}/clusters`, {
      cluster: { name: 'c1', nodePools: [pool, { ...pool, name: 'np2' }] },
    });
    expect(two.status, two.text).toBe(200);
  });

  it.each([
    ['an upper-case letter', 'My-cluster'],
    ['an underscore', 'my_cluster'],
    ['a leading digit', '1c-wmcgg'],
    ['a trailing hyphen', 'cluster-'],
    ['a dot', 'kubecf-2.2'],
    ['41 characters', `c${'a'.repeat(40)}`],
  ])("a name with %s, with GKE's text", async (_what, name) => {
    expect(await refused({ name, initialNodeCount: 1 })).toBe(
      `Invalid value for field "cluster.name": "${name}". ${NAME_RULE}`,
    );
  });

  it('takes names of 1 and 40 characters, digits and hyphens inside', async () => {
    for (const name of ['a', `a${'-0'.repeat(19)}b`.slice(0, 40)]) {
      const res = await h.post(`${LOC}/clusters`, { cluster: { name, initialNodeCount: 1 } });
      expect(res.status, `${name}: ${res.text}`).toBe(200);
    }
  });

  it('quotes at most 200 characters of a long name', async () => {
    const message = await refused({ name: 'x'.repeat(5000), initialNodeCount: 1 });
    expect(message).toBe(`Invalid value for field "cluster.name": "${'x'.repeat(200)}…". ${NAME_RULE}`);
  });

  it('a cluster with neither node pools nor a node count', async () => {
    expect(await refused({ name: 'c2' })).toBe('Cluster.initial_node_count must be greater than zero.');
    expect(await refused({ name: 'c2', initialNodeCount: 0, nodePools: [] })).toBe(
      'Cluster.initial_node_count must be greater than zero.',
    );
  });

  it('a node pool without a name', async () => {
    expect(await refused({ name: 'c2', nodePools: [{ initialNodeCount: 1 }] })).toBe(
      'Node_pool.name must be specified.',
    );
  });

  it('a node count beside node pools (the reference: "Do not use this and a node_pool at the same time")', async () => {
    expect(
      await refused({ name: 'c2', initialNodeCount: 2, nodePools: [{ name: 'np', initialNodeCount: 1 }] }),
    ).toBe(
      'Cluster.initial_node_count must not be set when node_pools are specified; set node_pools[].initial_node_count instead.',
    );
  });
});
