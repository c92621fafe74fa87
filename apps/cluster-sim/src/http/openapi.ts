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
import { addDiscoveryPaths, queryParameter } from './openapi-discovery';
import { DECLARED_SYSTEM_PARAMS, MESSAGE_PARAMS } from './query-params';

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
  const op = (
    operationId: string,
    summary: string,
    response: SchemaName,
    body?: SchemaName,
    query: readonly string[] = [],
  ) => ({
    operationId,
    summary,
    ...(query.length > 0 ? { parameters: query.map(queryParameter) } : {}),
    ...(body
      ? { requestBody: { required: true, content: { 'application/json': { schema: ref(body) } } } }
      : {}),
    responses: {
      200: { description: response, content: { 'application/json': { schema: ref(response) } } },
      ...errors,
    },
  });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const v of ['v1beta1', 'v1']) {
    const loc = `/${v}/projects/{projectId}/locations/{location}`;
    const zone = `/${v}/projects/{projectId}/zones/{zone}`;
    const tag = `${v}.`;
    paths[`${loc}/clusters/{clusterId}/nodePools/{nodePoolId}`] = {
      get: op(`${tag}nodePools.get`, 'Get a node pool (with its etag)', 'NodePool'),
      put: op(
        `${tag}nodePools.update`,
        'Update a node pool: UPGRADE_NODES operation',
        'Operation',
        'UpdateNodePoolRequest',
      ),
      delete: op(`${tag}nodePools.delete`, 'Delete a node pool: DELETE_NODE_POOL operation', 'Operation'),
    };
    const pool = `${loc}/clusters/{clusterId}/nodePools/{nodePoolId}`;
    const zonePool = `${zone}/clusters/{clusterId}/nodePools/{nodePoolId}`;
    paths[`${pool}:setSize`] = {
      post: op(
        `${tag}nodePools.setSize`,
        'Set the per-zone node count: SET_NODE_POOL_SIZE operation',
        'Operation',
        'SetNodePoolSizeRequest',
      ),
    };
    paths[`${pool}:setManagement`] = {
      post: op(
        `${tag}nodePools.setManagement`,
        'Set auto-upgrade and auto-repair: SET_NODE_POOL_MANAGEMENT operation',
        'Operation',
        'SetNodePoolManagementRequest',
      ),
    };
    paths[`${pool}:setAutoscaling`] = {
      post: op(
        `${tag}nodePools.setAutoscaling`,
        'Set the autoscaler: UPDATE_CLUSTER operation on the pool',
        'Operation',
        'SetNodePoolAutoscalingRequest',
      ),
    };
    paths[`${pool}:rollback`] = {
      post: op(
        `${tag}nodePools.rollback`,
        'Roll back a cancelled or failed upgrade: UPGRADE_NODES operation',
        'Operation',
        'RollbackNodePoolUpgradeRequest',
      ),
    };
    paths[`${pool}:completeUpgrade`] = {
      post: op(
        `${tag}nodePools.completeUpgrade`,
        "End a blue-green upgrade's node pool soak now",
        'Empty',
        'CompleteNodePoolUpgradeRequest',
      ),
    };
    paths[`${pool}:fetchNodePoolUpgradeInfo`] = {
      get: op(
        `${tag}nodePools.fetchNodePoolUpgradeInfo`,
        'Upgrade targets and history',
        'NodePoolUpgradeInfo',
        undefined,
        ['version'],
      ),
    };
    paths[`${zonePool}/setSize`] = {
      post: op(
        `${tag}zones.nodePools.setSize`,
        'setSize (legacy zonal form)',
        'Operation',
        'SetNodePoolSizeRequest',
      ),
    };
    paths[`${zonePool}/setManagement`] = {
      post: op(
        `${tag}zones.nodePools.setManagement`,
        'setManagement (legacy zonal form)',
        'Operation',
        'SetNodePoolManagementRequest',
      ),
    };
    paths[`${zonePool}/autoscaling`] = {
      post: op(
        `${tag}zones.nodePools.autoscaling`,
        'setAutoscaling (legacy zonal form)',
        'Operation',
        'SetNodePoolAutoscalingRequest',
      ),
    };
    paths[`${zonePool}:rollback`] = {
      post: op(
        `${tag}zones.nodePools.rollback`,
        'rollback (legacy zonal form)',
        'Operation',
        'RollbackNodePoolUpgradeRequest',
      ),
    };
    paths[`${zonePool}:fetchNodePoolUpgradeInfo`] = {
      get: op(
        `${tag}zones.nodePools.fetchNodePoolUpgradeInfo`,
        'fetchNodePoolUpgradeInfo (legacy zonal form)',
        'NodePoolUpgradeInfo',
        undefined,
        ['version'],
      ),
    };
    paths[`${loc}/clusters/{clusterId}/nodePools`] = {
      get: op(`${tag}nodePools.list`, 'List node pools', 'ListNodePoolsResponse'),
      post: op(
        `${tag}nodePools.create`,
        'Create a node pool: CREATE_NODE_POOL operation',
        'Operation',
        'CreateNodePoolRequest',
      ),
    };
    paths[`${loc}/clusters/{clusterId}`] = {
      get: op(`${tag}clusters.get`, 'Get a cluster with its node pools', 'Cluster'),
      put: op(
        `${tag}clusters.update`,
        'Update a cluster: UPGRADE_MASTER, UPGRADE_NODES or UPDATE_CLUSTER operation',
        'Operation',
        'UpdateClusterRequest',
      ),
      delete: op(`${tag}clusters.delete`, 'Delete a cluster: DELETE_CLUSTER operation', 'Operation'),
    };
    paths[`${loc}/clusters`] = {
      get: op(`${tag}clusters.list`, 'List clusters (location "-" lists all)', 'ListClustersResponse'),
      post: op(
        `${tag}clusters.create`,
        'Create a cluster: CREATE_CLUSTER operation',
        'Operation',
        'CreateClusterRequest',
      ),
    };
    paths[`${loc}/operations/{operationId}`] = {
      get: op(`${tag}operations.get`, 'Get an operation', 'Operation'),
    };
    paths[`${loc}/operations/{operationId}:cancel`] = {
      post: op(`${tag}operations.cancel`, 'Cancel an operation', 'Empty', 'CancelOperationRequest'),
    };
    paths[`${loc}/operations`] = {
      get: op(`${tag}operations.list`, 'List operations (location "-" lists all)', 'ListOperationsResponse'),
    };
    paths[`${loc}/serverConfig`] = {
      get: op(`${tag}getServerConfig`, 'Versions and image types', 'ServerConfig'),
    };
    paths[`${zone}/clusters/{clusterId}/nodePools/{nodePoolId}`] = {
      get: op(`${tag}zones.nodePools.get`, 'Get a node pool (legacy zonal form)', 'NodePool'),
      delete: op(`${tag}zones.nodePools.delete`, 'Delete a node pool (legacy zonal form)', 'Operation'),
    };
    paths[`${zone}/clusters/{clusterId}/nodePools/{nodePoolId}/update`] = {
      post: op(
        `${tag}zones.nodePools.update`,
        'Update a node pool (legacy zonal form: POST …/update)',
        'Operation',
        'UpdateNodePoolRequest',
      ),
    };
    paths[`${zone}/clusters/{clusterId}/nodePools`] = {
      get: op(`${tag}zones.nodePools.list`, 'List node pools (legacy zonal form)', 'ListNodePoolsResponse'),
      post: op(
        `${tag}zones.nodePools.create`,
        'Create a node pool (legacy zonal form)',
        'Operation',
        'CreateNodePoolRequest',
      ),
    };
    paths[`${zone}/clusters/{clusterId}`] = {
      get: op(`${tag}zones.clusters.get`, 'Get a cluster (legacy zonal form)', 'Cluster'),
      put: op(
        `${tag}zones.clusters.update`,
        'Update a cluster (legacy zonal form)',
        'Operation',
        'UpdateClusterRequest',
      ),
      delete: op(`${tag}zones.clusters.delete`, 'Delete a cluster (legacy zonal form)', 'Operation'),
    };
    paths[`${zone}/clusters`] = {
      get: op(`${tag}zones.clusters.list`, 'List clusters (legacy zonal form)', 'ListClustersResponse'),
      post: op(
        `${tag}zones.clusters.create`,
        'Create a cluster (legacy zonal form)',
        'Operation',
        'CreateClusterRequest',
      ),
    };
    paths[`${zone}/operations/{operationId}`] = {
      get: op(`${tag}zones.operations.get`, 'Get an operation (legacy zonal form)', 'Operation'),
    };
    paths[`${zone}/operations/{operationId}:cancel`] = {
      post: op(
        `${tag}zones.operations.cancel`,
        'Cancel an operation (legacy zonal form)',
        'Empty',
        'CancelOperationRequest',
      ),
    };
    paths[`${zone}/operations`] = {
      get: op(`${tag}zones.operations.list`, 'List operations (legacy zonal form)', 'ListOperationsResponse'),
    };
    paths[`${zone}/serverconfig`] = {
      get: op(`${tag}zones.getServerconfig`, 'ServerConfig (legacy zonal form)', 'ServerConfig'),
    };
  }
  addDiscoveryPaths(paths, components);
  const parameters = declareQueryParameters(paths);
  return {
    openapi: '3.1.0',
    info: {
      title: 'cluster-sim: GKE container API (v1beta1 node pool surface)',
      version: SIMULATOR_VERSION,
      description:
        'The emulated surface of container.googleapis.com. Requests need `Authorization: Bearer <token>`. Request bodies accept lowerCamel or snake_case names, enum names or numbers, int64 as strings or numbers. The control plane is documented at /_sim/openapi.json.',
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
