import type { GoogleApiError } from '../../node-pool-upgrader/src/google-error';
import {
  type ApiResult,
  type ManagerView,
  managerRefOf,
  type NodeCountApi,
  type PoolRef,
} from './node-count-api';

/** What Terraform's provider stores of a node pool from Compute. */
export interface NodeCountRead {
  /** The managers' `targetSize` summed and divided by their number (per zone), 0 without any. */
  readonly nodeCount: number;
  /** The pool's `instanceGroupUrls` whose manager was found. */
  readonly instanceGroupUrls: readonly string[];
  /** Each found manager's `instanceGroup`. */
  readonly managedInstanceGroupUrls: readonly string[];
}

/**
 * How the manager of each URL is found: `get` as the provider up to 7.16 (`instanceGroupManagers.get`,
 * a 404 skips the URL), `list` as 7.17 and later (the zone's `instanceGroupManagers.list`, every page,
 * matched on `selfLink`; an error fails the read).
 */
export type ReadMode = 'get' | 'list';

export interface NodeCountReader {
  /** The pool's node count and group URLs; the container API's error (a 404 for a deleted pool) as is. */
  read(ref: PoolRef): Promise<ApiResult<NodeCountRead>>;
}

/** A bound on pages per zone, so a provider that never stops paging cannot hold the reader. */
const MAX_PAGES = 100;

/**
 * Terraform's node pool read of `node_count`, `instance_group_urls` and `managed_instance_group_urls`
 * (`flattenNodePool` of the Google provider), over `api`.
 *
 * @example
 * const reader = createNodeCountReader(api, 'list');
 * const read = await reader.read({ project: 'p', location: 'us-central1', cluster: 'c', nodePool: 'np' });
 */
export function createNodeCountReader(api: NodeCountApi, mode: ReadMode): NodeCountReader {
  async function byGet(url: string): Promise<ApiResult<ManagerView | undefined>> {
    const ref = managerRefOf(url);
    if (!ref) return { ok: true, value: undefined };
    const got = await api.getManager(ref);
    if (!got.ok && got.error.httpStatus === 404) return { ok: true, value: undefined };
    return got;
  }

  async function byList(url: string): Promise<ApiResult<ManagerView | undefined>> {
    const ref = managerRefOf(url);
    if (!ref) return { ok: true, value: undefined };
    const key = `/projects/${ref.project}/zones/${ref.zone}/instanceGroupManagers/${ref.name}`;
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await api.listManagers({ project: ref.project, zone: ref.zone }, pageToken);
      if (!listed.ok) return listed;
      const found = listed.value.items.find((m) => m.selfLink.endsWith(key));
      if (found) return { ok: true, value: found };
      pageToken = listed.value.nextPageToken;
      if (!pageToken) break;
    }
    return { ok: true, value: undefined };
  }

  return {
    async read(ref) {
      const urls = await api.getInstanceGroupUrls(ref);
      if (!urls.ok) return urls;
      let size = 0;
      const instanceGroupUrls: string[] = [];
      const managedInstanceGroupUrls: string[] = [];
      for (const url of urls.value) {
        const manager = mode === 'get' ? await byGet(url) : await byList(url);
        if (!manager.ok) return manager as { ok: false; error: GoogleApiError };
        if (!manager.value) continue;
        size += manager.value.targetSize;
        instanceGroupUrls.push(url);
        managedInstanceGroupUrls.push(manager.value.instanceGroup);
      }
      const nodeCount = instanceGroupUrls.length > 0 ? Math.trunc(size / instanceGroupUrls.length) : 0;
      return { ok: true, value: { nodeCount, instanceGroupUrls, managedInstanceGroupUrls } };
    },
  };
}
