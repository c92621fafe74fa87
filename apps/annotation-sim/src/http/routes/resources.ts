import type { RouteRow } from '../route-table';
import { backupImportRoutes } from './backup-import';
import { datasetImportRoutes } from './dataset-import';
import { exportRoutes } from './exports';
import { commentRoutes, issueRoutes } from './issues';
import { jobRoutes } from './jobs';
import { labelRoutes } from './labels';
import { projectRoutes } from './projects';
import { taskRoutes } from './tasks';

/** The annotation resources' routes, registered in this order (fault rules and the journal see their names). */
export const resourceRoutes: readonly RouteRow[] = [
  ...projectRoutes,
  ...taskRoutes,
  ...labelRoutes,
  ...jobRoutes,
  ...issueRoutes,
  ...commentRoutes,
  ...exportRoutes,
  ...backupImportRoutes,
  ...datasetImportRoutes,
];
