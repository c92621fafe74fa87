import { fail, ok, type Result } from './errors';
import { canonicalProject } from './names';
import type { ClusterRecord, ClusterState } from './state';
import { compareVersions, minorOf } from './versions';

/**
 * Reads that answer from what the world already holds: a cluster's upgrade information
 * (fetchClusterUpgradeInfo) and the subnetworks a project's clusters use
 * (aggregated.usableSubnetworks.list).
 */

type ExclusionScope = 'NO_UPGRADES' | 'NO_MINOR_UPGRADES' | 'NO_MINOR_OR_NODE_UPGRADES';

/** The scope of the maintenance exclusions in force at `now`, if any (NO_UPGRADES over the minor-only scopes). */
function activeExclusion(record: ClusterRecord, now: number): ExclusionScope | undefined {
  const exclusions = record.cluster.maintenancePolicy?.window?.maintenanceExclusions ?? {};
  let scope: ExclusionScope | undefined;
  for (const window of Object.values(exclusions)) {
    const start = window.startTime ? Date.parse(window.startTime) : Number.NEGATIVE_INFINITY;
    const end = window.endTime ? Date.parse(window.endTime) : Number.POSITIVE_INFINITY;
    if (!(start <= now && now < end)) continue;
    // An exclusion without options is NO_UPGRADES, the scope's default.
    const given = window.maintenanceExclusionOptions?.scope;
    const s: ExclusionScope =
      given === 'NO_MINOR_UPGRADES' || given === 'NO_MINOR_OR_NODE_UPGRADES' ? given : 'NO_UPGRADES';
    if (s === 'NO_UPGRADES' || scope === undefined) scope = s;
  }
  return scope;
}

/**
 * fetchClusterUpgradeInfo: the master's patch and minor targets (the highest valid master versions of its
 * minor and of the next one), the auto-upgrade status (a master is always auto-upgraded; a maintenance
 * exclusion in force pauses it, with its reason), and its upgrades.
 */
export function clusterUpgradeInfo(state: ClusterState, record: ClusterRecord, now: number) {
  const current = record.cluster.currentMasterVersion ?? '';
  const newer = (state.serverConfig.validMasterVersions ?? []).filter((v) => compareVersions(v, current) > 0);
  const highest = (list: string[]) => [...list].sort(compareVersions).at(-1);
  const patch = highest(newer.filter((v) => minorOf(v) === minorOf(current)));
  const minor = highest(newer.filter((v) => minorOf(v) === minorOf(current) + 1));
  const exclusion = activeExclusion(record, now);
  const upgrades = record.masterUpgrades ?? [];
  return {
    ...(minor ? { minorTargetVersion: minor } : {}),
    ...(patch ? { patchTargetVersion: patch } : {}),
    autoUpgradeStatus: [
      exclusion === undefined
        ? 'ACTIVE'
        : exclusion === 'NO_UPGRADES'
          ? 'UPGRADE_PAUSED'
          : 'MINOR_UPGRADE_PAUSED',
    ],
    ...(exclusion
      ? {
          pausedReason: [
            exclusion === 'NO_UPGRADES'
              ? 'MAINTENANCE_EXCLUSION_NO_UPGRADES'
              : 'MAINTENANCE_EXCLUSION_NO_MINOR_UPGRADES',
          ],
        }
      : {}),
    ...(upgrades.length > 0 ? { upgradeDetails: upgrades.map((u) => ({ ...u })) } : {}),
  };
}

interface UsableSubnetwork {
  subnetwork: string;
  network: string;
  secondaryIpRanges: { rangeName: string; ipCidrRange: string; status: string }[];
}

/**
 * aggregated.usableSubnetworks.list: the subnetworks the project's clusters use, each with the secondary
 * ranges the Cluster resources name (the pod range GKE made, `IN_USE_MANAGED_POD`, one the user made,
 * `IN_USE_SHAREABLE_POD`, a services range, `IN_USE_SERVICE`). `filter` takes GKE's one documented form,
 * `networkProjectId=[PROJECTID]`; `pageSize` (0 to 500, default 500) and `pageToken` page the sorted list.
 */
export function usableSubnetworks(
  state: ClusterState,
  project: string,
  query: { filter?: string; pageSize?: string; pageToken?: string },
): Result<{ subnetworks?: UsableSubnetwork[]; nextPageToken?: string }> {
  const projectId = canonicalProject(state, project);
  let networkProject: string | undefined;
  if (query.filter) {
    const m = /^\s*networkProjectId\s*=\s*"?([a-z0-9-]+)"?\s*$/.exec(query.filter);
    if (!m) {
      return fail({
        code: 'INVALID_REQUEST',
        message: `Invalid filter "${query.filter}": only networkProjectId=[PROJECTID] is supported.`,
        field: 'filter',
      });
    }
    networkProject = m[1];
  }
  const byName = new Map<string, UsableSubnetwork>();
  for (const record of state.clusters.values()) {
    if (record.projectId !== projectId) continue;
    const subnetwork = record.cluster.networkConfig?.subnetwork;
    const network = record.cluster.networkConfig?.network;
    if (!subnetwork || !network) continue;
    if (networkProject !== undefined && !subnetwork.startsWith(`projects/${networkProject}/`)) continue;
    const entry = byName.get(subnetwork) ?? { subnetwork, network, secondaryIpRanges: [] };
    byName.set(subnetwork, entry);
    const policy = record.cluster.ipAllocationPolicy ?? {};
    const add = (rangeName: string | undefined, cidr: string | undefined, status: string) => {
      if (!rangeName || entry.secondaryIpRanges.some((r) => r.rangeName === rangeName)) return;
      entry.secondaryIpRanges.push({ rangeName, ipCidrRange: cidr ?? '', status });
    };
    const pods = policy.clusterSecondaryRangeName;
    add(
      pods,
      policy.clusterIpv4CidrBlock,
      pods?.startsWith(`gke-${record.name}-pods-`) ? 'IN_USE_MANAGED_POD' : 'IN_USE_SHAREABLE_POD',
    );
    add(policy.servicesSecondaryRangeName, policy.servicesIpv4CidrBlock, 'IN_USE_SERVICE');
  }
  const all = [...byName.values()].sort((a, b) => a.subnetwork.localeCompare(b.subnetwork));
  for (const s of all) s.secondaryIpRanges.sort((a, b) => a.rangeName.localeCompare(b.rangeName));
  // "Acceptable values are 0 to 500, inclusive. (Default: 500)"
  const size = query.pageSize ? Number(query.pageSize) : 500;
  if (!Number.isInteger(size) || size < 0 || size > 500) {
    return fail({
      code: 'INVALID_REQUEST',
      message: `Invalid page_size ${query.pageSize}: must be from 0 to 500.`,
      field: 'page_size',
    });
  }
  const start = query.pageToken
    ? Number.parseInt(Buffer.from(query.pageToken, 'base64url').toString(), 10)
    : 0;
  if (!Number.isInteger(start) || start < 0 || start > all.length) {
    return fail({ code: 'INVALID_REQUEST', message: 'Invalid page token.', field: 'page_token' });
  }
  const end = Math.min(all.length, start + (size === 0 ? 500 : size));
  const page = all.slice(start, end);
  return ok({
    ...(page.length > 0 ? { subnetworks: page } : {}),
    ...(end < all.length ? { nextPageToken: Buffer.from(String(end)).toString('base64url') } : {}),
  });
}
