import { fail, ok, type Result } from '../domain/errors';
import type { ClusterState } from '../domain/state';
import type { ComputeError } from './errors';
import {
  baseInstanceName,
  computeTimestamp,
  instanceName,
  renderManager,
  resourceId,
  zoneUrl,
} from './igm-view';
import { type ListQuery, pageOf } from './list-params';
import { findManagedGroup, type ManagedGroup, managedGroups } from './managed-groups';

/**
 * The Compute methods GKE's clients read, over the managed groups derived from the container state:
 * instanceGroupManagers get/list/aggregatedList/listManagedInstances, instanceGroups get/listInstances,
 * instances get/list. Each takes the project id (a number already mapped to it) and returns a Result.
 */

export interface ComputeTarget {
  state: ClusterState;
  project: string;
  zone: string;
  name: string;
  query: ListQuery;
}

const igmPath = (t: ComputeTarget) => `projects/${t.project}/zones/${t.zone}/instanceGroupManagers`;
const igPath = (t: ComputeTarget) => `projects/${t.project}/zones/${t.zone}/instanceGroups`;

function group(t: ComputeTarget, path: string): Result<ManagedGroup, ComputeError> {
  const g = findManagedGroup(t.state, t.project, t.zone, t.name);
  return g ? ok(g) : fail({ code: 'COMPUTE_NOT_FOUND', resource: `${path}/${t.name}` });
}

export function getManager(t: ComputeTarget): Result<unknown, ComputeError> {
  const g = group(t, igmPath(t));
  return g.ok ? ok(renderManager(g.value)) : g;
}

export function listManagers(t: ComputeTarget): Result<unknown, ComputeError> {
  const page = pageOf(
    managedGroups(t.state, t.project, t.zone),
    (g) => g.name,
    t.query,
    'compute.instanceGroupManagers.list',
  );
  if (!page.ok) return page;
  return ok({
    kind: 'compute#instanceGroupManagerList',
    id: igmPath(t),
    ...(page.value.items.length > 0 ? { items: page.value.items.map(renderManager) } : {}),
    ...(page.value.nextPageToken ? { nextPageToken: page.value.nextPageToken } : {}),
    selfLink: `${zoneUrl(t.project, t.zone)}/instanceGroupManagers`,
  });
}

/** aggregatedList: the managers by scope (`zones/{zone}`), only the zones that have some. */
export function aggregatedManagers(t: ComputeTarget): Result<unknown, ComputeError> {
  const page = pageOf(
    managedGroups(t.state, t.project),
    (g) => g.name,
    t.query,
    'compute.instanceGroupManagers.aggregatedList',
  );
  if (!page.ok) return page;
  const items: Record<string, { instanceGroupManagers: unknown[] }> = {};
  for (const g of page.value.items) {
    const scope = `zones/${g.zone}`;
    items[scope] ??= { instanceGroupManagers: [] };
    items[scope].instanceGroupManagers.push(renderManager(g));
  }
  return ok({
    kind: 'compute#instanceGroupManagerAggregatedList',
    id: `projects/${t.project}/aggregated/instanceGroupManagers`,
    items,
    ...(page.value.nextPageToken ? { nextPageToken: page.value.nextPageToken } : {}),
    selfLink: `https://www.googleapis.com/compute/v1/projects/${t.project}/aggregated/instanceGroupManagers`,
  });
}

/** The group's instances: its target size, and the surge nodes being created beside it. */
function instancesOf(g: ManagedGroup) {
  const zone = zoneUrl(g.project, g.zone);
  const template = `https://www.googleapis.com/compute/v1/projects/${g.project}/global/instanceTemplates/${baseInstanceName(g.name)}`;
  const count = g.targetSize + g.creating;
  return Array.from({ length: count }, (_, i) => {
    const name = instanceName(g, i);
    const url = `${zone}/instances/${name}`;
    const surge = i >= g.targetSize;
    const recreating = !surge && i < g.recreating;
    return {
      name,
      url,
      id: resourceId(url),
      status: surge ? 'STAGING' : 'RUNNING',
      currentAction: surge ? 'CREATING' : recreating ? 'RECREATING' : 'NONE',
      template,
      group: g,
    };
  });
}

type Instance = ReturnType<typeof instancesOf>[number];

export function listManagedInstances(t: ComputeTarget): Result<unknown, ComputeError> {
  const g = group(t, igmPath(t));
  if (!g.ok) return g;
  const page = pageOf(
    instancesOf(g.value),
    (i) => i.name,
    t.query,
    'compute.instanceGroupManagers.listManagedInstances',
  );
  if (!page.ok) return page;
  return ok({
    managedInstances: page.value.items.map((i) => ({
      instance: i.url,
      id: i.id,
      instanceStatus: i.status,
      currentAction: i.currentAction,
      version: { instanceTemplate: i.template },
      name: i.name,
    })),
    ...(page.value.nextPageToken ? { nextPageToken: page.value.nextPageToken } : {}),
  });
}

export function getInstanceGroup(t: ComputeTarget): Result<unknown, ComputeError> {
  const found = group(t, igPath(t));
  if (!found.ok) return found;
  const g = found.value;
  const zone = zoneUrl(g.project, g.zone);
  const selfLink = `${zone}/instanceGroups/${g.name}`;
  return ok({
    kind: 'compute#instanceGroup',
    id: resourceId(selfLink),
    creationTimestamp: computeTimestamp(g.cluster.cluster.createTime),
    name: g.name,
    description:
      "This instance group is controlled by Instance Group Manager '" +
      g.name +
      "'. To modify instances in this group, use the Instance Group Manager API: https://cloud.google.com/compute/docs/reference/latest/instanceGroupManagers",
    network: `https://www.googleapis.com/compute/v1/projects/${g.project}/global/networks/${g.cluster.cluster.network ?? 'default'}`,
    fingerprint: '42WmSpB8rSM=',
    zone,
    selfLink,
    size: g.targetSize + g.creating,
    subnetwork: `https://www.googleapis.com/compute/v1/${g.pool.networkConfig?.subnetwork ?? `projects/${g.project}/regions/${g.zone.replace(/-[a-z]$/, '')}/subnetworks/default`}`,
  });
}

/** instanceGroups.listInstances: `instanceState` ALL (default) or RUNNING. */
export function listGroupInstances(
  t: ComputeTarget,
  instanceState: string | undefined,
): Result<unknown, ComputeError> {
  const found = group(t, igPath(t));
  if (!found.ok) return found;
  if (instanceState !== undefined && instanceState !== 'ALL' && instanceState !== 'RUNNING') {
    return fail({
      code: 'COMPUTE_INVALID',
      message: `Invalid value for field 'instanceState': '${instanceState}'. Must be one of [ALL, RUNNING]`,
    });
  }
  const all = instancesOf(found.value).filter((i) => instanceState !== 'RUNNING' || i.status === 'RUNNING');
  const page = pageOf(all, (i) => i.name, t.query, 'compute.instanceGroups.listInstances');
  if (!page.ok) return page;
  const selfLink = `${zoneUrl(t.project, t.zone)}/instanceGroups/${t.name}`;
  return ok({
    kind: 'compute#instanceGroupsListInstances',
    id: `${igPath(t)}/${t.name}/listInstances`,
    ...(page.value.items.length > 0
      ? { items: page.value.items.map((i) => ({ instance: i.url, status: i.status })) }
      : {}),
    ...(page.value.nextPageToken ? { nextPageToken: page.value.nextPageToken } : {}),
    selfLink: `${selfLink}/listInstances`,
  });
}

function renderInstance(i: Instance) {
  const g = i.group;
  const zone = zoneUrl(g.project, g.zone);
  const machineType = g.pool.config?.machineType ?? 'e2-medium';
  return {
    kind: 'compute#instance',
    id: i.id,
    creationTimestamp: computeTimestamp(g.cluster.cluster.createTime),
    name: i.name,
    machineType: `${zone}/machineTypes/${machineType}`,
    status: i.status,
    zone,
    metadata: {
      kind: 'compute#metadata',
      items: [
        { key: 'instance-template', value: i.template.replace('https://www.googleapis.com/compute/v1/', '') },
        { key: 'created-by', value: `projects/${g.project}/zones/${g.zone}/instanceGroupManagers/${g.name}` },
        { key: 'cluster-name', value: g.cluster.name },
      ],
    },
    labels: {
      'goog-gke-node': '',
      'goog-k8s-cluster-name': g.cluster.name,
      'goog-k8s-node-pool-name': g.pool.name ?? '',
    },
    selfLink: i.url,
  };
}

function instancesInZone(t: ComputeTarget): Instance[] {
  return managedGroups(t.state, t.project, t.zone)
    .flatMap(instancesOf)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function getInstance(t: ComputeTarget): Result<unknown, ComputeError> {
  const found = instancesInZone(t).find((i) => i.name === t.name);
  return found
    ? ok(renderInstance(found))
    : fail({
        code: 'COMPUTE_NOT_FOUND',
        resource: `projects/${t.project}/zones/${t.zone}/instances/${t.name}`,
      });
}

export function listInstances(t: ComputeTarget): Result<unknown, ComputeError> {
  const page = pageOf(instancesInZone(t), (i) => i.name, t.query, 'compute.instances.list');
  if (!page.ok) return page;
  return ok({
    kind: 'compute#instanceList',
    id: `projects/${t.project}/zones/${t.zone}/instances`,
    ...(page.value.items.length > 0 ? { items: page.value.items.map(renderInstance) } : {}),
    ...(page.value.nextPageToken ? { nextPageToken: page.value.nextPageToken } : {}),
    selfLink: `${zoneUrl(t.project, t.zone)}/instances`,
  });
}
