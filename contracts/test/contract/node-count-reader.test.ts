import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeCountApi, createNodeCountReader } from '../../consumers/node-count-reader/src';
import { clusterStates } from '../../src/states';
import { createPact, recorded } from './support/pact';

const { regex, eachLike, string, fromProviderState } = MatchersV3;

/**
 * Terraform's read of a node pool's `node_count` and `managed_instance_group_urls`: the pool from the
 * container API (v1, the GA provider's), then each of its `instanceGroupUrls`' Compute managers, by
 * `instanceGroupManagers.get` (provider ≤ 7.16) or by the zone's `instanceGroupManagers.list` matched on
 * `selfLink` (≥ 7.17). The managers' names carry a hash the provider computes: the states return the
 * first one as `igm`, and requests for it carry `fromProviderState`.
 */
const PROJECT = 'sim-project';
const ZONE = 'us-central1-a';
const REGION = 'us-central1';
const ZONES = ['us-central1-a', 'us-central1-b', 'us-central1-c'];
const NODE_POOL = 'pool-1';
const ZONAL = { project: PROJECT, location: ZONE, cluster: 'cluster-1', nodePool: NODE_POOL };
const REGIONAL = { project: PROJECT, location: REGION, cluster: 'cluster-r', nodePool: NODE_POOL };
const ACCESS_TOKEN = 'ya29.sim-access-token';
const ANY_BEARER = { Authorization: regex(/^Bearer \S+$/, `Bearer ${ACCESS_TOKEN}`) };
const JSON_RESPONSE = {
  'Content-Type': regex(/^application\/json(;.*)?$/, 'application/json; charset=UTF-8'),
};

const poolPath = (ref: typeof ZONAL) =>
  `/v1/projects/${ref.project}/locations/${ref.location}/clusters/${ref.cluster}/nodePools/${ref.nodePool}`;
/** GKE names a pool's group per zone `gke-{cluster}-{pool}-{8 hex}-grp` (reference gke-nodepools-v1beta1.md). */
const igmName = (cluster: string, hash: string) => `gke-${cluster}-${NODE_POOL}-${hash}-grp`;
const COMPUTE = 'https://www.googleapis.com/compute/v1';
const igmUrl = (zone: string, name: string) =>
  `${COMPUTE}/projects/${PROJECT}/zones/${zone}/instanceGroupManagers/${name}`;
const groupUrl = (zone: string, name: string) =>
  `${COMPUTE}/projects/${PROJECT}/zones/${zone}/instanceGroups/${name}`;
/** A URL of `kind` (`instanceGroupManagers`, `instanceGroups`) of the pool's group in `zone`, any hash. */
const urlMatching = (kind: string, zone: string, cluster: string, example: string) =>
  regex(
    new RegExp(
      `^https://(www|compute)\\.googleapis\\.com/compute/v1/projects/${PROJECT}/zones/${zone}/${kind}/gke-${cluster}-${NODE_POOL}-[0-9a-f]{8}-grp$`,
    ),
    example,
  );

const ZONAL_IGM = igmName('cluster-1', '5a1d2f3e');
const REGIONAL_IGMS = ZONES.map((zone, i) => ({
  zone,
  name: igmName('cluster-r', ['0b1c2d3e', '4f5a6b7c', '8d9e0f1a'][i] as string),
}));

const ZONAL_STATE = clusterStates.poolInZones.with({ ...ZONAL, nodeCount: 3, zones: [ZONE] });
const REGIONAL_STATE = clusterStates.poolInZones.with({ ...REGIONAL, nodeCount: 2, zones: ZONES });
const DELETED_STATE = clusterStates.poolDeleted.with(ZONAL);

/** A manager as the reader reads it, matched by shape where the hash varies. */
const manager = (zone: string, cluster: string, name: string, targetSize: number) => ({
  selfLink: urlMatching('instanceGroupManagers', zone, cluster, igmUrl(zone, name)),
  targetSize,
  instanceGroup: urlMatching('instanceGroups', zone, cluster, groupUrl(zone, name)),
});

function readsPool(pact: PactV4, state: typeof ZONAL_STATE, ref: typeof ZONAL, urls: unknown[]) {
  return pact
    .addInteraction()
    .given(...state)
    .uponReceiving(`a request to read node pool ${ref.nodePool} of ${ref.cluster} in ${ref.location}`)
    .withRequest('GET', poolPath(ref), (b) => b.headers(ANY_BEARER))
    .willRespondWith(200, (b) =>
      b.headers(JSON_RESPONSE).jsonBody({ name: NODE_POOL, instanceGroupUrls: urls }),
    );
}

function listsZone(
  pact: PactV4,
  state: typeof ZONAL_STATE,
  zone: string,
  cluster: string,
  name: string,
  size: number,
) {
  return pact
    .addInteraction()
    .given(...state)
    .uponReceiving(`a request to list the instance group managers of zone ${zone} (${cluster})`)
    .withRequest('GET', `/compute/v1/projects/${PROJECT}/zones/${zone}/instanceGroupManagers`, (b) =>
      b.headers(ANY_BEARER),
    )
    .willRespondWith(200, (b) =>
      b.headers(JSON_RESPONSE).jsonBody({ items: eachLike(manager(zone, cluster, name, size), 1) }),
    );
}

const apiFor = (url: string) =>
  createNodeCountApi({ containerUrl: url, computeUrl: url, accessToken: ACCESS_TOKEN });
const IGM_PATH = `/compute/v1/projects/${PROJECT}/zones/${ZONE}/instanceGroupManagers/`;
// biome-ignore lint/suspicious/noTemplateCurlyInString: pact's provider-state expression, not a template
const IGM_EXPRESSION = '${igm}';
/** The manager path of the state's first group (its hash is the provider's: the state returns the name). */
const igmPath = (name: string) => fromProviderState(`${IGM_PATH}${IGM_EXPRESSION}`, `${IGM_PATH}${name}`);

describe('node-count-reader → cluster-sim', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('node-count-reader', 'cluster-sim');
  });

  it('reads node_count 3 of a zonal pool by instanceGroupManagers.get (provider ≤ 7.16)', async () => {
    readsPool(pact, ZONAL_STATE, ZONAL, [
      urlMatching('instanceGroupManagers', ZONE, 'cluster-1', igmUrl(ZONE, ZONAL_IGM)),
    ]);
    await pact
      .addInteraction()
      .given(...ZONAL_STATE)
      .uponReceiving("a request to get the zonal pool's instance group manager")
      .withRequest('GET', igmPath(ZONAL_IGM), (b) => b.headers(ANY_BEARER))
      .willRespondWith(200, (b) =>
        b.headers(JSON_RESPONSE).jsonBody(manager(ZONE, 'cluster-1', ZONAL_IGM, 3)),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const read = await createNodeCountReader(apiFor(server.url), 'get').read(ZONAL);
          expect(read).toEqual({
            ok: true,
            value: {
              nodeCount: 3,
              instanceGroupUrls: [igmUrl(ZONE, ZONAL_IGM)],
              managedInstanceGroupUrls: [groupUrl(ZONE, ZONAL_IGM)],
            },
          });
        }),
      );
  });

  it("reads node_count 3 of a zonal pool from the zone's list matched on selfLink (provider ≥ 7.17)", async () => {
    readsPool(pact, ZONAL_STATE, ZONAL, [
      urlMatching('instanceGroupManagers', ZONE, 'cluster-1', igmUrl(ZONE, ZONAL_IGM)),
    ]);
    await listsZone(pact, ZONAL_STATE, ZONE, 'cluster-1', ZONAL_IGM, 3).executeTest(
      recorded(pact, async (server) => {
        const read = await createNodeCountReader(apiFor(server.url), 'list').read(ZONAL);
        expect(read).toMatchObject({
          ok: true,
          value: { nodeCount: 3, managedInstanceGroupUrls: [groupUrl(ZONE, ZONAL_IGM)] },
        });
      }),
    );
  });

  it('reads the per-zone node_count 2 of a regional pool over its three zones', async () => {
    readsPool(
      pact,
      REGIONAL_STATE,
      REGIONAL,
      REGIONAL_IGMS.map(({ zone, name }) =>
        urlMatching('instanceGroupManagers', zone, 'cluster-r', igmUrl(zone, name)),
      ),
    );
    for (const { zone, name } of REGIONAL_IGMS.slice(0, -1))
      listsZone(pact, REGIONAL_STATE, zone, 'cluster-r', name, 2);
    const last = REGIONAL_IGMS.at(-1) as { zone: string; name: string };
    await listsZone(pact, REGIONAL_STATE, last.zone, 'cluster-r', last.name, 2).executeTest(
      recorded(pact, async (server) => {
        const read = await createNodeCountReader(apiFor(server.url), 'list').read(REGIONAL);
        expect(read).toEqual({
          ok: true,
          value: {
            nodeCount: 2,
            instanceGroupUrls: REGIONAL_IGMS.map(({ zone, name }) => igmUrl(zone, name)),
            managedInstanceGroupUrls: REGIONAL_IGMS.map(({ zone, name }) => groupUrl(zone, name)),
          },
        });
      }),
    );
  });

  it("gets Compute's notFound for a deleted pool's manager", async () => {
    // Compute's own 404: the legacy envelope without status or details (FIDELITY.md, Compute slice).
    const message = `The resource 'projects/${PROJECT}/zones/${ZONE}/instanceGroupManagers/${ZONAL_IGM}' was not found`;
    await pact
      .addInteraction()
      .given(...DELETED_STATE)
      .uponReceiving("a request to get a deleted pool's instance group manager")
      .withRequest('GET', igmPath(ZONAL_IGM), (b) => b.headers(ANY_BEARER))
      .willRespondWith(404, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          error: {
            code: 404,
            message: regex(
              /^The resource 'projects\/[^']+\/instanceGroupManagers\/[^']+' was not found$/,
              message,
            ),
            errors: [{ message: string(message), domain: 'global', reason: 'notFound' }],
          },
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const got = await apiFor(server.url).getManager({ project: PROJECT, zone: ZONE, name: ZONAL_IGM });
          expect(got).toEqual({
            ok: false,
            error: { httpStatus: 404, status: 'UNKNOWN', message, reason: 'notFound' },
          });
        }),
      );
  });

  it('reports the container API’s 404 for a deleted pool (the read that drops it from the state)', async () => {
    await pact
      .addInteraction()
      .given(...DELETED_STATE)
      .uponReceiving('a request to read a deleted node pool')
      .withRequest('GET', poolPath(ZONAL), (b) => b.headers(ANY_BEARER))
      .willRespondWith(404, (b) =>
        b.headers(JSON_RESPONSE).jsonBody({
          error: {
            code: 404,
            message: string('Not found: node pool "pool-1" not found.'),
            status: 'NOT_FOUND',
          },
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const read = await createNodeCountReader(apiFor(server.url), 'get').read(ZONAL);
          expect(read).toMatchObject({ ok: false, error: { httpStatus: 404, status: 'NOT_FOUND' } });
        }),
      );
  });
});
