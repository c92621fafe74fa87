import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import * as schema from '../src/index';
import {
  betaOnlyFields,
  Cluster,
  ClusterUpdate,
  CreateClusterRequest,
  enumNumbers,
  enumTypeName,
  NodeConfig,
  NodePool,
  WindowsOsVersion,
} from '../src/index';

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..');
const GENERATED = join(PACKAGE, 'src', 'generated', 'cluster.generated.ts');

interface ProtoNode {
  nested?: Record<string, ProtoNode>;
  values?: Record<string, number>;
  fields?: Record<string, unknown>;
}

function protoTypes(): Map<string, ProtoNode> {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('@google-cloud/container/package.json');
  const root = JSON.parse(readFileSync(join(dirname(pkg), 'build', 'protos', 'protos.json'), 'utf8'));
  const types = new Map<string, ProtoNode>();
  const index = (ns: ProtoNode, prefix: string) => {
    for (const [name, node] of Object.entries(ns.nested ?? {})) {
      const full = prefix ? `${prefix}.${name}` : name;
      if (node.fields || node.values) types.set(full, node);
      index(node, full);
    }
  };
  index(root, '');
  return types;
}

/** The 13 Cluster fields a real create request carries that the hand-written Cluster lacked. */
const REAL_CREATE = {
  name: 'c9',
  initialNodeCount: 1,
  autopilot: { enabled: false },
  autoscaling: { enableNodeAutoprovisioning: false, autoscalingProfile: 'BALANCED' },
  binaryAuthorization: { evaluationMode: 'DISABLED' },
  controlPlaneEndpointsConfig: {
    dnsEndpointConfig: { allowExternalTraffic: false },
    ipEndpointsConfig: { enabled: true, enablePublicEndpoint: true },
  },
  ipAllocationPolicy: { useIpAliases: true, clusterIpv4CidrBlock: '/14', stackType: 'IPV4' },
  legacyAbac: { enabled: false },
  loggingService: 'logging.googleapis.com/kubernetes',
  maintenancePolicy: { window: { dailyMaintenanceWindow: { startTime: '03:00' } } },
  monitoringService: 'monitoring.googleapis.com/kubernetes',
  networkConfig: { enableIntraNodeVisibility: true, datapathProvider: 'ADVANCED_DATAPATH' },
  networkPolicy: { enabled: false, provider: 'PROVIDER_UNSPECIFIED' },
  notificationConfig: { pubsub: { enabled: false } },
  shieldedNodes: { enabled: true },
};

describe('the generated Cluster', () => {
  it('is what the generator writes now', () => {
    const fresh = execFileSync(process.execPath, ['scripts/generate-proto.mjs', '--stdout'], {
      cwd: PACKAGE,
      encoding: 'utf8',
    });
    expect(readFileSync(GENERATED, 'utf8')).toBe(fresh);
  });

  it('parses the fields a real create request carries', () => {
    const parsed = CreateClusterRequest.safeParse({ parent: 'projects/p/locations/l', cluster: REAL_CREATE });
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data?.cluster).toEqual(REAL_CREATE);
    for (const field of Object.keys(REAL_CREATE)) expect(Object.keys(Cluster.shape)).toContain(field);
  });

  it('keeps the fields of the hand-written Cluster, and reuses NodeConfig and NodePool', () => {
    const old = [
      'name',
      'description',
      'initialNodeCount',
      'nodeConfig',
      'network',
      'subnetwork',
      'clusterIpv4Cidr',
      'nodePools',
      'locations',
      'resourceLabels',
      'labelFingerprint',
      'releaseChannel',
      'selfLink',
      'zone',
      'endpoint',
      'initialClusterVersion',
      'currentMasterVersion',
      'currentNodeVersion',
      'createTime',
      'status',
      'statusMessage',
      'nodeIpv4CidrSize',
      'servicesIpv4Cidr',
      'currentNodeCount',
      'expireTime',
      'location',
      'conditions',
      'etag',
      'id',
    ];
    expect(Object.keys(Cluster.shape)).toEqual(expect.arrayContaining(old));
    expect(Cluster.shape.nodeConfig.unwrap()).toBe(NodeConfig);
    expect(Cluster.shape.nodePools.unwrap().element).toBe(NodePool);
    // Typed like before: the simulator's ClusterShape is z.infer<typeof Cluster>.
    const shape: z.infer<typeof Cluster> = { status: 'RUNNING', releaseChannel: { channel: 'REGULAR' } };
    expect(Cluster.parse(shape)).toEqual(shape);
  });

  it('refuses a wrong enum value and a wrong type in a generated message', () => {
    expect(Cluster.safeParse({ binaryAuthorization: { evaluationMode: 'SOMETIMES' } }).success).toBe(false);
    expect(Cluster.safeParse({ legacyAbac: { enabled: 'yes' } }).success).toBe(false);
  });

  it('types ClusterUpdate with every field of the proto message, v1beta1-only ones marked', () => {
    const types = protoTypes();
    const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    const fieldsOf = (version: string) =>
      Object.keys(types.get(`google.container.${version}.ClusterUpdate`)?.fields ?? {}).map(camel);
    const beta = fieldsOf('v1beta1');
    const v1 = new Set(fieldsOf('v1'));
    expect(beta.length).toBeGreaterThan(80);
    expect(Object.keys(ClusterUpdate.shape).sort()).toEqual([...beta].sort());
    expect([...(betaOnlyFields(ClusterUpdate) ?? [])].sort()).toEqual(beta.filter((f) => !v1.has(f)).sort());
  });

  it('records the fields v1 lacks', () => {
    expect(betaOnlyFields(Cluster)?.has('master')).toBe(true);
    expect(betaOnlyFields(Cluster)?.has('autopilot')).toBe(false);
    expect(betaOnlyFields(NodeConfig)?.has('ephemeralStorageConfig')).toBe(true);
  });
});

describe('enum type names', () => {
  it('names every hand-written enum by its proto type, with the same numbers', () => {
    const types = protoTypes();
    expect(enumTypeName(WindowsOsVersion)).toBe('google.container.v1beta1.WindowsNodeConfig.OSVersion');
    const enums = Object.entries(schema).filter(([, v]) => enumNumbers(v as z.ZodType) !== undefined);
    expect(enums.length).toBeGreaterThan(25);
    for (const [name, value] of enums) {
      const typeName = enumTypeName(value as z.ZodType);
      expect(typeName, name).toBeDefined();
      const proto = types.get(typeName as string);
      expect(proto?.values, `${name}: ${typeName}`).toBeDefined();
      // Every hand-written value is the proto's (the proto may have newer ones).
      for (const [valueName, n] of Object.entries(enumNumbers(value as z.ZodType) ?? {})) {
        expect(proto?.values?.[valueName], `${name}.${valueName}`).toBe(n);
      }
    }
  });

  it('names the generated enums too', () => {
    const autoscaling = Cluster.shape.autoscaling.unwrap();
    const profile = autoscaling.shape.autoscalingProfile.unwrap();
    expect(enumTypeName(profile)).toBe('google.container.v1beta1.ClusterAutoscaling.AutoscalingProfile');
    expect(enumNumbers(profile)?.BALANCED).toBe(2);
  });
});
