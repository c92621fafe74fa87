import { isIPv6 } from 'node:net';
import type { FieldUpdate } from './cluster-field-update';
import { withoutZeros } from './cluster-update-network';
import { isPlainObject, type Loose } from './defaults';
import { fail, ok, type Result } from './errors';
import type { ClusterRecord } from './state';

/** A message field of the cluster, or `{}`. */
export function messageAt(record: ClusterRecord, ...keys: string[]): Loose {
  let node: unknown = record.cluster;
  for (const key of keys) node = isPlainObject(node) ? node[key] : undefined;
  return isPlainObject(node) ? node : {};
}

/**
 * Whether the control plane is reached on its private endpoint only: `privateClusterConfig.enablePrivateEndpoint`,
 * or its newer form `controlPlaneEndpointsConfig.ipEndpointsConfig.enablePublicEndpoint` false ("the value of
 * enable_public_endpoint is reversed", the proto).
 */
export function hasPrivateEndpoint(record: ClusterRecord): boolean {
  return (
    messageAt(record, 'privateClusterConfig').enablePrivateEndpoint === true ||
    messageAt(record, 'controlPlaneEndpointsConfig', 'ipEndpointsConfig').enablePublicEndpoint === false
  );
}

/** Whether the cluster's nodes are private (a private cluster, for the authorized networks' limit). */
function hasPrivateNodes(record: ClusterRecord): boolean {
  return (
    messageAt(record, 'privateClusterConfig').enablePrivateNodes === true ||
    messageAt(record, 'networkConfig').defaultEnablePrivateNodes === true
  );
}

/** An IPv4 CIDR as [address as a number, prefix length], or undefined. */
function ipv4Cidr(value: string): [number, number] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(value);
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const prefix = Number(m[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  return [octets.reduce((a, o) => a * 256 + o, 0), prefix];
}

/** A CIDR block in CIDR notation (IPv4, or IPv6 with a prefix of at most 128). */
function isCidr(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (ipv4Cidr(value)) return true;
  const m = /^([0-9A-Fa-f:.]+)\/(\d{1,3})$/.exec(value);
  return m !== null && isIPv6(m[1] as string) && Number(m[2]) <= 128;
}

/**
 * The internal (non-public) IPv4 ranges VPC networks use, from the VPC guide's "Valid IPv4 ranges" table:
 * RFC 1918, RFC 6598 shared space, the IETF protocol assignments, the documentation (TEST-NET) ranges,
 * benchmark testing and the reserved 240.0.0.0/4.
 */
const RESERVED_RANGES = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '240.0.0.0/4',
].map((r) => ipv4Cidr(r) as [number, number]);

/** Whether a whole IPv4 block lies within one of the reserved ranges. */
function isReserved(value: string): boolean {
  const block = ipv4Cidr(value);
  if (!block) return false;
  const [address, prefix] = block;
  return RESERVED_RANGES.some(([base, size]) => {
    if (prefix < size) return false;
    const span = 2 ** (32 - size);
    return Math.floor(address / span) === Math.floor(base / span);
  });
}

/** The CIDR blocks of a MasterAuthorizedNetworksConfig. */
function cidrBlocksOf(value: unknown): Loose[] {
  const blocks = isPlainObject(value) ? value.cidrBlocks : undefined;
  return Array.isArray(blocks) ? blocks.filter(isPlainObject) : [];
}

/** How the authorized networks are checked when the update also turns the private endpoint on or off. */
export interface AuthorizedNetworksCheckOptions {
  /** Whether the private endpoint is on once the update is done (default: as the cluster has it). */
  privateEndpoint?: boolean;
  /** The field every refusal names, when the networks checked are the cluster's, not the ones sent. */
  violation?: string;
}

/**
 * GKE's checks of the authorized networks sent (`field` is the message's place in the request):
 * - every block in CIDR notation, at most 50 on a public cluster and 100 on a private one ("Public
 *   clusters can have up to 50 authorized network CIDR ranges; private clusters can have up to 100",
 *   GKE's authorized networks guide); the texts are the simulator's, in the form of GKE's own;
 * - with the private endpoint on, authorized networks enabled (`Master authorized networks must be
 *   enabled if private endpoint is enabled.`, terraform-google-kubernetes-engine#1012, 2021) and every
 *   block internal (`Invalid master authorized networks: network "{cidr}" is not a reserved network,
 *   which is required for private endpoints.`, terraform-google-kubernetes-engine#153 2020,
 *   cluster-toolkit#3364 2024).
 */
export function authorizedNetworksCheck(
  value: unknown,
  record: ClusterRecord,
  field: string,
  options: AuthorizedNetworksCheckOptions = {},
): Result<void> {
  const at = (part: string) => options.violation ?? `${field}.${part}`;
  const blocks = cidrBlocksOf(value);
  for (const block of blocks) {
    if (isCidr(block.cidrBlock)) continue;
    return fail({
      code: 'INVALID_REQUEST',
      message: `Invalid master authorized networks: ${JSON.stringify(block.cidrBlock ?? '')} is not a CIDR block.`,
      field: at('cidr_blocks'),
    });
  }
  const isPrivate = hasPrivateNodes(record);
  const limit = isPrivate ? 100 : 50;
  if (blocks.length > limit) {
    return fail({
      code: 'INVALID_REQUEST',
      message: `Invalid master authorized networks: ${blocks.length} CIDR blocks, more than the ${limit} a ${isPrivate ? 'private' : 'public'} cluster can have.`,
      field: at('cidr_blocks'),
    });
  }
  if (!(options.privateEndpoint ?? hasPrivateEndpoint(record))) return ok(undefined);
  if (!isPlainObject(value) || value.enabled !== true) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'Master authorized networks must be enabled if private endpoint is enabled.',
      field: at('enabled'),
    });
  }
  const outside = blocks.find((b) => !isReserved(b.cidrBlock as string));
  if (outside) {
    return fail({
      code: 'INVALID_REQUEST',
      message: `Invalid master authorized networks: network "${outside.cidrBlock}" is not a reserved network, which is required for private endpoints.`,
      field: at('cidr_blocks'),
    });
  }
  return ok(undefined);
}

/**
 * A MasterAuthorizedNetworksConfig as GKE keeps it: `enabled` and each block's `displayName` are plain
 * proto3 fields (false, "" not kept), `cidrBlocks` kept in the order sent; the two `optional` bools keep
 * what is sent, and `gcpPublicCidrsAccessEnabled` not sent is GKE's default, true (as clusters.create
 * answers it: recorded, `masterAuthorizedNetworksConfig: {}` sent, `{gcpPublicCidrsAccessEnabled: true}`
 * returned).
 */
export function storedAuthorizedNetworks(value: unknown): Loose {
  const sent = isPlainObject(value) ? value : {};
  const out: Loose = {};
  if (sent.enabled === true) out.enabled = true;
  const blocks = cidrBlocksOf(sent).map((b) => withoutZeros()(b));
  if (blocks.length > 0) out.cidrBlocks = blocks;
  out.gcpPublicCidrsAccessEnabled =
    typeof sent.gcpPublicCidrsAccessEnabled === 'boolean' ? sent.gcpPublicCidrsAccessEnabled : true;
  if (typeof sent.privateEndpointEnforcementEnabled === 'boolean')
    out.privateEndpointEnforcementEnabled = sent.privateEndpointEnforcementEnabled;
  return out;
}

/** Where GKE keeps the authorized networks: the deprecated Cluster field and its replacement, alike (recorded). */
export const AUTHORIZED_NETWORKS_PATHS = [
  'masterAuthorizedNetworksConfig',
  'controlPlaneEndpointsConfig.ipEndpointsConfig.authorizedNetworksConfig',
] as const;

/**
 * "Manually enabled beta APIs ... cannot be disabled on existing clusters" and an enabled beta API "remains
 * enabled until the beta API is deprecated" (GKE's beta APIs guide): the list sent must keep every API the
 * cluster has. The text is the simulator's (FIDELITY.md).
 */
function betaApisCheck(value: unknown, record: ClusterRecord): Result<void> {
  const sent = isPlainObject(value) && Array.isArray(value.enabledApis) ? value.enabledApis : [];
  const current = messageAt(record, 'enableK8sBetaApis').enabledApis;
  const removed = (Array.isArray(current) ? current : []).find((api) => !sent.includes(api));
  if (removed === undefined) return ok(undefined);
  return fail({
    code: 'INVALID_REQUEST',
    message: `Beta API "${removed}" is enabled on the cluster and cannot be disabled.`,
    field: 'update.desired_k8s_beta_apis.enabled_apis',
  });
}

/**
 * The ClusterUpdate fields for the control plane's access: the authorized networks (kept, as GKE keeps
 * them, in both `masterAuthorizedNetworksConfig` and `controlPlaneEndpointsConfig.ipEndpointsConfig`) and
 * the beta APIs, each with an UPDATE_CLUSTER on the cluster like the other field updates (the endpoints
 * themselves: cluster-update-control-plane.ts).
 */
export const ENDPOINT_FIELD_UPDATES: Readonly<Record<string, FieldUpdate>> = {
  desiredMasterAuthorizedNetworksConfig: {
    path: AUTHORIZED_NETWORKS_PATHS,
    apply: 'replace',
    check: (value, record) =>
      authorizedNetworksCheck(value, record, 'update.desired_master_authorized_networks_config'),
    stored: storedAuthorizedNetworks,
  },
  desiredK8sBetaApis: {
    path: 'enableK8sBetaApis',
    apply: 'replace',
    check: betaApisCheck,
    // A repeated field: none enabled is the empty message.
    stored: (value) => {
      const apis = isPlainObject(value) && Array.isArray(value.enabledApis) ? value.enabledApis : [];
      return apis.length > 0 ? { enabledApis: [...apis] } : {};
    },
  },
};
