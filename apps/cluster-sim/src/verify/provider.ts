/**
 * cluster-sim as a Pact provider: a fresh in-process simulator on the manual clock, and a handler for
 * every provider state of contracts/STATES.md (cluster-sim section). Handlers set the world up through
 * the simulator's own control plane (`/_sim/seed`, `/_sim/server-config`, `/_sim/settings`,
 * `/_sim/operations/{id}/complete|fail`, `/_sim/clock/advance`, `/_sim/state`) and its API, so what the
 * consumer sees is what the simulator's domain produced. Development-time only: never imported by
 * `src/main.ts`, so pact stays out of the Docker image.
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
import { startClusterSim } from '../app';

/** The bearer token the handlers use for API calls that set a state up. */
const SETUP_TOKEN = 'pact-provider-state-setup';

/** Every permission the simulator checks (GKE's names), for "a principal with all but one". */
const CONTAINER_PERMISSIONS = [
  'container.clusters.create',
  'container.clusters.delete',
  'container.clusters.get',
  'container.clusters.getCredentials',
  'container.clusters.list',
  'container.clusters.update',
  'container.operations.cancel',
  'container.operations.get',
  'container.operations.list',
];

/** google.rpc.Code numbers (as pact params carry them) to the names the control plane takes. */
const RPC_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

interface SeedPool {
  name: string;
  version: string;
  initialNodeCount: number;
}
interface SeedCluster {
  projectId: string;
  location: string;
  name: string;
  currentMasterVersion: string;
  nodePools: SeedPool[];
}

/** Starts a fresh cluster simulator and its state handlers. */
export async function startClusterProvider(): Promise<ProviderSession> {
  const sim = await startClusterSim({ port: 0, clock: { mode: 'manual' } });

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

  // Clusters are seeded together with their first pools (one `/_sim/seed`, all or nothing), so the
  // cluster state only notes its cluster; the next state that needs the world as it is, or the
  // interaction's request, seeds what is pending.
  let pending: SeedCluster[] = [];
  async function flush(): Promise<{ name: string; etag: string }[]> {
    if (pending.length === 0) return [];
    const clusters = pending;
    pending = [];
    const result = (await call('POST', '/_sim/seed', { clusters })) as {
      seeded: { nodePools: { name: string; etag: string }[] };
    };
    return result.seeded.nodePools;
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

  /**
   * Starts an UPGRADE_NODES operation on the pool through nodePools.update (to the master version),
   * lets it reach RUNNING on the clock, and renames it to `operationId` through a state snapshot.
   */
  async function startUpgrade(operationId: string, cluster: string, nodePool: string, nodeVersion = '-') {
    await flush();
    const c = findCluster(cluster);
    const op = (await call('PUT', `${c.path}/nodePools/${nodePool}`, { nodeVersion })) as { name: string };
    const record = world().state.operations.get(op.name);
    if (!record) throw new Error(`operation ${op.name} is not in the world`);
    if (record.plan.mode === 'time' && record.status === 'PENDING') {
      await call('POST', '/_sim/clock/advance', {
        by: Math.max(0, record.plan.runningAt - world().clock.now()),
      });
    }
    if (operationId !== op.name) {
      const snapshot = (await call('GET', '/_sim/state')) as {
        state: { operations: { id: string }[] };
      };
      if (snapshot.state.operations.some((o) => o.id === operationId))
        throw new Error(`operation ${operationId} exists already`);
      for (const o of snapshot.state.operations) if (o.id === op.name) o.id = operationId;
      await call('PUT', '/_sim/state', snapshot);
    }
    const status = world().state.operations.get(operationId)?.status;
    if (status !== 'RUNNING') throw new Error(`operation ${operationId} is ${status}, not RUNNING`);
    return operationId;
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

  const s = clusterStates;
  const states: Record<string, StateHandler> = {
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
      const masterVersion = str(p.masterVersion, 'masterVersion');
      const validNodeVersions = strings(p.validNodeVersions, 'validNodeVersions');
      await flush();
      await call('PUT', '/_sim/server-config', {
        validNodeVersions,
        validMasterVersions: [masterVersion],
        defaultClusterVersion: masterVersion,
      });
      pending.push({
        projectId: str(p.project, 'project'),
        location: str(p.location, 'location'),
        name: str(p.cluster, 'cluster'),
        currentMasterVersion: masterVersion,
        nodePools: [],
      });
      return undefined;
    },

    // The etag is the simulator's checksum of the pool (reference §3.1: server-computed), so it cannot
    // be the one in the params; the handler returns it as `etag` for requests that send the current
    // etag (`fromProviderState('${etag}', …)` in the consumer test).
    async [s.nodePool.template](params) {
      const p = paramsOf(params, s.nodePool.template, 'nodePool', 'cluster', 'version', 'etag');
      const cluster = str(p.cluster, 'cluster');
      const nodePool = str(p.nodePool, 'nodePool');
      const version = str(p.version, 'version');
      const target = pending.find((c) => c.name === cluster);
      if (target) {
        target.nodePools.push({ name: nodePool, version, initialNodeCount: 3 });
        const seeded = await flush();
        const pool = seeded.find((np) => np.name.endsWith(`/clusters/${cluster}/nodePools/${nodePool}`));
        if (!pool) throw new Error(`seeding did not create node pool ${nodePool}`);
        return { etag: pool.etag };
      }
      // The cluster exists already: create the pool through the API and finish its operation.
      const c = findCluster(cluster);
      const op = (await call('POST', `${c.path}/nodePools`, {
        nodePool: { name: nodePool, version, initialNodeCount: 3 },
      })) as { name: string };
      await call('POST', `/_sim/operations/${op.name}/complete`);
      return { etag: await poolEtag(cluster, nodePool) };
    },

    async [s.operationRunning.template](params) {
      const p = paramsOf(params, s.operationRunning.template, 'operationId', 'nodePool', 'cluster');
      const cluster = str(p.cluster, 'cluster');
      const nodePool = str(p.nodePool, 'nodePool');
      await startUpgrade(str(p.operationId, 'operationId'), cluster, nodePool);
      return { etag: await poolEtag(cluster, nodePool) };
    },

    async [s.operationDone.template](params) {
      const p = paramsOf(params, s.operationDone.template, 'operationId', 'nodePool', 'cluster');
      const cluster = str(p.cluster, 'cluster');
      const nodePool = str(p.nodePool, 'nodePool');
      const id = await startUpgrade(str(p.operationId, 'operationId'), cluster, nodePool);
      await call('POST', `/_sim/operations/${id}/complete`);
      return { etag: await poolEtag(cluster, nodePool) };
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
      const code = int(p.errorCode, 'errorCode');
      const status = RPC_NAMES[code];
      if (!status || code === 0) throw new Error(`errorCode ${code} is not a google.rpc.Code error`);
      const cluster = str(p.cluster, 'cluster');
      const nodePool = str(p.nodePool, 'nodePool');
      const id = await startUpgrade(str(p.operationId, 'operationId'), cluster, nodePool);
      await call('POST', `/_sim/operations/${id}/fail`, {
        status,
        message: str(p.errorMessage, 'errorMessage'),
      });
      return { etag: await poolEtag(cluster, nodePool) };
    },

    async [s.nodePoolUpdated.template](params) {
      const p = paramsOf(params, s.nodePoolUpdated.template, 'nodePool', 'cluster', 'nodeVersion');
      const cluster = str(p.cluster, 'cluster');
      const nodePool = str(p.nodePool, 'nodePool');
      await flush();
      const c = findCluster(cluster);
      const op = (await call('PUT', `${c.path}/nodePools/${nodePool}`, {
        nodeVersion: str(p.nodeVersion, 'nodeVersion'),
      })) as { name: string };
      await call('POST', `/_sim/operations/${op.name}/complete`);
      return { etag: await poolEtag(cluster, nodePool) };
    },

    async [s.tokenExpired.template](params) {
      const p = paramsOf(params, s.tokenExpired.template, 'accessToken');
      const token = str(p.accessToken, 'accessToken');
      await flush();
      await updateSettings((auth) => {
        auth.rejectedTokens[token] = 'ACCESS_TOKEN_EXPIRED';
      });
      return undefined;
    },

    async [s.tokenLacksPermission.template](params) {
      const p = paramsOf(params, s.tokenLacksPermission.template, 'accessToken', 'permission');
      const token = str(p.accessToken, 'accessToken');
      const permission = str(p.permission, 'permission');
      if (!CONTAINER_PERMISSIONS.includes(permission)) throw new Error(`unknown permission ${permission}`);
      await flush();
      await updateSettings((auth) => {
        auth.principals[token] = {
          scopes: ['https://www.googleapis.com/auth/cloud-platform'],
          permissions: CONTAINER_PERMISSIONS.filter((x) => x !== permission),
        };
      });
      return undefined;
    },
  };

  return {
    baseUrl: sim.url,
    async reset() {
      pending = [];
      await call('POST', '/_sim/reset');
    },
    async beforeRequest() {
      await flush();
    },
    states,
    close: () => sim.close(),
  };
}

/** The providers cluster-sim verifies: the GKE API itself. */
export const clusterSimProviders: ProviderDefinition[] = [
  { name: 'cluster-sim', start: startClusterProvider },
];
