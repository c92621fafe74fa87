#!/usr/bin/env node
/**
 * Writes src/generated/cluster.generated.ts: zod schemas of `google.container.v1beta1.Cluster` and of every
 * message and enum it reaches, read from the proto descriptor JSON that `@google-cloud/container` ships
 * (build/protos/protos.json), in the proto3 JSON mapping (lowerCamelCase names, enums by name with their
 * numbers, int64 as strings, Duration and Timestamp as strings, wrappers as their scalar).
 *
 * Messages and enums written by hand (OVERRIDES) are imported instead of generated, so the node pool
 * shapes the simulator acts on keep one definition. Each message also records its fields that v1 lacks
 * (`markBetaOnly`), so a v1 request carrying one can be refused as an unknown name, and its oneofs
 * (`markOneofs`: the oneof's proto name and its members), so a second member of one oneof can be refused.
 *
 * Every generated message but the root is made on first use (`once`), and a field holding a message or an
 * enum is a getter: importing the package builds one object, not hundreds.
 *
 * Usage: node scripts/generate-proto.mjs           (writes the file)
 *        node scripts/generate-proto.mjs --stdout  (prints what it would write)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, '..', 'src', 'generated', 'cluster.generated.ts');

const require = createRequire(import.meta.url);
const PACKAGE_JSON = require.resolve('@google-cloud/container/package.json');
const PACKAGE_VERSION = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')).version;
const PROTOS = JSON.parse(
  readFileSync(join(dirname(PACKAGE_JSON), 'build', 'protos', 'protos.json'), 'utf8'),
);

const ROOT = 'google.container.v1beta1.Cluster';
const BETA = 'google.container.v1beta1.';
const V1 = 'google.container.v1.';

/** Hand-written messages the generated ones reuse: full proto name → [module, export]. */
const MESSAGE_OVERRIDES = {
  'google.container.v1beta1.NodePool': ['../node-pool', 'NodePool'],
  'google.container.v1beta1.NodePoolAutoscaling': ['../node-pool', 'NodePoolAutoscaling'],
  'google.container.v1beta1.NodeManagement': ['../node-pool', 'NodeManagement'],
  'google.container.v1beta1.StatusCondition': ['../node-pool', 'StatusCondition'],
  'google.container.v1beta1.NodeConfig': ['../node-config', 'NodeConfig'],
  'google.container.v1beta1.WorkloadMetadataConfig': ['../node-config', 'WorkloadMetadataConfig'],
  'google.container.v1beta1.BlueGreenSettings': ['../node-config', 'BlueGreenSettings'],
  'google.container.v1beta1.BlueGreenSettings.StandardRolloutPolicy': [
    '../node-config',
    'StandardRolloutPolicy',
  ],
  'google.container.v1beta1.BlueGreenSettings.AutoscaledRolloutPolicy': [
    '../node-config',
    'AutoscaledRolloutPolicy',
  ],
  'google.container.v1beta1.NodePool.UpgradeSettings': ['../node-config', 'UpgradeSettings'],
  'google.container.v1beta1.NodePool.QueuedProvisioning': ['../node-config', 'QueuedProvisioning'],
  'google.container.v1beta1.NodePool.NodeDrainConfig': ['../node-config', 'NodeDrainConfig'],
  'google.container.v1beta1.NodePool.NodePoolMaintenancePolicy': [
    '../node-config',
    'NodePoolMaintenancePolicy',
  ],
  'google.container.v1beta1.NetworkTags': ['../node-config', 'NetworkTags'],
  'google.container.v1beta1.NodeTaint': ['../node-config', 'NodeTaint'],
  'google.container.v1beta1.NodeTaints': ['../node-config', 'NodeTaints'],
  'google.container.v1beta1.NodeLabels': ['../node-config', 'NodeLabels'],
  'google.container.v1beta1.ResourceLabels': ['../node-config', 'ResourceLabels'],
  'google.container.v1beta1.ResourceManagerTags': ['../node-config', 'ResourceManagerTags'],
  'google.container.v1beta1.LinuxNodeConfig': ['../node-config', 'LinuxNodeConfig'],
  'google.container.v1beta1.NodeKubeletConfig': ['../node-config', 'NodeKubeletConfig'],
  'google.container.v1beta1.NodeNetworkConfig': ['../node-config', 'NodeNetworkConfig'],
  'google.container.v1beta1.GcfsConfig': ['../node-config', 'GcfsConfig'],
  'google.container.v1beta1.ConfidentialNodes': ['../node-config', 'ConfidentialNodes'],
  'google.container.v1beta1.VirtualNIC': ['../node-config', 'VirtualNIC'],
  'google.container.v1beta1.FastSocket': ['../node-config', 'FastSocket'],
  'google.container.v1beta1.NodePoolLoggingConfig': ['../node-config', 'NodePoolLoggingConfig'],
  'google.container.v1beta1.WindowsNodeConfig': ['../node-config', 'WindowsNodeConfig'],
  'google.container.v1beta1.AcceleratorConfig': ['../node-config', 'AcceleratorConfig'],
  'google.container.v1beta1.ContainerdConfig': ['../node-config', 'ContainerdConfig'],
  'google.container.v1beta1.BootDisk': ['../node-config', 'BootDisk'],
  'google.container.v1beta1.TaintConfig': ['../node-config', 'TaintConfig'],
  'google.container.v1beta1.ShieldedInstanceConfig': ['../node-config', 'ShieldedInstanceConfig'],
};

/** Hand-written enums (src/enums.ts) the generated messages reuse: full proto name → export. */
const ENUM_OVERRIDES = {
  'google.container.v1beta1.Operation.Status': 'OperationStatus',
  'google.container.v1beta1.Operation.Type': 'OperationType',
  'google.container.v1beta1.NodePool.Status': 'NodePoolStatus',
  'google.container.v1beta1.Cluster.Status': 'ClusterStatus',
  'google.container.v1beta1.ReleaseChannel.Channel': 'ReleaseChannelName',
  'google.container.v1beta1.NodeTaint.Effect': 'TaintEffect',
  'google.container.v1beta1.WorkloadMetadataConfig.Mode': 'WorkloadMetadataMode',
  'google.container.v1beta1.WorkloadMetadataConfig.NodeMetadata': 'NodeMetadata',
  'google.container.v1beta1.NodePoolUpdateStrategy': 'NodePoolUpdateStrategy',
  'google.container.v1beta1.LinuxNodeConfig.CgroupMode': 'CgroupMode',
  'google.container.v1beta1.NodeConfig.EffectiveCgroupMode': 'EffectiveCgroupMode',
  'google.container.v1beta1.LinuxNodeConfig.TransparentHugepageEnabled': 'TransparentHugepageEnabled',
  'google.container.v1beta1.LinuxNodeConfig.TransparentHugepageDefrag': 'TransparentHugepageDefrag',
  'google.container.v1beta1.LinuxNodeConfig.NodeKernelModuleLoading.Policy': 'KernelModuleLoadingPolicy',
  'google.container.v1beta1.NodeNetworkConfig.NetworkPerformanceConfig.Tier': 'NetworkTier',
  'google.container.v1beta1.ConfidentialNodes.ConfidentialInstanceType': 'ConfidentialInstanceType',
  'google.container.v1beta1.LoggingVariantConfig.Variant': 'LoggingVariant',
  'google.container.v1beta1.WindowsNodeConfig.OSVersion': 'WindowsOsVersion',
  'google.container.v1beta1.GPUSharingConfig.GPUSharingStrategy': 'GpuSharingStrategy',
  'google.container.v1beta1.GPUDriverInstallationConfig.GPUDriverVersion': 'GpuDriverVersion',
  'google.container.v1beta1.ContainerdConfig.RegistryHostConfig.HostCapability': 'HostCapability',
  'google.container.v1beta1.TaintConfig.ArchitectureTaintBehavior': 'ArchitectureTaintBehavior',
  'google.container.v1beta1.NodePoolAutoscaling.LocationPolicy': 'LocationPolicy',
  'google.container.v1beta1.NodePool.PlacementPolicy.Type': 'PlacementType',
  'google.container.v1beta1.NodePool.UpdateInfo.BlueGreenInfo.Phase': 'BlueGreenPhase',
  'google.container.v1beta1.StatusCondition.Code': 'StatusConditionCode',
  'google.rpc.Code': 'RpcCode',
};

/** Scalars: the optional schema every field of the type shares, and the element schema in a list or map. */
const SCALARS = {
  string: { shared: 'optString', element: 'z.string()' },
  bytes: { shared: 'optString', element: 'z.string()' },
  bool: { shared: 'optBool', element: 'z.boolean()' },
  double: { shared: 'optNumber', element: 'z.number()' },
  float: { shared: 'optNumber', element: 'z.number()' },
  int32: { shared: 'optInt32', element: 'int32' },
  sint32: { shared: 'optInt32', element: 'int32' },
  sfixed32: { shared: 'optInt32', element: 'int32' },
  uint32: { shared: 'optInt32', element: 'int32' },
  fixed32: { shared: 'optInt32', element: 'int32' },
  int64: { shared: 'optInt64', element: 'int64' },
  sint64: { shared: 'optInt64', element: 'int64' },
  sfixed64: { shared: 'optInt64', element: 'int64' },
  uint64: { shared: 'optInt64', element: 'int64' },
  fixed64: { shared: 'optInt64', element: 'int64' },
};

/** Well-known messages written as their JSON form. */
const WELL_KNOWN = {
  'google.protobuf.Duration': { shared: 'optDuration', element: 'duration' },
  'google.protobuf.Timestamp': { shared: 'optTimestamp', element: 'timestamp' },
  'google.protobuf.BoolValue': SCALARS.bool,
  'google.protobuf.StringValue': SCALARS.string,
  'google.protobuf.BytesValue': SCALARS.bytes,
  'google.protobuf.DoubleValue': SCALARS.double,
  'google.protobuf.FloatValue': SCALARS.float,
  'google.protobuf.Int32Value': SCALARS.int32,
  'google.protobuf.UInt32Value': SCALARS.uint32,
  'google.protobuf.Int64Value': SCALARS.int64,
  'google.protobuf.UInt64Value': SCALARS.uint64,
};

const SHARED = {
  optString: 'z.string().optional()',
  optBool: 'z.boolean().optional()',
  optNumber: 'z.number().optional()',
  optInt32: 'int32.optional()',
  optInt64: 'int64.optional()',
  optDuration: 'duration.optional()',
  optTimestamp: 'timestamp.optional()',
  optStrings: 'z.array(z.string()).optional()',
  optStringMap: 'z.record(z.string(), z.string()).optional()',
};

/** Every message and enum of the descriptor by full name. */
const TYPES = new Map();
(function index(ns, prefix) {
  for (const [name, node] of Object.entries(ns.nested ?? {})) {
    const full = prefix ? `${prefix}.${name}` : name;
    if (node.fields || node.values) TYPES.set(full, node);
    index(node, full);
  }
})(PROTOS, '');

/** A type name as written in a message resolved like protoc does: innermost scope first. */
function resolve(name, scope) {
  if (name.startsWith('.')) return name.slice(1);
  const parts = scope.split('.');
  for (let i = parts.length; i >= 0; i--) {
    const candidate = [...parts.slice(0, i), name].join('.');
    if (TYPES.has(candidate)) return candidate;
  }
  throw new Error(`cannot resolve ${name} in ${scope}`);
}

const jsonName = (key, field) => field.options?.json_name ?? key;

/** The proto source of each package the descriptor came from, to check oneof names against. */
const PROTO_SOURCES = ['v1beta1', 'v1']
  .map((v) =>
    join(dirname(PACKAGE_JSON), 'build', 'protos', 'google', 'container', v, 'cluster_service.proto'),
  )
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');

/**
 * The oneofs of a message that can clash (two members or more): proto name → members' JSON names. The
 * descriptor spells a oneof's name in lowerCamelCase; the front end's error names it as the .proto does
 * (`oneof field 'rollout_policy' is already set`), so the snake_case name is checked against the source.
 * A proto3 `optional` field's synthetic oneof has a single member and is left out.
 */
function oneofsOf(full) {
  const node = TYPES.get(full);
  const out = [];
  for (const [camel, { oneof }] of Object.entries(node.oneofs ?? {})) {
    if (oneof.length < 2) continue;
    const name = camel.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);
    if (!new RegExp(`\\boneof ${name} \\{`).test(PROTO_SOURCES)) {
      throw new Error(`oneof ${camel} of ${full}: no \`oneof ${name}\` in the .proto`);
    }
    out.push([name, oneof.map((member) => jsonName(member, node.fields[member]))]);
  }
  return out;
}

function oneofLiteral(oneofs) {
  return `{ ${oneofs.map(([name, members]) => `${name}: ${quotedList(members)}`).join(', ')} }`;
}

/** The identifier of a generated message or enum: its name below the package, dots as underscores. */
function ident(full) {
  const local = full.startsWith(BETA) ? full.slice(BETA.length) : full;
  return local.replaceAll('.', '_');
}

// The closure of the root: what is generated (not behind an override) and what is reached at all.
const generated = new Set();
const reached = new Set();
(function visit(root) {
  const stack = [[root, true]];
  while (stack.length > 0) {
    const [full, generate] = stack.pop();
    const key = `${full}|${generate}`;
    if (reached.has(key)) continue;
    reached.add(key);
    if (WELL_KNOWN[full]) continue;
    const own = generate && !MESSAGE_OVERRIDES[full] && !ENUM_OVERRIDES[full];
    if (own) generated.add(full);
    const node = TYPES.get(full);
    if (!node) throw new Error(`unknown type ${full}`);
    if (!node.fields) continue;
    if (full.startsWith('google.protobuf.')) throw new Error(`no mapping for well-known type ${full}`);
    for (const field of Object.values(node.fields)) {
      if (SCALARS[field.type]) continue;
      stack.push([resolve(field.type, full), own]);
    }
  }
})(ROOT);
const reachedNames = new Set([...reached].map((k) => k.split('|')[0]));

/** The schema expression of a field's value (not optional), and whether it must wait for first use. */
function valueSchema(field, scope, usedEnums, usedMessages) {
  if (SCALARS[field.type]) return { expr: SCALARS[field.type].element, lazy: false };
  const full = resolve(field.type, scope);
  if (WELL_KNOWN[full]) return { expr: WELL_KNOWN[full].element, lazy: false };
  if (ENUM_OVERRIDES[full]) {
    usedEnums.add(ENUM_OVERRIDES[full]);
    return { expr: ENUM_OVERRIDES[full], lazy: true };
  }
  if (MESSAGE_OVERRIDES[full]) {
    usedMessages.add(full);
    return { expr: MESSAGE_OVERRIDES[full][1], lazy: true };
  }
  return { expr: `${ident(full)}()`, lazy: true };
}

/** The property of a field in its message's shape. */
function property(key, field, scope, usedEnums, usedMessages) {
  const name = jsonName(key, field);
  const quoted = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
  const single = SCALARS[field.type] ?? WELL_KNOWN[resolveOrNull(field.type, scope)];
  if (field.rule !== 'repeated' && field.keyType === undefined && single)
    return [`${quoted}: ${single.shared},`];
  if (field.rule === 'repeated' && (field.type === 'string' || field.type === 'bytes')) {
    return [`${quoted}: optStrings,`];
  }
  if (field.keyType !== undefined && field.type === 'string') return [`${quoted}: optStringMap,`];
  const { expr, lazy } = valueSchema(field, scope, usedEnums, usedMessages);
  const schema =
    field.rule === 'repeated'
      ? `z.array(${expr}).optional()`
      : field.keyType !== undefined
        ? `z.record(z.string(), ${expr}).optional()`
        : `${expr}.optional()`;
  return lazy ? [`get ${quoted}() {`, `  return ${schema};`, '},'] : [`${quoted}: ${schema},`];
}

function resolveOrNull(name, scope) {
  return SCALARS[name] ? null : resolve(name, scope);
}

/** The fields (JSON names) of a v1beta1 message the v1 message of the same name lacks. */
function betaOnly(full) {
  if (!full.startsWith(BETA)) return [];
  const v1 = TYPES.get(V1 + full.slice(BETA.length));
  if (!v1?.fields) return [];
  const have = new Set(Object.entries(v1.fields).map(([k, f]) => jsonName(k, f)));
  return Object.entries(TYPES.get(full).fields)
    .map(([k, f]) => jsonName(k, f))
    .filter((n) => !have.has(n));
}

function quotedList(names) {
  return `[${names.map((n) => `'${n}'`).join(', ')}]`;
}

function enumLiteral(values, indent) {
  const entries = Object.entries(values).map(([k, v]) => `${k}: ${v}`);
  const oneLine = `{ ${entries.join(', ')} }`;
  return oneLine.length <= 100 ? oneLine : `{\n${indent}  ${entries.join(`,\n${indent}  `)},\n${indent}}`;
}

function messageExpr(full, usedEnums, usedMessages, indent) {
  const node = TYPES.get(full);
  const only = betaOnly(full);
  const oneofs = oneofsOf(full);
  // The marks around the object, outermost first: each one returns the schema it marks.
  const wrappers = [];
  if (only.length > 0) wrappers.push(['markBetaOnly', quotedList(only)]);
  if (oneofs.length > 0) wrappers.push(['markOneofs', oneofLiteral(oneofs)]);
  const inner = indent + '  '.repeat(wrappers.length);
  const lines = Object.entries(node.fields).flatMap(([k, f]) =>
    property(k, f, full, usedEnums, usedMessages),
  );
  let expr =
    lines.length === 0
      ? 'z.object({})'
      : `z.object({\n${lines.map((l) => `${inner}  ${l}`).join('\n')}\n${inner}})`;
  for (let i = wrappers.length - 1; i >= 0; i--) {
    const at = indent + '  '.repeat(i);
    const [fn, arg] = wrappers[i];
    expr = `${fn}(\n${at}  ${expr},\n${at}  ${arg},\n${at})`;
  }
  return expr;
}

export function generate() {
  const usedEnums = new Set();
  const usedMessages = new Set();
  const blocks = [];
  const sorted = [...generated].filter((n) => n !== ROOT).sort();
  for (const full of sorted) {
    const node = TYPES.get(full);
    if (node.values) {
      blocks.push(
        `/** \`${full}\` */\nconst ${ident(full)} = once(() =>\n  protoEnum(\n    ${enumLiteral(node.values, '    ')},\n    '${full}',\n  ),\n);`,
      );
    } else {
      blocks.push(
        `/** \`${full}\` */\nconst ${ident(full)} = once(() =>\n  ${messageExpr(full, usedEnums, usedMessages, '  ')},\n);`,
      );
    }
  }
  const root = messageExpr(ROOT, usedEnums, usedMessages, '');
  // The hand-written messages reached anywhere (inside a generated one or inside another hand-written one).
  const marks = Object.keys(MESSAGE_OVERRIDES)
    .filter((full) => reachedNames.has(full) && betaOnly(full).length > 0)
    .sort()
    .map((full) => `markBetaOnly(${MESSAGE_OVERRIDES[full][1]}, ${quotedList(betaOnly(full))});`);
  // Their oneofs likewise (the ones they hold inline are marked by hand where they are written).
  const oneofMarks = Object.keys(MESSAGE_OVERRIDES)
    .filter((full) => reachedNames.has(full) && oneofsOf(full).length > 0)
    .sort()
    .map((full) => `markOneofs(${MESSAGE_OVERRIDES[full][1]}, ${oneofLiteral(oneofsOf(full))});`);
  for (const full of Object.keys(MESSAGE_OVERRIDES)) {
    if (reachedNames.has(full) && (betaOnly(full).length > 0 || oneofsOf(full).length > 0)) {
      usedMessages.add(full);
    }
  }
  const byModule = new Map();
  for (const full of usedMessages) {
    const [module, name] = MESSAGE_OVERRIDES[full];
    if (!byModule.has(module)) byModule.set(module, new Set());
    byModule.get(module).add(name);
  }
  const importList = (names) => `\n  ${[...names].sort().join(',\n  ')},\n`;
  const imports = [
    "import * as z from 'zod';",
    `import {${importList(usedEnums)}} from '../enums';`,
    ...[...byModule.keys()].sort().map((m) => `import {${importList(byModule.get(m))}} from '${m}';`),
    "import { duration, int32, int64, markBetaOnly, markOneofs, protoEnum, timestamp } from '../proto';",
  ];
  const shared = Object.entries(SHARED).map(([name, expr]) => `const ${name} = ${expr};`);
  return `// Generated by packages/cluster-schema/scripts/generate-proto.mjs from @google-cloud/container ${PACKAGE_VERSION}
// (build/protos/protos.json): ${ROOT} and every message and enum it reaches (${generated.size} generated,
// the hand-written ones imported). Do not edit; run \`node scripts/generate-proto.mjs\` in packages/cluster-schema.
${imports.join('\n')}

/** Optional scalars, shared by every field of their type (zod schemas are immutable). */
${shared.join('\n')}

/** A schema made on its first use, then the same one every time. */
function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => {
    if (made === undefined) made = make();
    return made;
  };
}

// Fields that v1 lacks, of the hand-written messages reached.
${marks.join('\n')}

// Oneofs of the hand-written messages reached.
${oneofMarks.join('\n')}

${blocks.join('\n\n')}

/** \`${ROOT}\` (proto3 JSON names); every field is optional. */
export const Cluster = ${root};
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = generate();
  if (process.argv.includes('--stdout')) process.stdout.write(text);
  else {
    writeFileSync(OUT, text);
    console.log(`wrote ${OUT} (${generated.size} messages and enums)`);
  }
}
