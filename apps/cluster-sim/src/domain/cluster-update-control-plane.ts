import type { FieldUpdate } from './cluster-field-update';
import {
  AUTHORIZED_NETWORKS_PATHS,
  authorizedNetworksCheck,
  hasPrivateEndpoint,
  messageAt,
  storedAuthorizedNetworks,
} from './cluster-update-endpoints';
import { isPlainObject, type Loose } from './defaults';
import { fail, ok, type Result } from './errors';
import type { ClusterRecord } from './state';

/**
 * The ClusterUpdate fields for the control plane's endpoints: the DNS endpoint, the public endpoint and
 * global access, each kept by GKE in the deprecated `privateClusterConfig` and in its replacement
 * `controlPlaneEndpointsConfig`, with an UPDATE_CLUSTER on the cluster like the other field updates.
 */

const DNS = 'controlPlaneEndpointsConfig.dnsEndpointConfig';
const IP = 'controlPlaneEndpointsConfig.ipEndpointsConfig';
/** `enable_private_endpoint`: "the value of enable_public_endpoint is reversed" (the proto). */
const PRIVATE_ENDPOINT = 'privateClusterConfig.enablePrivateEndpoint';
const PUBLIC_ENDPOINT = `${IP}.enablePublicEndpoint`;
/** `master_global_access_config` is deprecated for `ip_endpoints_config.global_access` (the proto). */
const MASTER_GLOBAL_ACCESS = 'privateClusterConfig.masterGlobalAccessConfig';
const GLOBAL_ACCESS = `${IP}.globalAccess`;

/** The fields of ControlPlaneEndpointsConfig's messages applied: each a plain stored value (and its mirror). */
const APPLIED: Readonly<Record<string, readonly string[]>> = {
  dnsEndpointConfig: ['allowExternalTraffic', 'enableK8sTokensViaDns', 'enableK8sCertsViaDns'],
  ipEndpointsConfig: ['enablePublicEndpoint', 'globalAccess', 'authorizedNetworksConfig'],
};

/** Output-only fields: not changed by a request. */
const OUTPUT_ONLY = new Set(['endpoint', 'publicEndpoint', 'privateEndpoint', 'peeringName']);

/** Two values of a field alike (an unset bool is false, an unset string ""). */
function alike(sent: unknown, current: unknown): boolean {
  if (typeof sent === 'boolean') return sent === (current === true);
  if (typeof sent === 'string') return sent === (typeof current === 'string' ? current : '');
  return JSON.stringify(sent) === JSON.stringify(current);
}

/**
 * A private cluster reached over VPC Network Peering (not Private Service Connect): private nodes with a
 * `masterIpv4CidrBlock` ("the IP range ... for the hosted master network", the proto) or a `peeringName`
 * ("the peering name in the customer VPC used by this cluster").
 */
function isVpcPeering(record: ClusterRecord): boolean {
  const config = messageAt(record, 'privateClusterConfig');
  const set = (v: unknown) => typeof v === 'string' && v !== '';
  return config.enablePrivateNodes === true && (set(config.masterIpv4CidrBlock) || set(config.peeringName));
}

/**
 * GKE's checks of the private endpoint turned on or off: refused on a VPC-peering private cluster
 * (`Updating private endpoint on vpc peering private clusters is not supported.`,
 * terraform-google-kubernetes-engine#1919, 2024); turned on, the authorized networks it will have
 * (`networks`, or the cluster's) must be enabled and internal, as desiredMasterAuthorizedNetworksConfig
 * checks them.
 */
function privateEndpointCheck(
  privateEndpoint: boolean,
  record: ClusterRecord,
  field: string,
  networks?: { value: unknown; field: string },
): Result<void> {
  if (isVpcPeering(record)) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'Updating private endpoint on vpc peering private clusters is not supported.',
      field,
    });
  }
  if (networks) return authorizedNetworksCheck(networks.value, record, networks.field, { privateEndpoint });
  if (!privateEndpoint) return ok(undefined);
  return authorizedNetworksCheck(messageAt(record, 'masterAuthorizedNetworksConfig'), record, field, {
    privateEndpoint,
    violation: field,
  });
}

/** The private endpoint and its reversed mirror, the public one. */
function privateEndpointPaths(privateEndpoint: boolean): Loose {
  return { [PRIVATE_ENDPOINT]: privateEndpoint, [PUBLIC_ENDPOINT]: !privateEndpoint };
}

/**
 * Global access in both places; off, no `masterGlobalAccessConfig` (as clusters.create answers
 * `globalAccess: false`, recorded) and `globalAccess` false (an `optional bool` not answered false there).
 */
function globalAccessPaths(enabled: boolean): Loose {
  return { [MASTER_GLOBAL_ACCESS]: enabled ? { enabled: true } : undefined, [GLOBAL_ACCESS]: enabled };
}

const CPE = 'update.desired_control_plane_endpoints_config';

/**
 * `desiredControlPlaneEndpointsConfig`: the DNS endpoint's three `optional bool`s, the IP endpoints'
 * `enablePublicEndpoint`, `globalAccess` and `authorizedNetworksConfig` are applied, each sent replacing
 * the cluster's (those not sent stay). Any other field sent must be what the cluster already has
 * (output-only ones are ignored): turning the IP endpoints off or on (`enabled`) empties or fills the
 * endpoints and authorized networks in ways no recording shows, and `privateEndpointSubnetwork` is chosen
 * at creation; a change to either is the 501. With the IP endpoints off, the DNS endpoint must keep
 * allowing external traffic (the cluster's only access path; the text is the simulator's).
 */
function controlPlaneEndpointsCheck(value: unknown, record: ClusterRecord): Result<void> {
  const sent = isPlainObject(value) ? value : {};
  for (const part of Object.keys(sent)) {
    const given = sent[part];
    if (!isPlainObject(given)) continue;
    const current = messageAt(record, 'controlPlaneEndpointsConfig', part);
    for (const [key, v] of Object.entries(given)) {
      if (OUTPUT_ONLY.has(key) || v === undefined || APPLIED[part]?.includes(key)) continue;
      if (alike(v, current[key])) continue;
      return fail({
        code: 'NOT_SIMULATED',
        what: `ClusterUpdate field "desiredControlPlaneEndpointsConfig" changing ${part}.${key}`,
      });
    }
  }
  const dns = isPlainObject(sent.dnsEndpointConfig) ? sent.dnsEndpointConfig : {};
  const ip = isPlainObject(sent.ipEndpointsConfig) ? sent.ipEndpointsConfig : {};
  const currentDns = messageAt(record, 'controlPlaneEndpointsConfig', 'dnsEndpointConfig');
  const currentIp = messageAt(record, 'controlPlaneEndpointsConfig', 'ipEndpointsConfig');
  const external =
    typeof dns.allowExternalTraffic === 'boolean'
      ? dns.allowExternalTraffic
      : currentDns.allowExternalTraffic;
  if (currentIp.enabled === false && external !== true) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'The DNS endpoint must allow external traffic while the IP endpoints are disabled.',
      field: `${CPE}.dns_endpoint_config.allow_external_traffic`,
    });
  }
  const networks = isPlainObject(ip.authorizedNetworksConfig)
    ? { value: ip.authorizedNetworksConfig, field: `${CPE}.ip_endpoints_config.authorized_networks_config` }
    : undefined;
  const wasPrivate = hasPrivateEndpoint(record);
  if (typeof ip.enablePublicEndpoint === 'boolean' && ip.enablePublicEndpoint === wasPrivate) {
    return privateEndpointCheck(
      !ip.enablePublicEndpoint,
      record,
      `${CPE}.ip_endpoints_config.enable_public_endpoint`,
      networks,
    );
  }
  if (!networks) return ok(undefined);
  return authorizedNetworksCheck(networks.value, record, networks.field);
}

/** Where each part of a `desiredControlPlaneEndpointsConfig` lands. */
function controlPlaneEndpointsPaths(value: unknown): Loose {
  const sent = isPlainObject(value) ? value : {};
  const dns = isPlainObject(sent.dnsEndpointConfig) ? sent.dnsEndpointConfig : {};
  const ip = isPlainObject(sent.ipEndpointsConfig) ? sent.ipEndpointsConfig : {};
  const out: Loose = {};
  for (const key of APPLIED.dnsEndpointConfig ?? []) {
    if (typeof dns[key] === 'boolean') out[`${DNS}.${key}`] = dns[key];
  }
  if (typeof ip.enablePublicEndpoint === 'boolean')
    Object.assign(out, privateEndpointPaths(!ip.enablePublicEndpoint));
  if (typeof ip.globalAccess === 'boolean') Object.assign(out, globalAccessPaths(ip.globalAccess));
  if (isPlainObject(ip.authorizedNetworksConfig)) {
    const networks = storedAuthorizedNetworks(ip.authorizedNetworksConfig);
    for (const path of AUTHORIZED_NETWORKS_PATHS) out[path] = networks;
  }
  return out;
}

/**
 * `desiredPrivateClusterConfig`: "master_global_access_config is the only field that can be changed via
 * this field" (the proto); any other field sent must be what the cluster has (output-only ones are
 * ignored), a change to one, or no `masterGlobalAccessConfig`, is the 501 (GKE's answer is not known).
 */
function privateClusterConfigCheck(value: unknown, record: ClusterRecord): Result<void> {
  const sent = isPlainObject(value) ? value : {};
  const current = messageAt(record, 'privateClusterConfig');
  for (const [key, v] of Object.entries(sent)) {
    if (OUTPUT_ONLY.has(key) || v === undefined || key === 'masterGlobalAccessConfig') continue;
    if (alike(v, current[key])) continue;
    return fail({
      code: 'NOT_SIMULATED',
      what: `ClusterUpdate field "desiredPrivateClusterConfig" changing ${key}`,
    });
  }
  if (isPlainObject(sent.masterGlobalAccessConfig)) return ok(undefined);
  return fail({
    code: 'NOT_SIMULATED',
    what: 'ClusterUpdate field "desiredPrivateClusterConfig" without masterGlobalAccessConfig',
  });
}

/** The ClusterUpdate fields for the control plane's endpoints (this file's comment). */
export const CONTROL_PLANE_FIELD_UPDATES: Readonly<Record<string, FieldUpdate>> = {
  // An `optional bool`: the private endpoint, and the public one reversed (the proto).
  desiredEnablePrivateEndpoint: {
    path: [PRIVATE_ENDPOINT, PUBLIC_ENDPOINT],
    apply: 'replace',
    check: (value, record) =>
      privateEndpointCheck(value === true, record, 'update.desired_enable_private_endpoint'),
    perPath: (value) => privateEndpointPaths(value === true),
  },
  desiredControlPlaneEndpointsConfig: {
    path: [
      ...AUTHORIZED_NETWORKS_PATHS,
      ...(APPLIED.dnsEndpointConfig ?? []).map((key) => `${DNS}.${key}`),
      PRIVATE_ENDPOINT,
      PUBLIC_ENDPOINT,
      MASTER_GLOBAL_ACCESS,
      GLOBAL_ACCESS,
    ],
    apply: 'replace',
    check: controlPlaneEndpointsCheck,
    perPath: controlPlaneEndpointsPaths,
  },
  desiredPrivateClusterConfig: {
    path: [MASTER_GLOBAL_ACCESS, GLOBAL_ACCESS],
    apply: 'replace',
    check: privateClusterConfigCheck,
    perPath: (value) => {
      const access = isPlainObject(value) ? value.masterGlobalAccessConfig : undefined;
      return globalAccessPaths(isPlainObject(access) && access.enabled === true);
    },
  },
};
