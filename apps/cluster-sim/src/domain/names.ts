import type { ClusterState } from './state';

const HOST = 'https://container.googleapis.com';

/**
 * A new operation's id: `operation-`, the creation time in epoch milliseconds (13 digits, so ids sort by
 * time as GKE's do), and a random uuid from the world's ids.
 */
export function operationId(now: number, ids: { uuid(): string }): string {
  return `operation-${String(now).padStart(13, '0')}-${ids.uuid()}`;
}

/** `us-central1-a` is a zone (three dash-separated parts); `us-central1` a region. */
export function isZone(location: string): boolean {
  return location.split('-').length === 3;
}

/** `zones` for zone-shaped locations, `locations` for regions: the form GKE's links and messages use. */
export function locationSegment(location: string): 'zones' | 'locations' {
  return isZone(location) ? 'zones' : 'locations';
}

/**
 * The project number of a project id: an explicit one from the state, else 12 digits derived from
 * the id (stable across runs, so links are deterministic).
 */
export function projectNumber(state: ClusterState, projectId: string): string {
  if (/^\d+$/.test(projectId)) return projectId;
  const explicit = state.projectNumbers[projectId];
  if (explicit) return explicit;
  let h = 0xcbf29ce484222325n;
  for (const ch of projectId) {
    h ^= BigInt(ch.codePointAt(0) ?? 0);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return String(100000000000n + (h % 900000000000n));
}

/** Maps a project number (as clients find it in links) back to the project id the state uses. */
export function canonicalProject(state: ClusterState, project: string): string {
  if (!/^\d+$/.test(project)) return project;
  for (const record of state.clusters.values()) {
    if (projectNumber(state, record.projectId) === project) return record.projectId;
  }
  for (const op of state.operations.values()) {
    if (projectNumber(state, op.projectId) === project) return op.projectId;
  }
  return project;
}

export type ApiVersion = 'v1' | 'v1beta1';

/** Operation links use the project number; the version segment mirrors the request. */
export function operationSelfLink(
  state: ClusterState,
  version: ApiVersion,
  projectId: string,
  location: string,
  id: string,
) {
  return `${HOST}/${version}/projects/${projectNumber(state, projectId)}/${locationSegment(location)}/${location}/operations/${id}`;
}

export function targetLink(
  state: ClusterState,
  version: ApiVersion,
  projectId: string,
  location: string,
  cluster: string,
  nodePool?: string,
) {
  const base = `${HOST}/${version}/projects/${projectNumber(state, projectId)}/${locationSegment(location)}/${location}/clusters/${cluster}`;
  return nodePool === undefined ? base : `${base}/nodePools/${nodePool}`;
}

/** Resource selfLinks use the project id (as in the recordings). */
export function clusterSelfLink(version: ApiVersion, projectId: string, location: string, cluster: string) {
  return `${HOST}/${version}/projects/${projectId}/${locationSegment(location)}/${location}/clusters/${cluster}`;
}

export function nodePoolSelfLink(
  version: ApiVersion,
  projectId: string,
  location: string,
  cluster: string,
  pool: string,
) {
  return `${clusterSelfLink(version, projectId, location, cluster)}/nodePools/${pool}`;
}

/** The canonical resource name used for fault matching and journal entries. */
export function nodePoolName(project: string, location: string, cluster: string, pool: string): string {
  return `projects/${project}/locations/${location}/clusters/${cluster}/nodePools/${pool}`;
}

export function clusterName(project: string, location: string, cluster: string): string {
  return `projects/${project}/locations/${location}/clusters/${cluster}`;
}
