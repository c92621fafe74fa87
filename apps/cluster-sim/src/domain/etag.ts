import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal content always hashes the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The etag of a resource: a checksum of its content in the form GKE's etags have (a version-4 UUID,
 * recorded un-normalized: node pools "a375ee87-924a-40b1-a52c-49b1c893962a", clusters
 * "a81d4d29-c927-49f5-8498-11b992534b85"). The same content keeps its etag; any change gives a new one.
 * `generation` counts writes that leave no visible trace (a concurrent writer injected by a fault), so
 * they too change the etag.
 */
export function computeEtag(content: unknown, generation: number): string {
  const hex = createHash('sha256').update(canonicalJson(content)).update(`#${generation}`).digest('hex');
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * 8 lowercase hex digits of a SHA-256: GKE's `labelFingerprint` and `maintenancePolicy.resourceVersion`
 * have this form (recorded "7d2504da"; "e3b0c442" for an empty maintenance policy, which is the
 * SHA-256 of nothing).
 */
export function fingerprint(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/**
 * GKE's `labelFingerprint` of a cluster without labels: "a9dc16a7" in every public `gcloud container
 * clusters describe` of an unlabelled cluster, GKE 1.7 to 1.3x (next to the empty maintenance policy's
 * "e3b0c442"). How GKE derives it from labels is not known.
 */
const EMPTY_LABEL_FINGERPRINT = 'a9dc16a7';

/**
 * The fingerprint of a label map: GKE's value for no labels, else 8 hex digits of a SHA-256 of the
 * sorted pairs (the simulator's own: it changes when the labels do, as GKE's does).
 */
export function labelFingerprint(labels: Record<string, string> | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return EMPTY_LABEL_FINGERPRINT;
  return fingerprint(entries.map(([k, v]) => `${k}=${v}`).join(','));
}

/** `canonicalJson` for other modules (fingerprints of messages). */
export function canonical(value: unknown): string {
  return canonicalJson(value);
}
