import { ServerConfig } from '@sims/cluster-schema';
import { ok, type Result } from '../../domain/errors';
import { omitDefaults } from '../../domain/node-pools';
import type { HttpError } from '../errors';
import type { Args, RouteRow } from '../route-support';

function handleGetServerConfig(a: Args<unknown>): Result<unknown, HttpError> {
  return ok(omitDefaults(a.state.serverConfig));
}

export const serverConfigRoutes: readonly RouteRow[] = [
  {
    method: 'get',
    // The legacy zonal path is spelled in lower case.
    path: { loc: '/serverConfig', zone: '/serverconfig' },
    operation: 'projects.locations.getServerConfig',
    response: ServerConfig,
    rpc: 'GetServerConfig',
    permission: 'container.clusters.list',
    level: 'location',
    readOnly: true,
    handle: handleGetServerConfig,
  },
];
