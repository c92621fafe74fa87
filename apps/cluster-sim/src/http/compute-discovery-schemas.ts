import type { DiscoverySchema } from './discovery-document-schemas';

/**
 * The `schemas` of the Compute document: the messages the slice's methods name and every message those
 * reach, each with the fields the slice writes (src/compute/), by Google's names and types (Compute v1's
 * discovery document: uint64 ids and int64s are strings with their format, fingerprints `byte`, counts
 * int32). Fields the slice never writes are left out: a client reading the document learns what it will
 * get. test/discovery-compute.test.ts checks every field against `@googleapis/compute`'s types and every
 * field a served answer carries against these schemas.
 */

const str: DiscoverySchema = { type: 'string' };
const int32: DiscoverySchema = { type: 'integer', format: 'int32' };
const bool: DiscoverySchema = { type: 'boolean' };
const uint64: DiscoverySchema = { type: 'string', format: 'uint64' };
const bytes: DiscoverySchema = { type: 'string', format: 'byte' };
const ref = (name: string): DiscoverySchema => ({ $ref: name });
const list = (items: DiscoverySchema): DiscoverySchema => ({ type: 'array', items });
const kind = (value: string): DiscoverySchema => ({ type: 'string', default: value });

/** A list's envelope (`kind`, `id`, `items`, `nextPageToken`, `selfLink`). */
const listOf = (kindValue: string, items: DiscoverySchema): Record<string, DiscoverySchema> => ({
  id: str,
  items,
  kind: kind(kindValue),
  nextPageToken: str,
  selfLink: str,
});

const PROPERTIES: Readonly<Record<string, Record<string, DiscoverySchema>>> = {
  FixedOrPercent: { calculated: int32, fixed: int32, percent: int32 },
  Instance: {
    creationTimestamp: str,
    id: uint64,
    kind: kind('compute#instance'),
    labels: { type: 'object', additionalProperties: str },
    machineType: str,
    metadata: ref('Metadata'),
    name: str,
    selfLink: str,
    status: str,
    zone: str,
  },
  InstanceGroup: {
    creationTimestamp: str,
    description: str,
    fingerprint: bytes,
    id: uint64,
    kind: kind('compute#instanceGroup'),
    name: str,
    network: str,
    selfLink: str,
    size: int32,
    subnetwork: str,
    zone: str,
  },
  InstanceGroupManager: {
    baseInstanceName: str,
    creationTimestamp: str,
    currentActions: ref('InstanceGroupManagerActionsSummary'),
    fingerprint: bytes,
    id: uint64,
    instanceGroup: str,
    instanceTemplate: str,
    kind: kind('compute#instanceGroupManager'),
    listManagedInstancesResults: { type: 'string', enum: ['PAGELESS', 'PAGINATED'] },
    name: str,
    selfLink: str,
    status: ref('InstanceGroupManagerStatus'),
    targetSize: int32,
    updatePolicy: ref('InstanceGroupManagerUpdatePolicy'),
    versions: list(ref('InstanceGroupManagerVersion')),
    zone: str,
  },
  InstanceGroupManagerActionsSummary: Object.fromEntries(
    [
      'abandoning',
      'creating',
      'creatingWithoutRetries',
      'deleting',
      'none',
      'recreating',
      'refreshing',
      'restarting',
      'resuming',
      'starting',
      'stopping',
      'suspending',
      'verifying',
    ].map((action) => [action, int32]),
  ),
  InstanceGroupManagerAggregatedList: listOf('compute#instanceGroupManagerAggregatedList', {
    type: 'object',
    additionalProperties: ref('InstanceGroupManagersScopedList'),
  }),
  InstanceGroupManagerList: listOf('compute#instanceGroupManagerList', list(ref('InstanceGroupManager'))),
  InstanceGroupManagerStatus: {
    isStable: bool,
    stateful: ref('InstanceGroupManagerStatusStateful'),
    versionTarget: ref('InstanceGroupManagerStatusVersionTarget'),
  },
  InstanceGroupManagerStatusStateful: {
    hasStatefulConfig: bool,
    perInstanceConfigs: ref('InstanceGroupManagerStatusStatefulPerInstanceConfigs'),
  },
  InstanceGroupManagerStatusStatefulPerInstanceConfigs: { allEffective: bool },
  InstanceGroupManagerStatusVersionTarget: { isReached: bool },
  InstanceGroupManagerUpdatePolicy: {
    instanceRedistributionType: str,
    maxSurge: ref('FixedOrPercent'),
    maxUnavailable: ref('FixedOrPercent'),
    minimalAction: str,
    replacementMethod: str,
    type: str,
  },
  InstanceGroupManagerVersion: { instanceTemplate: str, name: str, targetSize: ref('FixedOrPercent') },
  InstanceGroupManagersListManagedInstancesResponse: {
    managedInstances: list(ref('ManagedInstance')),
    nextPageToken: str,
  },
  InstanceGroupManagersScopedList: { instanceGroupManagers: list(ref('InstanceGroupManager')) },
  InstanceGroupsListInstances: listOf(
    'compute#instanceGroupsListInstances',
    list(ref('InstanceWithNamedPorts')),
  ),
  InstanceGroupsListInstancesRequest: { instanceState: { type: 'string', enum: ['ALL', 'RUNNING'] } },
  InstanceList: listOf('compute#instanceList', list(ref('Instance'))),
  InstanceWithNamedPorts: { instance: str, status: str },
  ManagedInstance: {
    currentAction: str,
    id: uint64,
    instance: str,
    instanceStatus: str,
    name: str,
    version: ref('ManagedInstanceVersion'),
  },
  ManagedInstanceVersion: { instanceTemplate: str, name: str },
  Metadata: {
    items: list({ type: 'object', properties: { key: str, value: str } }),
    kind: kind('compute#metadata'),
  },
};

/** The Compute document's schemas: each named message with its `id`, `type: object` and properties. */
export function computeSchemas(): Record<string, DiscoverySchema> {
  return Object.fromEntries(
    Object.entries(PROPERTIES).map(([id, properties]) => [id, { id, type: 'object', properties }]),
  );
}
