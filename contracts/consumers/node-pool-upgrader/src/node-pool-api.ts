import { container, type container_v1beta1, auth as googleAuth } from '@googleapis/container';
import { type GoogleApiError, parseGoogleError } from './google-error';

/** Which node pool: the parts of `projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{nodePool}`. */
export interface NodePoolRef {
  readonly project: string;
  readonly location: string;
  readonly cluster: string;
  readonly nodePool: string;
}

/** The fields of a NodePool the upgrader uses. */
export interface NodePoolView {
  readonly name: string;
  readonly version: string;
  readonly etag: string;
  /** Set while a blue-green upgrade runs (or stopped midway): the pool's `updateInfo.blueGreenInfo`. */
  readonly blueGreen?: BlueGreenView;
}

/** The fields of `updateInfo.blueGreenInfo` the upgrader uses (reference gke-nodepools-v1beta1.md §3.1). */
export interface BlueGreenView {
  /** `CREATING_GREEN_POOL`, `CORDONING_BLUE_POOL`, …, `NODE_POOL_SOAKING`, `DELETING_BLUE_POOL`, `ROLLBACK_STARTED`. */
  readonly phase: string;
  /** The version the green pool runs. */
  readonly greenPoolVersion?: string;
}

/** The blue-green settings of `NodePool.UpgradeSettings` the upgrader sends (reference §1.4). */
export interface BlueGreenUpgradeSettings {
  readonly strategy: 'BLUE_GREEN';
  readonly blueGreenSettings: {
    readonly standardRolloutPolicy: { readonly batchNodeCount: number };
    /** A protobuf Duration in JSON form, e.g. `3600s`. */
    readonly nodePoolSoakDuration: string;
  };
}

/** The fields of a GKE Operation the upgrader uses. */
export interface OperationView {
  /** The bare id (`operation-1731137433803-…`), not a resource path. */
  readonly name: string;
  readonly status: string;
  readonly detail?: string;
  readonly endTime?: string;
  /** A blue-green upgrade's current phase: the `UPGRADE_STAGE` metric of `progress` (`NODE_POOL_SOAKING`, …). */
  readonly upgradeStage?: string;
  /** Set when a DONE operation failed; `code` is a gRPC code number, not an HTTP status. */
  readonly error?: { readonly code: number; readonly message: string };
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: GoogleApiError };

/** The calls the upgrader makes; the contract tests drive them against the pact mock server. */
export interface NodePoolApi {
  getNodePool(ref: NodePoolRef): Promise<ApiResult<NodePoolView>>;
  /** `upgradeSettings` is sent only when given (the pool's own strategy applies otherwise). */
  updateNodePool(
    ref: NodePoolRef,
    update: { nodeVersion: string; etag: string; upgradeSettings?: BlueGreenUpgradeSettings },
  ): Promise<ApiResult<OperationView>>;
  /** `POST {pool}:setSize` body `{nodeCount}` (nodes per zone): a `SET_NODE_POOL_SIZE` operation. */
  setNodePoolSize(ref: NodePoolRef, nodeCount: number): Promise<ApiResult<OperationView>>;
  /** `POST {pool}:completeUpgrade` body `{}`: ends a blue-green upgrade's node pool soak now; answers `{}`. */
  completeNodePoolUpgrade(ref: NodePoolRef): Promise<ApiResult<undefined>>;
  getOperation(ref: {
    project: string;
    location: string;
    operation: string;
  }): Promise<ApiResult<OperationView>>;
}

export interface NodePoolApiOptions {
  /** Where the container API lives, e.g. `http://127.0.0.1:8085` (the real one is `https://container.googleapis.com`). */
  readonly baseUrl: string;
  /** An OAuth 2 access token; it goes out as `Authorization: Bearer <token>`. */
  readonly accessToken: string;
}

function nodePoolName(ref: NodePoolRef): string {
  return `projects/${ref.project}/locations/${ref.location}/clusters/${ref.cluster}/nodePools/${ref.nodePool}`;
}

/** Reads the fields the upgrader uses from a GKE NodePool. Exported for unit tests. */
export function toNodePoolView(pool: container_v1beta1.Schema$NodePool): NodePoolView {
  const view: { -readonly [K in keyof NodePoolView]: NodePoolView[K] } = {
    name: pool.name ?? '',
    version: pool.version ?? '',
    etag: pool.etag ?? '',
  };
  const info = pool.updateInfo?.blueGreenInfo;
  if (info?.phase) {
    view.blueGreen = info.greenPoolVersion
      ? { phase: info.phase, greenPoolVersion: info.greenPoolVersion }
      : { phase: info.phase };
  }
  return view;
}

/** Reads the fields the upgrader uses from a GKE Operation. Exported for unit tests. */
export function toOperationView(op: container_v1beta1.Schema$Operation): OperationView {
  const view: { -readonly [K in keyof OperationView]: OperationView[K] } = {
    name: op.name ?? '',
    status: op.status ?? 'STATUS_UNSPECIFIED',
  };
  if (op.detail) view.detail = op.detail;
  if (op.endTime) view.endTime = op.endTime;
  const stage = op.progress?.metrics?.find((m) => m.name === 'UPGRADE_STAGE')?.stringValue;
  if (stage) view.upgradeStage = stage;
  // Current GKE sets both `error` and the deprecated `statusMessage` on a failed operation; older
  // operations carried only `statusMessage` (hashicorp/terraform#15601), which is why Terraform's
  // waiter still reads it. Either one means the operation failed.
  if (op.error || op.statusMessage) {
    view.error = {
      code: op.error?.code ?? 2, // 2 = UNKNOWN when only statusMessage says what went wrong
      message: op.error?.message || op.statusMessage || '',
    };
  }
  return view;
}

async function call<T>(request: () => Promise<{ data: T }>): Promise<ApiResult<T>> {
  try {
    return { ok: true, value: (await request()).data };
  } catch (e) {
    // gaxios throws a GaxiosError carrying the HTTP response; anything without one (a refused
    // connection, a bug) is not an API answer and keeps propagating.
    const response = (e as { response?: { status?: unknown; data?: unknown } }).response;
    if (typeof response?.status !== 'number') throw e;
    return { ok: false, error: parseGoogleError(response.status, response.data) };
  }
}

function map<T, U>(result: ApiResult<T>, f: (value: T) => U): ApiResult<U> {
  return result.ok ? { ok: true, value: f(result.value) } : result;
}

/**
 * The upgrader's client: the official discovery client `@googleapis/container` (v1beta1), pointed at
 * `baseUrl`, authenticated by a google-auth-library OAuth2Client that holds a fixed access token (no refresh token, so a
 * 401 is not retried). gaxios' own retries (GET/PUT on 408/429/5xx) stay on, as in production.
 *
 * @example
 * const api = createNodePoolApi({ baseUrl: 'http://127.0.0.1:8085', accessToken: 'ya29.token' });
 * const pool = await api.getNodePool({ project: 'p', location: 'us-central1-a', cluster: 'c', nodePool: 'np' });
 */
export function createNodePoolApi(options: NodePoolApiOptions): NodePoolApi {
  // google-auth-library's OAuth2Client, taken from the copy the client was built against
  // (googleapis-common pins its own google-auth-library; a second copy's class fails the type check).
  const auth = new googleAuth.OAuth2();
  auth.setCredentials({ access_token: options.accessToken });
  const rootUrl = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const gke = container({ version: 'v1beta1', rootUrl, auth });
  const nodePools = gke.projects.locations.clusters.nodePools;

  return {
    async getNodePool(ref) {
      return map(await call(() => nodePools.get({ name: nodePoolName(ref) })), toNodePoolView);
    },
    async updateNodePool(ref, update) {
      const requestBody: container_v1beta1.Schema$UpdateNodePoolRequest = {
        nodeVersion: update.nodeVersion,
        etag: update.etag,
      };
      if (update.upgradeSettings) requestBody.upgradeSettings = update.upgradeSettings;
      const result = await call(() => nodePools.update({ name: nodePoolName(ref), requestBody }));
      return map(result, toOperationView);
    },
    async setNodePoolSize(ref, nodeCount) {
      const result = await call(() =>
        nodePools.setSize({ name: nodePoolName(ref), requestBody: { nodeCount } }),
      );
      return map(result, toOperationView);
    },
    async completeNodePoolUpgrade(ref) {
      // google.protobuf.Empty comes back as `{}`: nothing to read.
      const result = await call(() =>
        nodePools.completeUpgrade({ name: nodePoolName(ref), requestBody: {} }),
      );
      return map(result, () => undefined);
    },
    async getOperation(ref) {
      // GKE returns the bare operation id; the poll URL is rebuilt from the location the caller used
      // (reference §2.4).
      const name = `projects/${ref.project}/locations/${ref.location}/operations/${ref.operation}`;
      return map(await call(() => gke.projects.locations.operations.get({ name })), toOperationView);
    },
  };
}
