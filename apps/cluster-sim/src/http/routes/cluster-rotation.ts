import {
  ClusterUpgradeInfo,
  CompleteIPRotationRequest,
  ListUsableSubnetworksResponse,
  SetMasterAuthRequest,
  StartIPRotationRequest,
  type StartIPRotationRequestShape,
} from '@sims/cluster-schema';
import { clusterUpgradeInfo, usableSubnetworks } from '../../domain/cluster-reads';
import { completeIpRotation, setMasterAuth, startIpRotation } from '../../domain/cluster-rotation';
import { ok, type Result } from '../../domain/errors';
import { armNodeRecreation } from '../../domain/node-recreation';
import type { HttpError } from '../errors';
import { type Args, clusterOf, type RouteAction } from '../route-support';
import { setter } from './cluster-verb';

/**
 * IP and credential rotation, setMasterAuth, fetchClusterUpgradeInfo and
 * aggregated.usableSubnetworks.list, by the RPC they serve; reached through the discovery table in every
 * form it has, as the cluster setters are.
 */

function handleUpgradeInfo(a: Args<unknown>): Result<unknown, HttpError> {
  const record = clusterOf(a);
  return record.ok ? ok(clusterUpgradeInfo(a.state, record.value, a.now)) : record;
}

function handleUsableSubnetworks(a: Args<unknown>): Result<unknown, HttpError> {
  const q = a.c.req.query();
  return usableSubnetworks(a.state, a.project, {
    filter: q.filter,
    pageSize: q.pageSize ?? q.page_size,
    pageToken: q.pageToken ?? q.page_token,
  });
}

const startRotation = setter('StartIPRotation', 'startIpRotation', StartIPRotationRequest, (s, r, b, ctx) =>
  startIpRotation(s, r, b.rotateCredentials === true, ctx),
);

/** startIpRotation's row: once its operation is on the clock, so are GKE's node recreations after it. */
function handleStartRotation(a: Args<StartIPRotationRequestShape>): Result<unknown, HttpError> {
  const answer = startRotation.handle(a);
  const record = clusterOf(a);
  if (answer.ok && record.ok) armNodeRecreation(a.world, record.value);
  return answer;
}

export const rotationSpecs: readonly RouteAction<never>[] = [
  { ...startRotation, handle: handleStartRotation },
  setter('CompleteIPRotation', 'completeIpRotation', CompleteIPRotationRequest, (s, r, _b, ctx) =>
    completeIpRotation(s, r, ctx),
  ),
  setter('SetMasterAuth', 'setMasterAuth', SetMasterAuthRequest, setMasterAuth),
  {
    operation: 'clusters.fetchClusterUpgradeInfo',
    rpc: 'FetchClusterUpgradeInfo',
    permission: 'container.clusters.get',
    level: 'cluster',
    readOnly: true,
    // "API request version that initiates this operation": accepted, no documented effect.
    query: new Set(['version']),
    response: ClusterUpgradeInfo,
    handle: handleUpgradeInfo,
  },
  {
    operation: 'aggregated.usableSubnetworks.list',
    rpc: 'ListUsableSubnetworks',
    permission: 'container.clusters.list',
    level: 'location',
    readOnly: true,
    query: new Set(['filter', 'pageSize', 'page_size', 'pageToken', 'page_token']),
    response: ListUsableSubnetworksResponse,
    handle: handleUsableSubnetworks,
  },
] as RouteAction<never>[];
