import {
  CancelOperationRequest,
  Cluster,
  CompleteNodePoolUpgradeRequest,
  CreateClusterRequest,
  CreateNodePoolRequest,
  Empty,
  ErrorEnvelope,
  ListClustersResponse,
  ListNodePoolsResponse,
  ListOperationsResponse,
  NodePool,
  NodePoolUpgradeInfo,
  Operation,
  RollbackNodePoolUpgradeRequest,
  ServerConfig,
  SetNodePoolAutoscalingRequest,
  SetNodePoolManagementRequest,
  SetNodePoolSizeRequest,
  UpdateClusterRequest,
  UpdateNodePoolRequest,
} from '@sims/cluster-schema';
import * as z from 'zod';
import { SIMULATOR_VERSION } from '../definition';
import { addComputePaths } from './openapi-compute';
import { addDiscoveryPaths, queryParameter } from './openapi-discovery';
import { DECLARED_SYSTEM_PARAMS, MESSAGE_PARAMS } from './query-params';
import { clusterRouteEntries } from './routes/route-entries';

const SCHEMAS = {
  UpdateNodePoolRequest,
  CreateNodePoolRequest,
  CreateClusterRequest,
  UpdateClusterRequest,
  CancelOperationRequest,
  SetNodePoolSizeRequest,
  SetNodePoolManagementRequest,
  SetNodePoolAutoscalingRequest,
  RollbackNodePoolUpgradeRequest,
  CompleteNodePoolUpgradeRequest,
  NodePool,
  NodePoolUpgradeInfo,
  Cluster,
  Operation,
  ServerConfig,
  ListNodePoolsResponse,
  ListClustersResponse,
  ListOperationsResponse,
  Empty,
  Status: ErrorEnvelope,
};

type SchemaName = keyof typeof SCHEMAS;

/** What the family tables' methods do, by operationId below the version (the paths come from the rows). */
const SUMMARIES: Readonly<Record<string, string>> = {
  'nodePools.get': 'Get a node pool (with its etag)',
  'nodePools.update': 'Update a node pool: UPGRADE_NODES operation',
  'nodePools.delete': 'Delete a node pool: DELETE_NODE_POOL operation',
  'nodePools.setSize': 'Set the per-zone node count: SET_NODE_POOL_SIZE operation',
  'nodePools.setManagement': 'Set auto-upgrade and auto-repair: SET_NODE_POOL_MANAGEMENT operation',
  'nodePools.setAutoscaling': 'Set the autoscaler: UPDATE_CLUSTER operation on the pool',
  'nodePools.rollback': 'Roll back a cancelled or failed upgrade: UPGRADE_NODES operation',
  'nodePools.completeUpgrade': "End a blue-green upgrade's node pool soak now",
  'nodePools.fetchNodePoolUpgradeInfo': 'Upgrade targets and history',
  'nodePools.list': 'List node pools',
  'nodePools.create': 'Create a node pool: CREATE_NODE_POOL operation',
  'clusters.get': 'Get a cluster with its node pools',
  'clusters.update': 'Update a cluster: UPGRADE_MASTER, UPGRADE_NODES or UPDATE_CLUSTER operation',
  'clusters.delete': 'Delete a cluster: DELETE_CLUSTER operation',
  'clusters.list': 'List clusters (location "-" lists all)',
  'clusters.create': 'Create a cluster: CREATE_CLUSTER operation',
  'operations.get': 'Get an operation',
  'operations.cancel': 'Cancel an operation',
  'operations.list': 'List operations (location "-" lists all)',
  getServerConfig: 'Versions and image types',
  'zones.nodePools.setSize': 'setSize (legacy zonal form)',
  'zones.nodePools.setManagement': 'setManagement (legacy zonal form)',
  'zones.nodePools.autoscaling': 'setAutoscaling (legacy zonal form)',
  'zones.nodePools.rollback': 'rollback (legacy zonal form)',
  'zones.nodePools.fetchNodePoolUpgradeInfo': 'fetchNodePoolUpgradeInfo (legacy zonal form)',
  'zones.nodePools.get': 'Get a node pool (legacy zonal form)',
  'zones.nodePools.delete': 'Delete a node pool (legacy zonal form)',
  'zones.nodePools.update': 'Update a node pool (legacy zonal form: POST …/update)',
  'zones.nodePools.list': 'List node pools (legacy zonal form)',
  'zones.nodePools.create': 'Create a node pool (legacy zonal form)',
  'zones.clusters.get': 'Get a cluster (legacy zonal form)',
  'zones.clusters.update': 'Update a cluster (legacy zonal form)',
  'zones.clusters.delete': 'Delete a cluster (legacy zonal form)',
  'zones.clusters.list': 'List clusters (legacy zonal form)',
  'zones.clusters.create': 'Create a cluster (legacy zonal form)',
  'zones.operations.get': 'Get an operation (legacy zonal form)',
  'zones.operations.cancel': 'Cancel an operation (legacy zonal form)',
  'zones.operations.list': 'List operations (legacy zonal form)',
  'zones.getServerconfig': 'ServerConfig (legacy zonal form)',
};

/** The OpenAPI 3.1 document of the emulated surface, generated from the zod schemas. */
export function createOpenApiDocument(): Record<string, unknown> {
  const components: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    components[name] = z.toJSONSchema(schema, {
      unrepresentable: 'any',
      target: 'draft-2020-12',
      io: 'input',
    });
  }
  const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
  const errors = {
    default: {
      description: 'google.rpc.Status in the front end envelope',
      content: { 'application/json': { schema: ref('Status') } },
    },
  };
  const schemaName = (schema: unknown): SchemaName | undefined =>
    (Object.keys(SCHEMAS) as SchemaName[]).find((name) => SCHEMAS[name] === schema);
  const entries = clusterRouteEntries();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path, operationId, action, target } of entries) {
    if (target !== undefined || action === undefined) continue;
    const response = schemaName(action.response) ?? 'Empty';
    const body = action.body === undefined ? undefined : schemaName(action.body);
    // The message's query fields by their JSON names (the snake_case forms are accepted, undeclared).
    const query = [...(action.query ?? [])].filter((name) => !name.includes('_'));
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[method] = {
      operationId,
      summary: SUMMARIES[operationId.slice(operationId.indexOf('.') + 1)] ?? action.operation,
      ...(query.length > 0 ? { parameters: query.map(queryParameter) } : {}),
      ...(body
        ? { requestBody: { required: true, content: { 'application/json': { schema: ref(body) } } } }
        : {}),
      responses: {
        200: { description: response, content: { 'application/json': { schema: ref(response) } } },
        ...errors,
      },
    };
  }
  addDiscoveryPaths(paths, components, entries);
  const parameters = declareQueryParameters(paths);
  // After the container API's parameters: Compute's methods take none of its request messages' ids.
  addComputePaths(
    paths,
    components,
    Object.keys(DECLARED_SYSTEM_PARAMS).map((name) => ({
      $ref: `#/components/parameters/${parameterKey(name)}`,
    })),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'cluster-sim: GKE container API (v1beta1 node pool surface)',
      version: SIMULATOR_VERSION,
      description:
        "The emulated surface of container.googleapis.com, and under /compute/v1 the slice of Compute Engine v1 GKE's clients read (the node pools' managed instance groups). Requests need `Authorization: Bearer <token>`. Request bodies accept lowerCamel or snake_case names, enum names or numbers, int64 as strings or numbers. The control plane is documented at /_sim/openapi.json.",
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components,
      parameters,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'OAuth 2 access token (any token by default)',
        },
      },
    },
  };
}

/** A components.parameters key: `$.xgafv` is `xgafv` (keys take no `$`). */
const parameterKey = (name: string) => name.replace(/^\$\./, '');

/**
 * Every read declares the query parameters it takes besides its own: Google's system parameters and the
 * request message's deprecated ids its path does not hold, as references to `components.parameters`
 * (returned). A method refused whole (501) declares none.
 */
function declareQueryParameters(paths: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(DECLARED_SYSTEM_PARAMS)) {
    parameters[parameterKey(name)] = { name, in: 'query', required: false, schema };
  }
  for (const name of MESSAGE_PARAMS) parameters[name] = queryParameter(name);
  const ref = (name: string) => ({ $ref: `#/components/parameters/${parameterKey(name)}` });
  for (const [template, item] of Object.entries(paths)) {
    const get = item.get as { parameters?: unknown[]; responses?: Record<string, unknown> } | undefined;
    if (!get?.responses?.['200']) continue;
    const inPath = new Set([...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
    get.parameters = [
      ...(get.parameters ?? []),
      ...Object.keys(DECLARED_SYSTEM_PARAMS).map(ref),
      ...[...MESSAGE_PARAMS].filter((name) => !inPath.has(name)).map(ref),
    ];
  }
  return parameters;
}
