import * as z from 'zod';

/**
 * What CVAT's `ServerViewSet` answers (`/api/server/*`), in the field order of its serializers (CVAT
 * 2.73's OpenAPI components of the same names, with their `maxLength`s).
 */

/** `About` (`GET /api/server/about`): the server's name, version, description, subtitle and logo. */
export const About = z.object({
  name: z.string().max(128),
  description: z.string().max(2048),
  version: z.string().max(64),
  logo_url: z.string(),
  subtitle: z.string().max(1024),
});
export type About = z.infer<typeof About>;

/**
 * `DatasetFormat`: one importer or exporter. `name` is the display name a request's `format` takes
 * (`COCO 1.0`), `ext` the archive type (`ZIP`), `dimension` `2d` or `3d`; a disabled format is listed
 * with `enabled: false` and refused when asked for.
 */
export const DatasetFormat = z.object({
  name: z.string().max(64),
  ext: z.string().max(64),
  version: z.string().max(64),
  enabled: z.boolean(),
  dimension: z.string().max(2),
});
export type DatasetFormat = z.infer<typeof DatasetFormat>;

/** `DatasetFormats` (`GET /api/server/annotation/formats`). */
export const DatasetFormats = z.object({
  importers: z.array(DatasetFormat),
  exporters: z.array(DatasetFormat),
});
export type DatasetFormats = z.infer<typeof DatasetFormats>;

/** `Plugins` (`GET /api/server/plugins`): the optional components the server runs. */
export const Plugins = z.object({ ANALYTICS: z.boolean(), MODELS: z.boolean() });
export type Plugins = z.infer<typeof Plugins>;

/** `FileInfo`: one entry of the mounted share (`GET /api/server/share`). */
export const FileInfo = z.object({
  name: z.string().max(1024),
  type: z.enum(['REG', 'DIR']),
  mime_type: z.string().max(255),
});
export type FileInfo = z.infer<typeof FileInfo>;
