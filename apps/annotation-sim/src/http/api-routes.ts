import type { AppDeps } from './deps';
import { annotationEventRoutes } from './events/annotation-edge';
import type { RouteRow } from './route-table';
import { accessTokenRoutes } from './routes/access-tokens';
import { annotationRoutes } from './routes/annotations';
import { authAndUserRoutes } from './routes/auth-users';
import { organizationTableRoutes } from './routes/organizations';
import { requestRoutes } from './routes/requests';
import { resourceRoutes } from './routes/resources';
import { taskMediaRoutes } from './routes/task-media';
import { webhookRoutes } from './routes/webhooks';
import { serverInfoRoutes } from './server-info';

/**
 * Every route of the emulated API, in registration order (Hono tries matching routes in that order):
 * what `registerRoutes` registers, what the OpenAPI document lists (`routeEntries`), and what the
 * conformance test calls. A new resource family adds its table here.
 */
export function apiRoutes(deps: AppDeps): readonly RouteRow[] {
  return [
    ...authAndUserRoutes(deps),
    ...accessTokenRoutes,
    ...organizationTableRoutes,
    ...resourceRoutes,
    ...annotationRoutes,
    ...taskMediaRoutes,
    ...webhookRoutes(deps),
    ...annotationEventRoutes(),
    ...requestRoutes,
    ...serverInfoRoutes,
  ];
}
