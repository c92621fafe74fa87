import type { FieldUpdate } from './cluster-field-update';
import { withoutZeros } from './cluster-update-network';
import { isPlainObject, type Loose } from './defaults';
import { fail, ok, type Result } from './errors';
import type { ClusterRecord } from './state';

/** The cluster's workload pool, or '' without Workload Identity. */
function workloadPoolOf(record: ClusterRecord): string {
  const config = (record.cluster as Loose).workloadIdentityConfig;
  return isPlainObject(config) && typeof config.workloadPool === 'string' ? config.workloadPool : '';
}

/**
 * Workload Identity's pool is "always PROJECT_ID.svc.id.goog" (GKE's Workload Identity guide): any other
 * pool is refused; an empty one turns Workload Identity off, refused while mesh certificates, which
 * require it (`MeshCertificates` in the proto), are on. The texts are the simulator's (FIDELITY.md).
 */
function workloadIdentityCheck(value: unknown, record: ClusterRecord): Result<void> {
  const pool = isPlainObject(value) && typeof value.workloadPool === 'string' ? value.workloadPool : '';
  const expected = `${record.projectId}.svc.id.goog`;
  if (pool !== '' && pool !== expected) {
    return fail({
      code: 'INVALID_REQUEST',
      message: `Workload pool "${pool}" is invalid: the workload pool of a cluster in project "${record.projectId}" is "${expected}".`,
      field: 'update.desired_workload_identity_config.workload_pool',
    });
  }
  const mesh = (record.cluster as Loose).meshCertificates;
  if (pool === '' && isPlainObject(mesh) && mesh.enableCertificates === true) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'Workload Identity cannot be disabled while mesh certificates are enabled.',
      field: 'update.desired_workload_identity_config.workload_pool',
    });
  }
  return ok(undefined);
}

/** "Requires Workload Identity (workload_pool must be non-empty)" (`MeshCertificates` in the proto). */
function meshCertificatesCheck(value: unknown, record: ClusterRecord): Result<void> {
  if (!isPlainObject(value) || value.enableCertificates !== true || workloadPoolOf(record) !== '')
    return ok(undefined);
  return fail({
    code: 'INVALID_REQUEST',
    message: 'Mesh certificates require Workload Identity: the cluster has no workload pool.',
    field: 'update.desired_mesh_certificates.enable_certificates',
  });
}

/**
 * Google Groups for RBAC: the group-of-groups "must be named gke-security-groups" (GKE's guide); GKE's
 * text for another name, as Terraform's acceptance test recorded it (hashicorp/terraform-provider-google
 * #10860, 2022): `Security group name must start with gke-security-groups but got: {name}`.
 */
function authenticatorGroupsCheck(value: unknown): Result<void> {
  if (!isPlainObject(value) || value.enabled !== true) return ok(undefined);
  const group = typeof value.securityGroup === 'string' ? value.securityGroup : '';
  if (group.startsWith('gke-security-groups')) return ok(undefined);
  return fail({
    code: 'INVALID_REQUEST',
    message: `Security group name must start with gke-security-groups but got: ${group}`,
    field: 'update.desired_authenticator_groups_config.security_group',
  });
}

/**
 * The ClusterUpdate fields for the cluster's identity, security and cost features: each replaces the
 * Cluster field of the same message (its proto3 zero values not kept), with an UPDATE_CLUSTER on the
 * cluster like the other field updates.
 */
export const SECURITY_FIELD_UPDATES: Readonly<Record<string, FieldUpdate>> = {
  desiredCostManagementConfig: { path: 'costManagementConfig', apply: 'replace', stored: withoutZeros() },
  // Both fields are `optional` enums (kept as sent, UNSPECIFIED included); one sent alone leaves the
  // other as it was (gcloud's `--security-posture` and `--workload-vulnerability-scanning` are separate).
  desiredSecurityPostureConfig: { path: 'securityPostureConfig', apply: 'perMessage' },
  desiredWorkloadIdentityConfig: {
    path: 'workloadIdentityConfig',
    apply: 'replace',
    check: workloadIdentityCheck,
    stored: withoutZeros(),
  },
  desiredAuthenticatorGroupsConfig: {
    path: 'authenticatorGroupsConfig',
    apply: 'replace',
    check: authenticatorGroupsCheck,
    stored: withoutZeros(),
  },
  desiredClusterTelemetry: { path: 'clusterTelemetry', apply: 'replace', stored: withoutZeros(['type']) },
  // `enableCertificates` is a BoolValue: false is kept.
  desiredMeshCertificates: { path: 'meshCertificates', apply: 'replace', check: meshCertificatesCheck },
  desiredIdentityServiceConfig: { path: 'identityServiceConfig', apply: 'replace', stored: withoutZeros() },
};
