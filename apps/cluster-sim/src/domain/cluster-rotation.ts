import { createHash } from 'node:crypto';
import type { SetMasterAuthRequestShape } from '@sims/cluster-schema';
import type { ChangeApplier, ChangeOf } from './change-applier';
import { startClusterOperation } from './cluster-operation';
import type { DomainContext } from './context';
import { fail, type Result } from './errors';
import type {
  ClusterRecord,
  ClusterShape,
  ClusterState,
  ControlPlaneCredentials,
  OperationRecord,
} from './state';

/**
 * Control plane IP and credential rotation (startIpRotation, completeIpRotation) and setMasterAuth.
 *
 * A rotation walks as GKE's documentation describes it: the start is one UPDATE_CLUSTER operation that
 * holds the cluster (RECONCILING, every other operation refused as busy) and, when DONE, leaves the control
 * plane serving on a new IP address besides the old one with a new cluster CA (and, for a credential
 * rotation, a new service account signing key beside the old one). The nodes must then be recreated to use
 * the new address: GKE does it within the maintenance windows (node-recreation.ts), or the user sooner
 * with a node pool update to its current version; completeIpRotation is a second
 * UPDATE_CLUSTER operation after which the old address and credentials are gone. GKE's Cluster message
 * has no field for the rotation's state: between start and completion the cluster is RUNNING and shows
 * the new `endpoint` and `masterAuth.clusterCaCertificate`.
 */

/**
 * How long after a rotation's start is DONE GKE's own node recreations may begin: GKE "marks the node
 * pools for recreation, but the actual recreation operation may not begin for some time" (its
 * troubleshooting guide); the hour is the simulator's choice (FIDELITY.md).
 */
const RECREATION_DELAY_MS = 3_600_000;

function credentialsOf(record: ClusterRecord): ControlPlaneCredentials {
  record.credentials ??= { rotations: 0, keyRotations: 0 };
  return record.credentials;
}

/** startIpRotation: refused while a rotation is in progress (its start DONE, its completion not). */
export function startIpRotation(
  state: ClusterState,
  record: ClusterRecord,
  rotateCredentials: boolean,
  ctx: DomainContext,
): Result<OperationRecord> {
  if (record.credentials?.rotation) {
    return fail({
      code: 'FAILED_PRECONDITION',
      message: `Cluster "${record.name}" is already rotating its control plane IP address; complete the rotation before starting another.`,
    });
  }
  // A new public address, drawn as a new cluster's is.
  const endpoint = `34.${ctx.ids.int(0, 256)}.${ctx.ids.int(0, 256)}.${ctx.ids.int(1, 255)}`;
  return startClusterOperation(
    state,
    record,
    'UPDATE_CLUSTER',
    { kind: 'startIpRotation', credentials: rotateCredentials, endpoint },
    ctx,
  );
}

/** completeIpRotation: only during a rotation, and only once every pool's nodes use the new address. */
export function completeIpRotation(
  state: ClusterState,
  record: ClusterRecord,
  ctx: DomainContext,
): Result<OperationRecord> {
  const rotation = record.credentials?.rotation;
  if (!rotation) {
    return fail({
      code: 'FAILED_PRECONDITION',
      message: `Cluster "${record.name}" has no IP rotation in progress; start one with startIpRotation first.`,
    });
  }
  const waiting = rotation.poolsToRecreate.find((pool) => record.pools.has(pool));
  if (waiting !== undefined) {
    return fail({
      code: 'FAILED_PRECONDITION',
      // GKE's text (gcloud prints it as `ResponseError: code=400, message=Node pool "…" requires recreation.`).
      message: `Node pool "${waiting}" requires recreation.`,
    });
  }
  return startClusterOperation(state, record, 'UPDATE_CLUSTER', { kind: 'completeIpRotation' }, ctx);
}

/** A base64 PEM of the shape of `masterAuth.clusterCaCertificate` for the cluster's n-th CA. */
function rotatedCaCertificate(id: string, rotation: number): string {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < 810; i++) {
    blocks.push(createHash('sha256').update(`ca:${id}:rotation ${rotation}#${i}`).digest());
  }
  const body = Buffer.concat(blocks).subarray(0, 810).toString('base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${(body.match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
  return Buffer.from(pem).toString('base64');
}

/** Sets the public endpoint everywhere the Cluster shows it. */
function setEndpoint(cluster: ClusterShape, endpoint: string): void {
  cluster.endpoint = endpoint;
  if (cluster.privateClusterConfig) cluster.privateClusterConfig.publicEndpoint = endpoint;
  const ip = cluster.controlPlaneEndpointsConfig?.ipEndpointsConfig;
  if (ip) ip.publicEndpoint = endpoint;
}

/** startIpRotation is DONE: the new address and CA, the pools to recreate. */
export const START_IP_ROTATION_CHANGE: ChangeApplier<ChangeOf<'startIpRotation'>> = {
  apply({ op, record, change }) {
    const rotations = credentialsOf(record);
    rotations.rotations += 1;
    if (change.credentials) rotations.keyRotations += 1;
    rotations.rotation = {
      credentials: change.credentials,
      poolsToRecreate: [...record.pools.keys()],
      recreateFrom: (op.endTime ?? op.startTime) + RECREATION_DELAY_MS,
    };
    setEndpoint(record.cluster, change.endpoint);
    record.cluster.masterAuth = {
      ...record.cluster.masterAuth,
      clusterCaCertificate: rotatedCaCertificate(record.cluster.id ?? '', rotations.rotations),
    };
  },
};

/** completeIpRotation is DONE: the previous address and credentials are gone. */
export const COMPLETE_IP_ROTATION_CHANGE: ChangeApplier<ChangeOf<'completeIpRotation'>> = {
  apply({ record }) {
    if (record.credentials) delete record.credentials.rotation;
  },
};

/** A pool's nodes were recreated (a rollout DONE): they use the rotation's new address. */
export function markNodesRecreated(record: ClusterRecord, pool: string): void {
  const rotation = record.credentials?.rotation;
  if (rotation) rotation.poolsToRecreate = rotation.poolsToRecreate.filter((p) => p !== pool);
}

/** GKE's answer to a create with basic authentication since 1.19, without its create-only sentence. */
const BASIC_AUTH_REMOVED =
  'Basic authentication was removed for GKE cluster versions >= 1.19. Instructions for choosing an alternative authentication method can be found at: https://cloud.google.com/kubernetes-engine/docs/how-to/api-server-authentication.';

/**
 * setMasterAuth: basic authentication is gone from GKE (1.19 and later, every version the simulator
 * serves), so SET_PASSWORD, GENERATE_PASSWORD and a non-empty SET_USERNAME are refused; SET_USERNAME with
 * an empty username ("basic authentication is disabled for the cluster") is the UPDATE_CLUSTER operation
 * the proto names for master auth, which leaves the cluster without username and password.
 */
export function setMasterAuth(
  state: ClusterState,
  record: ClusterRecord,
  body: SetMasterAuthRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  const action = body.action ?? 'UNKNOWN';
  if (action === 'UNKNOWN') {
    return fail({
      code: 'INVALID_REQUEST',
      message:
        'Invalid value for field "action": UNKNOWN. Must be one of SET_PASSWORD, GENERATE_PASSWORD, SET_USERNAME.',
      field: 'action',
    });
  }
  const update = body.update ?? {};
  if (update.clientCertificateConfig !== undefined) {
    return fail({
      code: 'NOT_SIMULATED',
      what: 'SetMasterAuthRequest field "update.clientCertificateConfig"',
    });
  }
  if (action !== 'SET_USERNAME' || (update.username ?? '') !== '' || (update.password ?? '') !== '') {
    return fail({ code: 'INVALID_REQUEST', message: BASIC_AUTH_REMOVED, field: 'update' });
  }
  const { username: _u, password: _p, ...masterAuth } = record.cluster.masterAuth ?? {};
  return startClusterOperation(
    state,
    record,
    'UPDATE_CLUSTER',
    { kind: 'setCluster', fields: { masterAuth } },
    ctx,
  );
}
