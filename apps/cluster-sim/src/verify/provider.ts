/**
 * cluster-sim as a Pact provider: a fresh in-process simulator on the manual clock, and a handler for
 * every provider state of contracts/STATES.md (cluster-sim section). Handlers set the world up through
 * the simulator's own functions: `/_sim/seed` (clusters, node pools with a pinned etag, operations in a
 * given phase), `/_sim/settings` (expired tokens, denied permissions), for "was updated to" a real
 * `nodePools.update` finished by `/_sim/operations/{id}/complete`, and for "is soaking" a real blue-green
 * `nodePools.update` walked to its soak by `/_sim/clock/advance`. Development-time only: never imported
 * by `src/main.ts`, so pact stays out of the Docker image.
 */
import { clusterStates } from '@sims/contracts';
import {
  int,
  type ProviderDefinition,
  type ProviderSession,
  paramsOf,
  type StateHandler,
  str,
  strings,
} from '@sims/pact-verify';
import { type SeedResult, type StartedClusterSim, startClusterSim } from '../index';

/** The bearer token the handlers use for API calls that set a state up. */
const SETUP_TOKEN = 'pact-provider-state-setup';

/** What the state handlers set a world up with: in-process calls and the seeded world's records. */
function setupTools(sim: StartedClusterSim) {
  /** A control-plane or API call in-process; throws with the answer on any non-2xx status. */
  async function call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await sim.app.request(path, {
      method,
      headers: {
        'Content-Type': 'application/json',
        ...(path.startsWith('/_sim') ? {} : { Authorization: `Bearer ${SETUP_TOKEN}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  }

  const world = () => sim.namespaces.get('default');
  function findCluster(name: string) {
    const matches = [...world().state.clusters.values()].filter((c) => c.name === name);
    if (matches.length !== 1) {
      throw new Error(
        matches.length === 0
          ? `no cluster "${name}": a cluster state must come first`
          : `cluster name "${name}" is ambiguous (${matches.length} clusters)`,
      );
    }
    const c = matches[0] as (typeof matches)[number];
    return { ...c, path: `/v1beta1/projects/${c.projectId}/locations/${c.location}/clusters/${c.name}` };
  }
  async function poolEtag(cluster: string, nodePool: string): Promise<string> {
    const pool = (await call('GET', `${findCluster(cluster).path}/nodePools/${nodePool}`)) as {
      etag?: string;
    };
    if (!pool.etag) throw new Error(`node pool ${nodePool} has no etag`);
    return pool.etag;
  }

  async function seed(input: Record<string, unknown>) {
    return ((await call('POST', '/_sim/seed', input)) as { seeded: SeedResult }).seeded;
  }
  async function updateSettings(
    patch: (auth: { principals: Record<string, unknown>; rejectedTokens: Record<string, string> }) => void,
  ) {
    const settings = (await call('GET', '/_sim/settings')) as {
      auth: { principals: Record<string, unknown>; rejectedTokens: Record<string, string> };
    };
    const auth = {
      principals: { ...settings.auth.principals },
      rejectedTokens: { ...settings.auth.rejectedTokens },
    };
    patch(auth);
    await call('PUT', '/_sim/settings', { auth });
  }

  /** Seeds an UPGRADE_NODES operation on the pool with that id, in that phase (the app's operation seed). */
  async function seedOperation(
    id: string,
    cluster: string,
    nodePool: string,
    phase: Record<string, unknown>,
  ) {
    const c = findCluster(cluster);
    await seed({
      operations: [
        {
          id,
          projectId: c.projectId,
          location: c.location,
          cluster,
          nodePool,
          operationType: 'UPGRADE_NODES',
          ...phase,
        },
      ],
    });
    return { etag: await poolEtag(cluster, nodePool) };
  }

  return { call, findCluster, poolEtag, seed, updateSettings, seedOperation };
}

type Tools = ReturnType<typeof setupTools>;
const s = clusterStates;

/** States seeded whole: a cluster, a node pool with a pinned etag, operations in a given phase. */
function seededStates({ seed, findCluster, poolEtag, seedOperation }: Tools): Record<string, StateHandler> {
  return {
    async [s.cluster.template](params) {
      const p = paramsOf(
        params,
        s.cluster.template,
        'project',
        'location',
        'cluster',
        'masterVersion',
        'validNodeVersions',
      );
      await seed({
        serverConfig: { validNodeVersions: strings(p.validNodeVersions, 'validNodeVersions') },
        // An explicit empty list: the cluster has no pool until a node pool state adds one.
        clusters: [
          {
            projectId: str(p.project, 'project'),
            location: str(p.location, 'location'),
            name: str(p.cluster, 'cluster'),
            currentMasterVersion: str(p.masterVersion, 'masterVersion'),
            nodePools: [],
          },
        ],
      });
      return undefined;
    },

    // The pool's etag is pinned to the param until the pool's next write; the handler also returns the
    // current etag, which requests that send it back take through `fromProviderState('${etag}', …)`.
    async [s.nodePool.template](params) {
      const p = paramsOf(params, s.nodePool.template, 'nodePool', 'cluster', 'version', 'etag');
      const cluster = str(p.cluster, 'cluster');
      const nodePool = str(p.nodePool, 'nodePool');
      const etag = str(p.etag, 'etag');
      const c = findCluster(cluster);
      await seed({
        nodePools: [
          {
            projectId: c.projectId,
            location: c.location,
            cluster,
            name: nodePool,
            version: str(p.version, 'version'),
            initialNodeCount: 3,
            etag,
          },
        ],
      });
      const current = await poolEtag(cluster, nodePool);
      if (current !== etag)
        throw new Error(`node pool ${nodePool} reads etag ${current}, not the seeded ${etag}`);
      return { etag: current };
    },

    // While it runs the pool is RECONCILING (a write: its etag is the simulator's again).
    async [s.operationRunning.template](params) {
      const p = paramsOf(params, s.operationRunning.template, 'operationId', 'nodePool', 'cluster');
      return seedOperation(
        str(p.operationId, 'operationId'),
        str(p.cluster, 'cluster'),
        str(p.nodePool, 'nodePool'),
        {
          status: 'RUNNING',
        },
      );
    },

    async [s.operationDone.template](params) {
      const p = paramsOf(params, s.operationDone.template, 'operationId', 'nodePool', 'cluster');
      return seedOperation(
        str(p.operationId, 'operationId'),
        str(p.cluster, 'cluster'),
        str(p.nodePool, 'nodePool'),
        {
          status: 'DONE',
        },
      );
    },

    async [s.operationFailed.template](params) {
      const p = paramsOf(
        params,
        s.operationFailed.template,
        'operationId',
        'nodePool',
        'cluster',
        'errorCode',
        'errorMessage',
      );
      const message = str(p.errorMessage, 'errorMessage');
      return seedOperation(
        str(p.operationId, 'operationId'),
        str(p.cluster, 'cluster'),
        str(p.nodePool, 'nodePool'),
        {
          status: 'DONE',
          error: { code: int(p.errorCode, 'errorCode'), message },
          statusMessage: message,
        },
      );
    },
  };
}

/** States reached by real requests (an update completed, a blue-green soak) and by auth settings. */
function changedStates({ call, findCluster, poolEtag, updateSettings }: Tools): Record<string, StateHandler> {
  return {
    // A real nodePools.update (the alias resolves in the domain), completed through the control plane.
    async [s.nodePoolUpdated.template](params) {
      const p = paramsOf(params, s.nodePoolUpdated.template, 'nodePool', 'cluster', 'nodeVersion');
      const cluster = str(p.cluster, 'cluster');
      const nodePool = str(p.nodePool, 'nodePool');
      const c = findCluster(cluster);
      const op = (await call('PUT', `${c.path}/nodePools/${nodePool}`, {
        nodeVersion: str(p.nodeVersion, 'nodeVersion'),
      })) as { name: string };
      await call('POST', `/_sim/operations/${op.name}/complete`);
      return { etag: await poolEtag(cluster, nodePool) };
    },

    // A real blue-green nodePools.update, walked phase by phase on the manual clock until the pool soaks.
    // The soak (3600 s of world time) outlasts the interaction: nothing advances the clock after this.
    async [s.blueGreenSoaking.template](params) {
      const p = paramsOf(params, s.blueGreenSoaking.template, 'nodePool', 'cluster', 'nodeVersion');
      const cluster = str(p.cluster, 'cluster');
      const nodePool = str(p.nodePool, 'nodePool');
      const c = findCluster(cluster);
      const poolPath = `${c.path}/nodePools/${nodePool}`;
      const op = (await call('PUT', poolPath, {
        nodeVersion: str(p.nodeVersion, 'nodeVersion'),
        upgradeSettings: {
          strategy: 'BLUE_GREEN',
          blueGreenSettings: { standardRolloutPolicy: { batchNodeCount: 1 }, nodePoolSoakDuration: '3600s' },
        },
      })) as { name: string };
      const phase = async () =>
        (
          (await call('GET', poolPath)) as {
            updateInfo?: { blueGreenInfo?: { phase?: string } };
          }
        ).updateInfo?.blueGreenInfo?.phase;
      // The phases before the soak share the operation duration (2 s by default): 100 ms steps reach
      // the soak's start without passing it, and a minute of world time bounds a simulator that stalls.
      const STEP_MS = 100;
      for (let elapsed = 0; (await phase()) !== 'NODE_POOL_SOAKING'; elapsed += STEP_MS) {
        if (elapsed >= 60_000) {
          throw new Error(
            `node pool ${nodePool} did not reach NODE_POOL_SOAKING in 60 s of world time (phase ${await phase()})`,
          );
        }
        await call('POST', '/_sim/clock/advance', { by: STEP_MS });
      }
      const opPath = `/v1beta1/projects/${c.projectId}/locations/${c.location}/operations/${op.name}`;
      const running = (await call('GET', opPath)) as { status?: string };
      if (running.status !== 'RUNNING')
        throw new Error(`operation ${op.name} is ${running.status} while the pool soaks, not RUNNING`);
      return { operationId: op.name, etag: await poolEtag(cluster, nodePool) };
    },

    async [s.tokenExpired.template](params) {
      const p = paramsOf(params, s.tokenExpired.template, 'accessToken');
      const token = str(p.accessToken, 'accessToken');
      await updateSettings((auth) => {
        auth.rejectedTokens[token] = 'ACCESS_TOKEN_EXPIRED';
      });
      return undefined;
    },

    async [s.tokenLacksPermission.template](params) {
      const p = paramsOf(params, s.tokenLacksPermission.template, 'accessToken', 'permission');
      const token = str(p.accessToken, 'accessToken');
      const permission = str(p.permission, 'permission');
      if (!/^container\.[a-zA-Z]+\.[a-zA-Z]+$/.test(permission))
        throw new Error(`"${permission}" is not a GKE permission`);
      // Every permission but that one (the simulator's default principal has them all).
      await updateSettings((auth) => {
        auth.principals[token] = { deniedPermissions: [permission] };
      });
      return undefined;
    },
  };
}

/**
 * States of the node count reader's pact: a pool in given zones, a deleted pool. Each returns the name of
 * the pool's first instance group manager as `igm` (its hash is the simulator's own).
 */
function computeStates({ call, seed }: Tools): Record<string, StateHandler> {
  async function seedPool(p: Record<string, unknown>, template: string, zones?: string[], nodeCount = 3) {
    const cluster = str(p.cluster, 'cluster');
    const nodePool = str(p.nodePool, 'nodePool');
    const location = str(p.location, 'location');
    const project = str(p.project, 'project');
    await seed({
      clusters: [
        {
          projectId: project,
          location,
          name: cluster,
          ...(zones ? { locations: zones } : {}),
          nodePools: [{ name: nodePool, initialNodeCount: nodeCount }],
        },
      ],
    });
    const path = `/v1/projects/${project}/locations/${location}/clusters/${cluster}/nodePools/${nodePool}`;
    const pool = (await call('GET', path)) as { instanceGroupUrls?: string[] };
    const igm = pool.instanceGroupUrls?.[0]?.split('/').at(-1);
    if (!igm) throw new Error(`${template}: node pool ${nodePool} has no instance group URL`);
    return { path, igm };
  }
  return {
    async [s.poolInZones.template](params) {
      const t = s.poolInZones.template;
      const p = paramsOf(params, t, 'project', 'location', 'cluster', 'nodePool', 'nodeCount', 'zones');
      const { igm } = await seedPool(p, t, strings(p.zones, 'zones'), int(p.nodeCount, 'nodeCount'));
      return { igm };
    },
    // A real nodePools.delete, its operation completed: the pool and its groups are gone.
    async [s.poolDeleted.template](params) {
      const t = s.poolDeleted.template;
      const p = paramsOf(params, t, 'project', 'location', 'cluster', 'nodePool');
      const { path, igm } = await seedPool(p, t);
      const op = (await call('DELETE', path)) as { name: string };
      await call('POST', `/_sim/operations/${op.name}/complete`);
      return { igm };
    },
  };
}

/** Starts a fresh cluster simulator and its state handlers. */
async function startClusterProvider(): Promise<ProviderSession> {
  const sim = await startClusterSim({ port: 0, clock: { mode: 'manual' } });
  const tools = setupTools(sim);
  return {
    baseUrl: sim.url,
    async reset() {
      await tools.call('POST', '/_sim/reset');
    },
    states: { ...seededStates(tools), ...changedStates(tools), ...computeStates(tools) },
    close: () => sim.close(),
  };
}

/** The providers cluster-sim verifies: the GKE API itself. */
export const clusterSimProviders: ProviderDefinition[] = [
  { name: 'cluster-sim', start: startClusterProvider },
];
