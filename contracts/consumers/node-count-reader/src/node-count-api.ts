import { container, auth as googleAuth } from '@googleapis/container';
import { type GoogleApiError, parseGoogleError } from '../../node-pool-upgrader/src/google-error';

/** Which node pool: the parts of `projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{nodePool}`. */
export interface PoolRef {
  readonly project: string;
  readonly location: string;
  readonly cluster: string;
  readonly nodePool: string;
}

/** The fields of a Compute InstanceGroupManager the reader uses. */
export interface ManagerView {
  readonly selfLink: string;
  readonly targetSize: number;
  /** The managed instance group's URL: Terraform's `managed_instance_group_urls`. */
  readonly instanceGroup: string;
}

/** One page of a zone's managers. */
export interface ManagerPage {
  readonly items: readonly ManagerView[];
  readonly nextPageToken?: string;
}

/** A manager URL's parts (`…/projects/{project}/zones/{zone}/instanceGroupManagers/{name}`). */
export interface ManagerRef {
  readonly project: string;
  readonly zone: string;
  readonly name: string;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: GoogleApiError };

/** The calls the reader makes: the container API's node pool, Compute's managers. */
export interface NodeCountApi {
  /** `container/v1 nodePools.get`: the pool's `instanceGroupUrls`. */
  getInstanceGroupUrls(ref: PoolRef): Promise<ApiResult<readonly string[]>>;
  /** `compute/v1 instanceGroupManagers.get`. */
  getManager(ref: ManagerRef): Promise<ApiResult<ManagerView>>;
  /** `compute/v1 instanceGroupManagers.list`: one page of the zone's managers. */
  listManagers(zone: { project: string; zone: string }, pageToken?: string): Promise<ApiResult<ManagerPage>>;
}

export interface NodeCountApiOptions {
  /** Where the container API lives (the real one is `https://container.googleapis.com`). */
  readonly containerUrl: string;
  /** Where Compute Engine lives (the real one is `https://compute.googleapis.com`), `/compute/v1` below it. */
  readonly computeUrl: string;
  /** An OAuth 2 access token, sent as `Authorization: Bearer <token>`. */
  readonly accessToken: string;
}

const IGM_URL = /\/projects\/([^/]+)\/zones\/([^/]+)\/instanceGroupManagers\/([^/?#]+)$/;

/** A manager URL as the container API hands it out, split; undefined for anything else. */
export function managerRefOf(url: string): ManagerRef | undefined {
  const m = IGM_URL.exec(url);
  return m ? { project: m[1] as string, zone: m[2] as string, name: m[3] as string } : undefined;
}

function toManager(igm: Record<string, unknown>): ManagerView {
  return {
    selfLink: String(igm.selfLink ?? ''),
    targetSize: typeof igm.targetSize === 'number' ? igm.targetSize : 0,
    instanceGroup: String(igm.instanceGroup ?? ''),
  };
}

/**
 * The reader's client: the official discovery client `@googleapis/container` (v1, as Terraform's GA
 * provider) for the pool, and Compute's REST paths for the managers (Terraform's provider reads them
 * with Google's Go library, which sends the same requests), both with a fixed access token.
 *
 * @example
 * const api = createNodeCountApi({ containerUrl: url, computeUrl: url, accessToken: 'ya29.token' });
 * const urls = await api.getInstanceGroupUrls({ project: 'p', location: 'us-central1', cluster: 'c', nodePool: 'np' });
 */
export function createNodeCountApi(options: NodeCountApiOptions): NodeCountApi {
  const auth = new googleAuth.OAuth2();
  auth.setCredentials({ access_token: options.accessToken });
  const rootUrl = options.containerUrl.endsWith('/') ? options.containerUrl : `${options.containerUrl}/`;
  const nodePools = container({ version: 'v1', rootUrl, auth }).projects.locations.clusters.nodePools;
  const compute = `${options.computeUrl.replace(/\/$/, '')}/compute/v1`;

  async function computeGet(path: string): Promise<ApiResult<Record<string, unknown>>> {
    const res = await fetch(`${compute}${path}`, {
      headers: { Authorization: `Bearer ${options.accessToken}`, Accept: 'application/json' },
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON (a proxy's page): the error keeps the text.
    }
    if (!res.ok) return { ok: false, error: parseGoogleError(res.status, body) };
    return { ok: true, value: body as Record<string, unknown> };
  }

  return {
    async getInstanceGroupUrls(ref) {
      const name = `projects/${ref.project}/locations/${ref.location}/clusters/${ref.cluster}/nodePools/${ref.nodePool}`;
      try {
        return { ok: true, value: (await nodePools.get({ name })).data.instanceGroupUrls ?? [] };
      } catch (e) {
        const response = (e as { response?: { status?: unknown; data?: unknown } }).response;
        if (typeof response?.status !== 'number') throw e;
        return { ok: false, error: parseGoogleError(response.status, response.data) };
      }
    },
    async getManager(ref) {
      const got = await computeGet(
        `/projects/${ref.project}/zones/${ref.zone}/instanceGroupManagers/${ref.name}`,
      );
      return got.ok ? { ok: true, value: toManager(got.value) } : got;
    },
    async listManagers(zone, pageToken) {
      const query = pageToken ? `?pageToken=${encodeURIComponent(pageToken)}` : '';
      const got = await computeGet(
        `/projects/${zone.project}/zones/${zone.zone}/instanceGroupManagers${query}`,
      );
      if (!got.ok) return got;
      const items = Array.isArray(got.value.items) ? (got.value.items as Record<string, unknown>[]) : [];
      const next = got.value.nextPageToken;
      return {
        ok: true,
        value: {
          items: items.map(toManager),
          ...(typeof next === 'string' && next ? { nextPageToken: next } : {}),
        },
      };
    },
  };
}
