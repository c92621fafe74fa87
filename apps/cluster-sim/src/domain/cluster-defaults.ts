import { createHash } from 'node:crypto';
import { DEFAULT_OAUTH_SCOPES, isPlainObject, type Loose, mergeDeep, regionOf, zonesOf } from './defaults';
import { storedPolicy } from './maintenance-policy';
import { networkPolicyOn } from './network-policy';
import { type PodRanges, podRangesOf } from './pod-ranges';
import type { ClusterShape } from './state';
import { clusterVersionDefaults } from './version-defaults';

/**
 * GKE's defaults and derived values for a cluster (its pools come from defaults.ts), from real recordings
 * (docs/research/gke-recordings.md: the clusters.get of gcloud at GKE 1.33 and of Config Connector at
 * 1.34 and 1.35, the raw 2024 Terraform cassette); those that depend on the GKE version are in
 * version-defaults.ts.
 */

/** `projects/P/global/networks/N` (or a Compute URL of it, or a bare name): project and name. */
function networkRef(value: string | undefined, projectId: string): { project: string; name: string } {
  const path = (value ?? '').replace(/^https?:\/\/[^/]+\/compute\/[^/]+\//, '');
  const m = /^projects\/([^/]+)\/global\/networks\/([^/]+)$/.exec(path);
  if (m) return { project: m[1] as string, name: m[2] as string };
  return { project: projectId, name: path.split('/').pop() || 'default' };
}

/** The VPC network a cluster is given (`network`, else `networkConfig.network`), else the project's default. */
function networkOf(given: Loose, projectId: string): { project: string; name: string } {
  const config = isPlainObject(given.networkConfig) ? given.networkConfig : {};
  return networkRef(
    (given.network as string | undefined) || (config.network as string | undefined),
    projectId,
  );
}

/** The path of the VPC network a cluster created from `input` lands in (`projects/P/global/networks/N`). */
export function clusterNetworkPath(input: ClusterShape, projectId: string): string {
  const network = networkOf(input as Loose, projectId);
  return `projects/${network.project}/global/networks/${network.name}`;
}

/** `projects/P/regions/R/subnetworks/S` (or a Compute URL of it, or a bare name). */
function subnetworkRef(
  value: string | undefined,
  fallback: { project: string; region: string; name: string },
): { project: string; region: string; name: string } {
  if (!value) return fallback;
  const path = value.replace(/^https?:\/\/[^/]+\/compute\/[^/]+\//, '');
  const m = /^projects\/([^/]+)\/regions\/([^/]+)\/subnetworks\/([^/]+)$/.exec(path);
  if (m) return { project: m[1] as string, region: m[2] as string, name: m[3] as string };
  return { ...fallback, name: path.split('/').pop() || fallback.name };
}

/** A CIDR as given, or a block of the given size (`/20`, or none: `size`) at `base`. */
function resolveCidr(given: unknown, base: string, size: number): string {
  if (typeof given === 'string' && /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(given)) return given;
  const m = typeof given === 'string' ? /^\/?(\d+)$/.exec(given) : null;
  return `${base}/${m ? m[1] : size}`;
}

/** Deterministic bytes from the cluster's id (no draw from the world's random source). */
function bytesFrom(seed: string, length: number): Buffer {
  const chunks: Buffer[] = [];
  for (let i = 0; chunks.length * 32 < length; i++) {
    chunks.push(createHash('sha256').update(`${seed}#${i}`).digest());
  }
  return Buffer.concat(chunks).subarray(0, length);
}

/** A base64 PEM of the shape of GKE's `masterAuth.clusterCaCertificate` (not a parseable certificate). */
function caCertificate(id: string): string {
  const body = bytesFrom(`ca:${id}`, 810).toString('base64');
  const lines = body.match(/.{1,64}/g) ?? [];
  const pem = `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
  return Buffer.from(pem).toString('base64');
}

/** GKE's MasterAuthorizedNetworksConfig when none is given (recorded: `{}` sent, this returned). */
const AUTHORIZED_NETWORKS_DEFAULT = { gcpPublicCidrsAccessEnabled: true };

/**
 * The authorized networks GKE keeps, alike, in `masterAuthorizedNetworksConfig` and
 * `controlPlaneEndpointsConfig.ipEndpointsConfig.authorizedNetworksConfig` (every recording answers the
 * two alike): the one given merged over the default. The proto deprecates the first for the second and
 * calls giving both invalid; when both come (an empty message counts as not given: Config Connector
 * always sends `authorizedNetworksConfig: {}`), the second, the current field, is taken.
 */
function authorizedNetworks(given: Loose): Loose {
  const endpoints = isPlainObject(given.controlPlaneEndpointsConfig) ? given.controlPlaneEndpointsConfig : {};
  const ip = isPlainObject(endpoints.ipEndpointsConfig) ? endpoints.ipEndpointsConfig : {};
  const candidates = [ip.authorizedNetworksConfig, given.masterAuthorizedNetworksConfig];
  const chosen =
    candidates.find((c) => isPlainObject(c) && Object.keys(c).length > 0) ?? candidates.find(isPlainObject);
  return mergeDeep<Loose>(structuredClone(AUTHORIZED_NETWORKS_DEFAULT), chosen);
}

export interface ClusterContext {
  projectId: string;
  projectNumber: string;
  location: string;
  masterVersion: string;
  now: string;
  /** 64 hex digits: the cluster's id, from which its other generated names derive. */
  id: string;
  /** The public endpoint address. */
  endpoint: string;
  /**
   * The pod ranges the other clusters hold, by network (`projects/P/global/networks/N`): the cluster's
   * `10.X.0.0/14` keeps clear of them (pod-ranges.ts). None: a world without other clusters.
   */
  podRanges?: PodRanges;
}

/**
 * A cluster as GKE creates it, without its pools: the caller's fields merged over GKE's defaults (a
 * Standard cluster as GKE answers it at the cluster's initial version), then what GKE decides itself
 * (addresses, ranges, ids, names, IP aliases on). Derived from the id: the pod range's name
 * ("gke-<cluster>-pods-<id[:8]>"), the DNS endpoint ("gke-<id[:40]>-<project number>.<location>.gke.goog"),
 * the pod CIDR.
 */
export function defaultCluster(input: ClusterShape & { name: string }, ctx: ClusterContext): ClusterShape {
  const { nodePools: _pools, nodeConfig: _config, ...rest } = input as ClusterShape & Loose;
  const given = rest as Loose;
  const id = ctx.id;
  const region = regionOf(ctx.location);
  const givenNetworkConfig = isPlainObject(given.networkConfig) ? given.networkConfig : {};
  const givenIpPolicy = isPlainObject(given.ipAllocationPolicy) ? given.ipAllocationPolicy : {};
  const network = networkOf(given, ctx.projectId);
  const subnetwork = subnetworkRef(
    (given.subnetwork as string | undefined) || (givenNetworkConfig.subnetwork as string | undefined),
    { project: network.project, region, name: network.name },
  );
  const networkPath = `projects/${network.project}/global/networks/${network.name}`;
  const octet = (ctx.podRanges ?? podRangesOf([])).octetFor(networkPath, id);
  const podCidr = resolveCidr(
    given.clusterIpv4Cidr || givenIpPolicy.clusterIpv4CidrBlock || givenIpPolicy.clusterIpv4Cidr,
    `10.${octet}.0.0`,
    14,
  );
  const servicesCidr = resolveCidr(
    given.servicesIpv4Cidr || givenIpPolicy.servicesIpv4CidrBlock || givenIpPolicy.servicesIpv4Cidr,
    '34.118.224.0',
    20,
  );
  const rangeName =
    (givenIpPolicy.clusterSecondaryRangeName as string | undefined) ||
    `gke-${input.name}-pods-${id.slice(0, 8)}`;
  const publicEndpoint = (given.endpoint as string | undefined) || ctx.endpoint;
  const privateEndpoint = `10.128.0.${2 + (Number.parseInt(id.slice(10, 12), 16) % 250)}`;
  const dnsEndpoint = `gke-${id.slice(0, 40)}-${ctx.projectNumber}.${ctx.location}.gke.goog`;
  const defaults: Loose = {
    addonsConfig: {
      gcePersistentDiskCsiDriverConfig: { enabled: true },
      kubernetesDashboard: { disabled: true },
      networkPolicyConfig: { disabled: true },
    },
    autopilot: {},
    autoscaling: { autoscalingProfile: 'BALANCED' },
    clusterTelemetry: { type: 'ENABLED' },
    controlPlaneEndpointsConfig: {
      // `enableK8sTokensViaDns` is only there when sent (Config Connector sends false; gcloud, none).
      dnsEndpointConfig: { allowExternalTraffic: false },
      ipEndpointsConfig: {
        authorizedNetworksConfig: { gcpPublicCidrsAccessEnabled: true },
        enablePublicEndpoint: true,
        enabled: true,
      },
    },
    databaseEncryption: { currentState: 'CURRENT_STATE_DECRYPTED', state: 'DECRYPTED' },
    defaultMaxPodsConstraint: { maxPodsPerNode: '110' },
    enterpriseConfig: { clusterTier: 'STANDARD' },
    ipAllocationPolicy: {
      podCidrOverprovisionConfig: {},
      stackType: 'IPV4',
    },
    legacyAbac: {},
    loggingConfig: { componentConfig: { enableComponents: ['SYSTEM_COMPONENTS', 'WORKLOADS'] } },
    loggingService: 'logging.googleapis.com/kubernetes',
    maintenancePolicy: {},
    master: {},
    masterAuth: { clientCertificateConfig: {} },
    masterAuthorizedNetworksConfig: { gcpPublicCidrsAccessEnabled: true },
    monitoringConfig: {
      advancedDatapathObservabilityConfig: {},
      componentConfig: {
        enableComponents: [
          'SYSTEM_COMPONENTS',
          'STORAGE',
          'HPA',
          'POD',
          'DAEMONSET',
          'DEPLOYMENT',
          'STATEFULSET',
          'CADVISOR',
          'KUBELET',
          'DCGM',
          'JOBSET',
        ],
      },
      managedPrometheusConfig: { enabled: true },
    },
    monitoringService: 'monitoring.googleapis.com/kubernetes',
    networkConfig: { defaultSnatStatus: {}, serviceExternalIpsConfig: {} },
    nodePoolAutoConfig: { nodeKubeletConfig: { insecureKubeletReadonlyPortEnabled: false } },
    nodePoolDefaults: {
      nodeConfigDefaults: {
        loggingConfig: { variantConfig: { variant: 'DEFAULT' } },
        nodeKubeletConfig: { insecureKubeletReadonlyPortEnabled: false },
      },
    },
    notificationConfig: { pubsub: {} },
    podAutoscaling: { hpaProfile: 'PERFORMANCE' },
    privateCluster: true,
    privateClusterConfig: {},
    protectConfig: {
      workloadConfig: { auditMode: 'BASIC' },
      workloadVulnerabilityMode: 'WORKLOAD_VULNERABILITY_MODE_UNSPECIFIED',
    },
    rbacBindingConfig: {
      enableInsecureBindingSystemAuthenticated: true,
      enableInsecureBindingSystemUnauthenticated: true,
    },
    releaseChannel: { channel: 'REGULAR' },
    securityPostureConfig: { mode: 'BASIC', vulnerabilityMode: 'VULNERABILITY_MODE_UNSPECIFIED' },
    shieldedNodes: { enabled: true },
    userManagedKeysConfig: {},
    status: 'RUNNING',
  };
  // A release channel given replaces GKE's (`{}` is no channel); the other messages merge.
  const versioned = mergeDeep(defaults, clusterVersionDefaults(ctx.masterVersion, DEFAULT_OAUTH_SCOPES));
  const merged: Loose = {
    ...mergeDeep(versioned, given),
    ...(given.releaseChannel ? { releaseChannel: given.releaseChannel } : {}),
  };
  const sub = (key: string): Loose => (isPlainObject(merged[key]) ? (merged[key] as Loose) : {});
  const endpoints = sub('controlPlaneEndpointsConfig');
  const networks = authorizedNetworks(given);
  const cluster: Loose = {
    ...merged,
    network: network.name,
    subnetwork: subnetwork.name,
    clusterIpv4Cidr: podCidr,
    servicesIpv4Cidr: servicesCidr,
    endpoint: publicEndpoint,
    ipAllocationPolicy: {
      ...sub('ipAllocationPolicy'),
      // VPC-native is forced on new clusters (recorded: useIpAliases false sent, true returned).
      useIpAliases: true,
      clusterIpv4Cidr: podCidr,
      clusterIpv4CidrBlock: podCidr,
      clusterSecondaryRangeName: rangeName,
      servicesIpv4Cidr: servicesCidr,
      servicesIpv4CidrBlock: servicesCidr,
    },
    networkConfig: {
      ...sub('networkConfig'),
      network: networkPath,
      subnetwork: `projects/${subnetwork.project}/regions/${subnetwork.region}/subnetworks/${subnetwork.name}`,
    },
    controlPlaneEndpointsConfig: {
      ...endpoints,
      dnsEndpointConfig: {
        ...(isPlainObject(endpoints.dnsEndpointConfig) ? endpoints.dnsEndpointConfig : {}),
        endpoint: dnsEndpoint,
      },
      ipEndpointsConfig: {
        ...(isPlainObject(endpoints.ipEndpointsConfig) ? endpoints.ipEndpointsConfig : {}),
        authorizedNetworksConfig: structuredClone(networks),
        privateEndpoint,
        publicEndpoint,
      },
    },
    masterAuthorizedNetworksConfig: networks,
    privateClusterConfig: { ...sub('privateClusterConfig'), privateEndpoint, publicEndpoint },
    masterAuth: { ...sub('masterAuth'), clusterCaCertificate: caCertificate(id) },
    // Kept without its resourceVersion, the daily window's output-only duration (reads derive both) and
    // an empty window (recorded: `window: {}` sent, not returned).
    maintenancePolicy: storedPolicy(sub('maintenancePolicy')),
    id,
    location: ctx.location,
    zone: ctx.location,
    locations: input.locations && input.locations.length > 0 ? input.locations : zonesOf(ctx.location),
    initialClusterVersion: ctx.masterVersion,
    currentMasterVersion: ctx.masterVersion,
    createTime: ctx.now,
  };
  // An empty networkPolicy is not kept (recorded: `networkPolicy: {}` sent, not returned).
  if (isPlainObject(cluster.networkPolicy) && !Object.values(cluster.networkPolicy).some(Boolean))
    delete cluster.networkPolicy;
  // Enforcement on the nodes needs the control plane's NetworkPolicy addon: a cluster created with it
  // and no word on the addon gets the addon (gcloud's --enable-network-policy sends both; chosen).
  const addons = cluster.addonsConfig as Loose | undefined;
  const givenAddons = isPlainObject(given.addonsConfig) ? given.addonsConfig : {};
  if (networkPolicyOn(cluster as ClusterShape) && addons && givenAddons.networkPolicyConfig === undefined)
    addons.networkPolicyConfig = {};
  return cluster as ClusterShape;
}
