import {
  type About,
  CVAT_SCHEMA_VERSION,
  type DatasetFormat,
  type DatasetFormats,
  type Plugins,
} from '@sims/annotation-schema';
import { isAdmin } from '../domain/access';
import { denied } from '../domain/errors';
import { EXPORT_FORMATS } from '../domain/exports/dataset';
import { IMPORTERS } from '../domain/imports/formats/index';
import type { ApiRequest } from './api';
import { cvatJson } from './respond';
import { type RouteRow, refused } from './route-table';

/**
 * CVAT's `ServerViewSet` (`/api/server/*`): what a client reads before anything else. CVAT's SDK asks
 * `about` when a client is made (before it logs in), so `about` takes no credentials
 * (`permission_classes=[]`; the schema's `security` does not say so); the others are IsAuthenticated
 * with the IAM scope `view` (anyone) or, for the share, `list:content` (privilege user or admin).
 */

/** The text `about` answers in CVAT 2.73 (`cvat/apps/engine/views.py`). */
const DESCRIPTION =
  'CVAT is completely re-designed and re-implemented version of Video Annotation Tool from Irvine, ' +
  'California tool. It is free, online, interactive video and image annotation tool for computer ' +
  'vision. It is being used by our team to annotate million of objects with different properties. ' +
  'Many UI and UX decisions are based on feedbacks from professional data annotation team.';

/**
 * An exporter this simulator writes, as CVAT's format registry lists it: its display name is
 * `<name> <version>`, every one a ZIP archive of 2D data, enabled.
 */
const exporter = (displayName: string): DatasetFormat => ({
  name: displayName,
  ext: 'ZIP',
  version: displayName.slice(displayName.lastIndexOf(' ') + 1),
  enabled: true,
  dimension: '2d',
});

/**
 * The formats the simulator really writes (src/domain/exports/dataset.ts) and reads (its importers,
 * src/domain/imports/formats/index.ts). CVAT lists about thirty of each; listing the others here would
 * tell a client it may ask for them, and the simulator answers any other format as unknown to it.
 */
const FORMATS: DatasetFormats = {
  importers: IMPORTERS.map((i) => ({
    name: i.format,
    ext: i.ext,
    version: i.format.slice(i.format.lastIndexOf(' ') + 1),
    enabled: i.enabled,
    dimension: i.dimension,
  })),
  exporters: EXPORT_FORMATS.map(exporter),
};

/** A plain CVAT: no analytics component (Grafana) and no serverless functions (nuclio). */
const PLUGINS: Plugins = { ANALYTICS: false, MODELS: false };

/** Anyone may ask; credentials that are given are still checked, as DRF authenticates every request. */
function handleAbout(r: ApiRequest): Response {
  const auth = r.optionalAuth();
  if (!auth.ok) return refused(r, auth);
  const about: About = {
    name: 'Computer Vision Annotation Tool',
    description: DESCRIPTION,
    version: CVAT_SCHEMA_VERSION,
    // `build_absolute_uri(static(LOGO_FILENAME))`: CVAT's static files, which the simulator does not serve.
    logo_url: `${r.state.baseUrl}/static/logo.svg`,
    subtitle: 'Open Data Annotation Platform',
  };
  return cvatJson(r.c, about);
}

/**
 * The mounted share (`SHARE_ROOT`), empty: its root lists nothing, and any other directory is CVAT's
 * 400 (a bare JSON string naming it without its leading `/`). Only privilege user or admin may list it.
 */
function handleShare(r: ApiRequest): Response {
  const user = r.user();
  if (!(isAdmin(user) || user.privilege === 'user')) return refused(r, { error: denied() });
  const directory = (r.query('directory') ?? '/').replace(/^\//, '');
  // `Path(SHARE_ROOT) / directory` is the root itself for '' and '.' segments alone; an absolute rest
  // (a second leading '/') leaves the share.
  const isRoot = !directory.startsWith('/') && directory.split('/').every((s) => s === '' || s === '.');
  if (!isRoot) return cvatJson(r.c, `${directory} is an invalid directory`, 400);
  return cvatJson(r.c, []);
}

/** The `/api/server/*` rows: about, the annotation formats, the plugins and the share. */
export const serverInfoRoutes: readonly RouteRow[] = [
  {
    method: 'get',
    path: '/api/server/about',
    operation: 'server.retrieve_about',
    anonymous: true,
    handle: handleAbout,
  },
  {
    method: 'get',
    path: '/api/server/annotation/formats',
    operation: 'server.retrieve_annotation_formats',
    handle: (r) => cvatJson(r.c, FORMATS),
  },
  {
    method: 'get',
    path: '/api/server/plugins',
    operation: 'server.retrieve_plugins',
    handle: (r) => cvatJson(r.c, PLUGINS),
  },
  { method: 'get', path: '/api/server/share', operation: 'server.list_share', handle: handleShare },
];
