import {
  Cluster,
  CreateClusterRequest,
  type CreateClusterRequestShape,
  ListClustersResponse,
  Operation,
  UpdateClusterRequest,
  type UpdateClusterRequestShape,
} from '@sims/cluster-schema';
import { updateCluster } from '../../domain/cluster-update';
import { createCluster, deleteCluster, renderCluster } from '../../domain/clusters';
import { ok, type Result } from '../../domain/errors';
import type { HttpError } from '../errors';
import { type Args, checkIds, clusterOf, domainContext, type RouteRow, started } from '../route-support';

const CLUSTER_PATH = { loc: '/clusters/:cluster', zone: '/clusters/:cluster' };
const CLUSTERS_PATH = { loc: '/clusters', zone: '/clusters' };

/** The deprecated ids a body may carry beside the path's, by request. */
const CREATE_IDS = ['projectId', 'zone', 'parent'] as const;
const UPDATE_IDS = ['projectId', 'zone', 'clusterId'] as const;

function handleGetCluster(a: Args<unknown>): Result<unknown, HttpError> {
  const record = clusterOf(a);
  return record.ok ? ok(renderCluster(record.value, a.version)) : record;
}

function handleListClusters(a: Args<unknown>): Result<unknown, HttpError> {
  const clusters = [...a.state.clusters.values()]
    .filter((r) => r.projectId === a.projectId && (a.location === '-' || r.location === a.location))
    .map((r) => renderCluster(r, a.version));
  return ok(clusters.length > 0 ? { clusters } : {});
}

function handleCreateCluster(a: Args<CreateClusterRequestShape>): Result<unknown, HttpError> {
  const ids = checkIds(a, a.body, CREATE_IDS);
  if (!ids.ok) return ids;
  return started(a, createCluster(a.state, a.projectId, a.location, a.body, domainContext(a)));
}

function handleUpdateCluster(a: Args<UpdateClusterRequestShape>): Result<unknown, HttpError> {
  const ids = checkIds(a, a.body, UPDATE_IDS);
  if (!ids.ok) return ids;
  const record = clusterOf(a);
  if (!record.ok) return record;
  return started(a, updateCluster(a.state, record.value, a.body.update, domainContext(a)));
}

function handleDeleteCluster(a: Args<unknown>): Result<unknown, HttpError> {
  const record = clusterOf(a);
  if (!record.ok) return record;
  return started(a, deleteCluster(a.state, record.value, domainContext(a)));
}

export const clusterRoutes: readonly RouteRow[] = [
  {
    method: 'get',
    path: CLUSTER_PATH,
    operation: 'clusters.get',
    response: Cluster,
    rpc: 'GetCluster',
    permission: 'container.clusters.get',
    level: 'cluster',
    readOnly: true,
    handle: handleGetCluster,
  },
  {
    method: 'get',
    path: CLUSTERS_PATH,
    operation: 'clusters.list',
    response: ListClustersResponse,
    rpc: 'ListClusters',
    permission: 'container.clusters.list',
    level: 'location',
    readOnly: true,
    handle: handleListClusters,
  },
  {
    method: 'post',
    path: CLUSTERS_PATH,
    operation: 'clusters.create',
    response: Operation,
    rpc: 'CreateCluster',
    permission: 'container.clusters.create',
    level: 'location',
    readOnly: false,
    body: CreateClusterRequest,
    handle: handleCreateCluster,
  },
  {
    method: 'put',
    path: CLUSTER_PATH,
    operation: 'clusters.update',
    response: Operation,
    rpc: 'UpdateCluster',
    permission: 'container.clusters.update',
    level: 'cluster',
    readOnly: false,
    body: UpdateClusterRequest,
    handle: handleUpdateCluster,
  },
  {
    method: 'delete',
    path: CLUSTER_PATH,
    operation: 'clusters.delete',
    response: Operation,
    rpc: 'DeleteCluster',
    permission: 'container.clusters.delete',
    level: 'cluster',
    readOnly: false,
    handle: handleDeleteCluster,
  },
];
