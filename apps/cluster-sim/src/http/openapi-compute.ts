import { type ComputeRouteEntry, computeRouteEntries } from './compute-routes';

/**
 * The Compute Engine slice's rows in the OpenAPI document: each row's path and method under its
 * operation name, Compute's list parameters where the method takes them, its request and response
 * messages by Compute's schema names (the fields the slice answers), Compute's error envelope.
 */

const str = { type: 'string' };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const obj = (kind: string | undefined, properties: Record<string, unknown>) => ({
  type: 'object',
  properties: kind ? { kind: { const: kind }, ...properties } : properties,
});
const list = (kind: string, item: string) =>
  obj(kind, { id: str, items: { type: 'array', items: ref(item) }, nextPageToken: str, selfLink: str });

/** The messages the slice answers, with the fields it fills (Compute's discovery document has the rest). */
const SCHEMAS: Readonly<Record<string, unknown>> = {
  InstanceGroupManager: obj('compute#instanceGroupManager', {
    id: { type: 'string', pattern: '^\\d+$' },
    creationTimestamp: str,
    name: str,
    zone: str,
    selfLink: str,
    instanceGroup: str,
    instanceTemplate: str,
    versions: { type: 'array', items: { type: 'object' } },
    baseInstanceName: str,
    fingerprint: str,
    targetSize: int,
    currentActions: { type: 'object', additionalProperties: int },
    status: { type: 'object' },
    updatePolicy: { type: 'object' },
    listManagedInstancesResults: { enum: ['PAGELESS', 'PAGINATED'] },
  }),
  InstanceGroupManagerList: list('compute#instanceGroupManagerList', 'InstanceGroupManager'),
  InstanceGroupManagerAggregatedList: obj('compute#instanceGroupManagerAggregatedList', {
    id: str,
    items: {
      type: 'object',
      additionalProperties: obj(undefined, {
        instanceGroupManagers: { type: 'array', items: ref('InstanceGroupManager') },
      }),
    },
    nextPageToken: str,
    selfLink: str,
  }),
  ManagedInstance: obj(undefined, { instance: str, id: str, instanceStatus: str, currentAction: str }),
  InstanceGroupManagersListManagedInstancesResponse: obj(undefined, {
    managedInstances: { type: 'array', items: ref('ManagedInstance') },
    nextPageToken: str,
  }),
  InstanceGroup: obj('compute#instanceGroup', {
    id: str,
    name: str,
    zone: str,
    selfLink: str,
    size: int,
    network: str,
    subnetwork: str,
    fingerprint: str,
  }),
  InstanceGroupsListInstancesRequest: obj(undefined, { instanceState: { enum: ['ALL', 'RUNNING'] } }),
  InstanceWithNamedPorts: obj(undefined, { instance: str, status: str }),
  InstanceGroupsListInstances: list('compute#instanceGroupsListInstances', 'InstanceWithNamedPorts'),
  Instance: obj('compute#instance', {
    id: str,
    name: str,
    zone: str,
    selfLink: str,
    status: str,
    machineType: str,
    labels: { type: 'object', additionalProperties: str },
    metadata: { type: 'object' },
  }),
  InstanceList: list('compute#instanceList', 'Instance'),
  ComputeError: obj(undefined, {
    error: obj(undefined, {
      code: int,
      message: str,
      errors: {
        type: 'array',
        items: obj(undefined, { message: str, domain: str, reason: str }),
      },
    }),
  }),
};

/** Compute's list parameters (its discovery document's, on every list method the slice serves). */
const LIST_PARAMETERS = [
  { name: 'filter', schema: str },
  { name: 'maxResults', schema: { ...int, minimum: 0, maximum: 500 } },
  { name: 'orderBy', schema: str },
  { name: 'pageToken', schema: str },
  { name: 'returnPartialSuccess', schema: bool },
].map((p) => ({ ...p, in: 'query', required: false }));

/**
 * Adds the Compute rows to `paths` and their messages to `components`; `systemParameters` are the
 * references to Google's system parameters every GET declares.
 */
export function addComputePaths(
  paths: Record<string, Record<string, unknown>>,
  components: Record<string, unknown>,
  systemParameters: readonly unknown[],
  entries: readonly ComputeRouteEntry[] = computeRouteEntries(),
): void {
  for (const [name, schema] of Object.entries(SCHEMAS)) components[name] ??= schema;
  for (const { method, path, operation, doc } of entries) {
    const parameters = [...(doc.list ? LIST_PARAMETERS : []), ...(method === 'get' ? systemParameters : [])];
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[method] = {
      operationId: operation,
      summary: `Compute Engine ${operation.replace(/^compute\./, '')} (the node pools' managed instance groups)`,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(doc.request
        ? { requestBody: { required: false, content: { 'application/json': { schema: ref(doc.request) } } } }
        : {}),
      responses: {
        200: { description: doc.response, content: { 'application/json': { schema: ref(doc.response) } } },
        default: {
          description: "Compute's error envelope (no status or details)",
          content: { 'application/json': { schema: ref('ComputeError') } },
        },
      },
    };
  }
}
