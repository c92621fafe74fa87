import type { RouteDeps } from '../api';
import type { Kernel } from '../deps';
import { type RouteSpec, registerRoutes } from '../route-table';
import { exportRoutes } from './exports';
import { commentRoutes, issueRoutes } from './issues';
import { jobRoutes } from './jobs';
import { projectRoutes } from './projects';
import { taskRoutes } from './tasks';

/** The annotation resources' routes, registered in this order (fault rules and the journal see their names). */
const RESOURCE_ROUTES: readonly RouteSpec[] = [
  ...projectRoutes,
  ...taskRoutes,
  ...jobRoutes,
  ...issueRoutes,
  ...commentRoutes,
  ...exportRoutes,
];

/** Registers projects, tasks, jobs, issues, comments and their exports on the kernel's app. */
export function registerResourceRoutes(kernel: Kernel, deps: RouteDeps): void {
  registerRoutes(kernel, deps, RESOURCE_ROUTES);
}
