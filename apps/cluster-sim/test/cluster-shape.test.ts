import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool } from './support/fixtures';
import { type AnyJson, createHarness, type Harness } from './support/harness';

/**
 * The shape of clusters and node pools against the real GKE answers in docs/research/gke-recordings.md
 * (gcloud's GKE 1.33 node pool crud log, Config Connector's 1.35 containernodepool-kubeletconfig log, the
 * raw 2024 Terraform cassette). Clusters here are created at the harness's default version, a 1.33; the
 * defaults that change with the version are tested in version-defaults.test.ts.
 */

const LOC = '/v1beta1/projects/p1/locations/us-central1-a';
const V1_LOC = '/v1/projects/p1/locations/us-central1-a';
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.close());

async function create(body: AnyJson, loc = LOC) {
  const res = await h.post(`${loc}/clusters`, { cluster: body });
  expect(res.status, res.text).toBe(200);
  await h.advance('3s');
  const op = (await h.get(`${loc}/operations/${res.body.name}`)).body;
  const cluster = (await h.get(`${loc}/clusters/${body.name}`)).body;
  return { op, cluster };
}

describe('clusters.create and clusters.get', () => {
  it('answers a gcloud-style create with every field GKE returns, with its defaults', async () => {
    const { op, cluster } = await create({
      name: 'cluster-sample-kcc1',
      nodePools: [
        { name: 'default-pool', initialNodeCount: 3, management: { autoRepair: true, autoUpgrade: true } },
      ],
    });
    expect(op.progress).toEqual({
      metrics: [
        { name: 'CLUSTER_CONFIGURING', intValue: '10' },
        { name: 'CLUSTER_CONFIGURING_TOTAL', intValue: '10' },
        { name: 'CLUSTER_DEPLOYING', intValue: '12' },
        { name: 'CLUSTER_DEPLOYING_TOTAL', intValue: '12' },
        { name: 'CLUSTER_HEALTHCHECKING', intValue: '1' },
        { name: 'CLUSTER_HEALTHCHECKING_TOTAL', intValue: '2' },
      ],
    });
    expect(cluster).toMatchObject({
      addonsConfig: {
        gcePersistentDiskCsiDriverConfig: { enabled: true },
        kubernetesDashboard: { disabled: true },
        networkPolicyConfig: { disabled: true },
      },
      autopilot: {},
      autoscaling: { autoscalingProfile: 'BALANCED' },
      databaseEncryption: { currentState: 'CURRENT_STATE_DECRYPTED', state: 'DECRYPTED' },
      defaultMaxPodsConstraint: { maxPodsPerNode: '110' },
      enterpriseConfig: { clusterTier: 'STANDARD' },
      legacyAbac: {},
      loggingService: 'logging.googleapis.com/kubernetes',
      monitoringService: 'monitoring.googleapis.com/kubernetes',
      masterAuth: { clientCertificateConfig: {} },
      masterAuthorizedNetworksConfig: { gcpPublicCidrsAccessEnabled: true },
      network: 'default',
      subnetwork: 'default',
      networkConfig: {
        network: 'projects/p1/global/networks/default',
        subnetwork: 'projects/p1/regions/us-central1/subnetworks/default',
      },
      nodePoolAutoConfig: { nodeKubeletConfig: { insecureKubeletReadonlyPortEnabled: false } },
      notificationConfig: { pubsub: {} },
      podAutoscaling: { hpaProfile: 'PERFORMANCE' },
      rbacBindingConfig: {
        enableInsecureBindingSystemAuthenticated: true,
        enableInsecureBindingSystemUnauthenticated: true,
      },
      securityPostureConfig: { mode: 'BASIC', vulnerabilityMode: 'VULNERABILITY_MODE_UNSPECIFIED' },
      shieldedNodes: { enabled: true },
      userManagedKeysConfig: {},
      currentNodeCount: 3,
      clusterTelemetry: { type: 'ENABLED' },
    });
    expect(cluster.id).toMatch(/^[0-9a-f]{64}$/);
    expect(cluster.etag).toMatch(UUID4);
    expect(cluster.labelFingerprint).toMatch(/^[0-9a-f]{8}$/);
    expect(cluster.maintenancePolicy).toEqual({ resourceVersion: 'e3b0c442' });
    expect(cluster.initialNodeCount).toBeUndefined();
    expect(cluster.nodeIpv4CidrSize).toBeUndefined();
    expect(cluster.binaryAuthorization).toBeUndefined();
    expect(cluster.masterAuth.clusterCaCertificate).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // Derived from one id: the pod range's name, the DNS endpoint; the pod CIDR is a /14.
    const range = `gke-cluster-sample-kcc1-pods-${cluster.id.slice(0, 8)}`;
    expect(cluster.ipAllocationPolicy).toMatchObject({
      useIpAliases: true,
      clusterSecondaryRangeName: range,
      clusterIpv4Cidr: cluster.clusterIpv4Cidr,
      clusterIpv4CidrBlock: cluster.clusterIpv4Cidr,
      servicesIpv4Cidr: '34.118.224.0/20',
      stackType: 'IPV4',
    });
    expect(cluster.clusterIpv4Cidr).toMatch(/^10\.\d+\.0\.0\/14$/);
    expect(cluster.controlPlaneEndpointsConfig.dnsEndpointConfig).toEqual({
      allowExternalTraffic: false,
      endpoint: expect.stringMatching(
        new RegExp(`^gke-${cluster.id.slice(0, 40)}-\\d+\\.us-central1-a\\.gke\\.goog$`),
      ),
    });
    expect(cluster.privateClusterConfig.publicEndpoint).toBe(cluster.endpoint);
    // The default pool: its config is the cluster's nodeConfig, its ranges the cluster's.
    const pool = cluster.nodePools[0];
    expect(cluster.nodeConfig).toEqual(pool.config);
    expect(pool.networkConfig).toEqual({
      podIpv4CidrBlock: cluster.clusterIpv4Cidr,
      podRange: range,
      subnetwork: 'projects/p1/regions/us-central1/subnetworks/default',
    });
    expect(pool.etag).toMatch(UUID4);
    expect(pool.autoscaling).toBeUndefined();
    expect(pool.upgradeSettings).toEqual({ maxSurge: 1, strategy: 'SURGE' });
    expect(pool.instanceGroupUrls).toEqual([
      expect.stringMatching(
        /^https:\/\/www\.googleapis\.com\/compute\/v1\/projects\/p1\/zones\/us-central1-a\/instanceGroupManagers\/gke-cluster-sample-kcc1-default-pool-[0-9a-f]{8}-grp$/,
      ),
    ]);
    expect(cluster.instanceGroupUrls).toEqual(pool.instanceGroupUrls);
  });

  it("stores and echoes Config Connector's create fields, merged with GKE's defaults", async () => {
    const { cluster } = await create({
      name: 'kcc',
      autopilot: { enabled: false },
      binaryAuthorization: { enabled: false },
      legacyAbac: { enabled: false },
      initialNodeCount: 1,
      ipAllocationPolicy: { stackType: 'IPV4', useIpAliases: false },
      maintenancePolicy: { window: {} },
      masterAuthorizedNetworksConfig: {},
      network: 'projects/p1/global/networks/default',
      networkPolicy: {},
      nodeConfig: {
        oauthScopes: ['https://www.googleapis.com/auth/cloud-platform'],
        kubeletConfig: { podPidsLimit: '1024' },
      },
      resourceLabels: { a: 'b' },
      controlPlaneEndpointsConfig: {
        ipEndpointsConfig: { globalAccess: false, authorizedNetworksConfig: {} },
      },
    });
    expect(cluster).toMatchObject({
      autopilot: {},
      binaryAuthorization: {},
      legacyAbac: {},
      initialNodeCount: 1,
      network: 'default',
      resourceLabels: { a: 'b' },
      ipAllocationPolicy: { useIpAliases: true },
      masterAuthorizedNetworksConfig: { gcpPublicCidrsAccessEnabled: true },
    });
    expect(cluster.networkPolicy).toBeUndefined();
    expect(cluster.maintenancePolicy).toEqual({ resourceVersion: 'e3b0c442' });
    expect(cluster.controlPlaneEndpointsConfig.ipEndpointsConfig).toEqual({
      authorizedNetworksConfig: { gcpPublicCidrsAccessEnabled: true },
      enablePublicEndpoint: true,
      enabled: true,
      privateEndpoint: expect.stringMatching(/^10\.128\.0\.\d+$/),
      publicEndpoint: cluster.endpoint,
    });
    const pool = cluster.nodePools[0];
    expect(pool.initialNodeCount).toBe(1);
    expect(pool.config.oauthScopes).toEqual(['https://www.googleapis.com/auth/cloud-platform']);
    expect(pool.config.kubeletConfig).toEqual({
      insecureKubeletReadonlyPortEnabled: false,
      maxParallelImagePulls: 2,
      podPidsLimit: '1024',
    });
    expect(pool.config.machineType).toBe('e2-medium');
    expect(cluster.labelFingerprint).not.toBe('a9dc16a7');
  });

  it('refuses an Autopilot cluster with the 501 rather than creating a standard one', async () => {
    const res = await h.post(`${LOC}/clusters`, { cluster: { name: 'ap', autopilot: { enabled: true } } });
    expect(res.status).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
    expect(res.body.error).toMatchObject({ status: 'UNIMPLEMENTED' });
    expect(res.body.error.message).toMatch(
      /^An Autopilot cluster \(cluster\.autopilot\.enabled\): not simulated/,
    );
    expect((await h.get(`${LOC}/clusters/ap`)).status).toBe(404);
    // `{enabled: false}`, as Terraform and Config Connector send it, is a standard cluster.
    const standard = await h.post(`${LOC}/clusters`, {
      cluster: { name: 'std', initialNodeCount: 1, autopilot: { enabled: false } },
    });
    expect(standard.status, standard.text).toBe(200);
  });

  it('takes networks as full paths, Compute URLs or short names', async () => {
    const { cluster } = await create({
      name: 'n1',
      initialNodeCount: 1,
      network: 'https://www.googleapis.com/compute/v1/projects/host/global/networks/vpc',
      subnetwork: 'projects/host/regions/us-central1/subnetworks/sub',
    });
    expect(cluster).toMatchObject({
      network: 'vpc',
      subnetwork: 'sub',
      networkConfig: {
        network: 'projects/host/global/networks/vpc',
        subnetwork: 'projects/host/regions/us-central1/subnetworks/sub',
      },
    });
    expect(cluster.nodePools[0].networkConfig.subnetwork).toBe(
      'projects/host/regions/us-central1/subnetworks/sub',
    );
    const short = (await create({ name: 'n2', initialNodeCount: 1, network: 'vpc2' })).cluster;
    expect(short.networkConfig).toMatchObject({
      network: 'projects/p1/global/networks/vpc2',
      subnetwork: 'projects/p1/regions/us-central1/subnetworks/vpc2',
    });
  });

  it('leaves v1beta1-only fields out of v1 answers', async () => {
    await create({ name: 'c9', initialNodeCount: 1 });
    const v1 = (await h.get(`${V1_LOC}/clusters/c9`)).body;
    for (const field of ['clusterTelemetry', 'master', 'privateCluster', 'protectConfig']) {
      expect(v1[field], field).toBeUndefined();
    }
    expect(v1.nodePools[0].config.nodeImageConfig).toBeUndefined();
    const beta = (await h.get(`${LOC}/clusters/c9`)).body;
    expect(beta.nodePools[0].config.nodeImageConfig).toEqual({
      image: expect.stringMatching(/^gke-\d+-gke\d+-cos-[a-z0-9-]+$/),
      imageProject: 'gke-node-images',
    });
  });
});

describe('node pools', () => {
  beforeEach(async () => {
    await h.seed({ clusters: [aCluster().withPools(aNodePool('np1')).build()] });
  });

  it('creates an autoscaled pool without a count as GKE does: no initialNodeCount, BALANCED, no zero min', async () => {
    const res = await h.post(`${LOC}/clusters/c1/nodePools`, {
      nodePool: {
        name: 'auto',
        autoscaling: { enabled: true, minNodeCount: 0, maxNodeCount: 3, totalMinNodeCount: 0 },
        networkConfig: {},
      },
    });
    expect(res.status, res.text).toBe(200);
    await h.advance('3s');
    const done = (await h.get(`${LOC}/operations/${res.body.name}`)).body;
    expect(done.progress).toBeUndefined();
    const pool = (await h.get(`${LOC}/clusters/c1/nodePools/auto`)).body;
    expect(pool.initialNodeCount).toBeUndefined();
    expect(pool.autoscaling).toEqual({ enabled: true, maxNodeCount: 3, locationPolicy: 'BALANCED' });
    const cluster = (await h.get(`${LOC}/clusters/c1`)).body;
    expect(pool.networkConfig.podRange).toBe(cluster.ipAllocationPolicy.clusterSecondaryRangeName);
    expect(cluster.instanceGroupUrls).toEqual(cluster.nodePools.flatMap((p: AnyJson) => p.instanceGroupUrls));
  });

  it('keeps a pool etag (a UUID) while the pool is unchanged, and the cluster etag through pool changes', async () => {
    const pool0 = (await h.get(`${LOC}/clusters/c1/nodePools/np1`)).body;
    const cluster0 = (await h.get(`${LOC}/clusters/c1`)).body;
    expect(pool0.etag).toMatch(UUID4);
    expect((await h.get(`${LOC}/clusters/c1/nodePools/np1`)).body.etag).toBe(pool0.etag);
    const res = await h.put(`${LOC}/clusters/c1`, {
      update: { desiredNodePoolId: 'np1', desiredNodePoolAutoscaling: { enabled: true, maxNodeCount: 5 } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.targetLink).toMatch(/\/clusters\/c1\/nodePools\/np1$/);
    await h.advance('3s');
    const pool1 = (await h.get(`${LOC}/clusters/c1/nodePools/np1`)).body;
    expect(pool1.etag).toMatch(UUID4);
    expect(pool1.etag).not.toBe(pool0.etag);
    expect((await h.get(`${LOC}/clusters/c1`)).body.etag).toBe(cluster0.etag);
  });

  it('gives seeded clusters the same shape as created ones', async () => {
    const cluster = (await h.get(`${LOC}/clusters/c1`)).body;
    expect(cluster).toMatchObject({
      network: 'default',
      networkConfig: { network: 'projects/p1/global/networks/default' },
      ipAllocationPolicy: { useIpAliases: true, stackType: 'IPV4' },
      shieldedNodes: { enabled: true },
      currentNodeCount: 3,
    });
    expect(cluster.initialNodeCount).toBeUndefined();
    expect(cluster.nodePools[0].networkConfig.podRange).toBe(
      cluster.ipAllocationPolicy.clusterSecondaryRangeName,
    );
    expect(cluster.instanceGroupUrls).toEqual(cluster.nodePools[0].instanceGroupUrls);
  });

  it('keeps the whole cluster shape through a state export and import', async () => {
    const snapshot = (await h.request('GET', '/_sim/state', { token: null })).body;
    const other = createHarness();
    const put = await other.request('PUT', '/_sim/state', { token: null, body: snapshot });
    expect(put.status, put.text).toBe(200);
    expect((await other.get(`${LOC}/clusters/c1`)).body).toEqual((await h.get(`${LOC}/clusters/c1`)).body);
    other.close();
  });

  it('gives the clusters of one network pod ranges that do not overlap', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `n${i}`);
    for (const name of names) {
      const res = await h.post(`${LOC}/clusters`, { cluster: { name, initialNodeCount: 1 } });
      expect(res.status, res.text).toBe(200);
    }
    const clusters = (await h.get(`${LOC}/clusters`)).body.clusters as {
      name: string;
      clusterIpv4Cidr: string;
      networkConfig: { network: string };
    }[];
    const inDefault = clusters.filter(
      (c) => c.networkConfig.network === 'projects/p1/global/networks/default',
    );
    expect(inDefault.length).toBeGreaterThanOrEqual(names.length);
    const cidrs = inDefault.map((c) => c.clusterIpv4Cidr);
    for (const cidr of cidrs) expect(cidr).toMatch(/^10\.\d+\.0\.0\/14$/);
    expect(new Set(cidrs).size).toBe(cidrs.length);
  });

  it('keeps clear of a pod range a cluster was given, not only of the ranges chosen', async () => {
    const big = await h.post(`${LOC}/clusters`, {
      cluster: { name: 'big', initialNodeCount: 1, clusterIpv4Cidr: '10.0.0.0/9' },
    });
    expect(big.status, big.text).toBe(200);
    for (const name of ['m1', 'm2', 'm3', 'm4', 'm5']) {
      const res = await h.post(`${LOC}/clusters`, { cluster: { name, initialNodeCount: 1 } });
      expect(res.status, res.text).toBe(200);
      const cidr = (await h.get(`${LOC}/clusters/${name}`)).body.clusterIpv4Cidr as string;
      // 10.0.0.0/9 holds 10.0-10.127: a chosen /14 starts at 10.128 or above.
      expect(Number(cidr.split('.')[1]), cidr).toBeGreaterThanOrEqual(128);
    }
  });

  it('changes the label fingerprint with the labels', async () => {
    await h.seed({ clusters: [{ ...aCluster('c2').build(), resourceLabels: { x: '1' } }] });
    const a = (await h.get(`${LOC}/clusters/c1`)).body.labelFingerprint;
    const b = (await h.get(`${LOC}/clusters/c2`)).body.labelFingerprint;
    // GKE's fingerprint of no labels, as every public describe of an unlabelled cluster shows it.
    expect(a).toBe('a9dc16a7');
    expect(b).toMatch(/^[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
  });
});
