import type { Result } from './errors';
import type { ClusterRecord } from './state';

// The shape of one ClusterUpdate field's rule, apart from the table (cluster-update-fields.ts) that
// gathers the rules of every cluster-update-*.ts file: those files need the type, the table needs them.

/**
 * How a ClusterUpdate field lands on the cluster: `replace` puts the message (or value) sent in place
 * of the cluster's; `perMessage` replaces each sub-message sent and keeps the ones not sent (gcloud
 * sends one addon, one monitoring or logging part at a time, e.g. `--update-addons`,
 * `--enable-managed-prometheus`, and the others stay as they were).
 */
export interface FieldUpdate {
  /**
   * Where GKE stores the value: a top-level field of the Cluster or a dot path into one
   * (`networkConfig.enableL4ilbSubsetting`); several when GKE keeps it in more than one place.
   */
  path: string | readonly string[];
  apply: 'replace' | 'perMessage';
  /** GKE's checks of the value against the cluster, before any operation starts. */
  check?: (value: unknown, record: ClusterRecord) => Result<void>;
  /** The value as stored, when it differs from the one sent; `undefined` unsets a nested field. */
  stored?: (value: unknown) => unknown;
  /**
   * When GKE keeps different values in different places (a value and its reversed mirror): each path
   * written, among `path`, with its value, from the value sent and the cluster; `stored` is then unused,
   * a path left out is not written and `undefined` unsets a nested field.
   */
  perPath?: (value: unknown, record: ClusterRecord) => Readonly<Record<string, unknown>>;
}
