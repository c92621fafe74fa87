import { Operation } from '@sims/cluster-schema';
import * as z from 'zod';
import { METHOD_STATES } from './method-states';
import { DISCOVERY_METHODS } from './methods.generated';
import { discoverySpecs } from './routes/cluster-setters';

/** The discovery flat path's parameters as the OpenAPI document names them. */
const PARAM_NAMES: Readonly<Record<string, string>> = {
  projectsId: 'projectId',
  locationsId: 'location',
  zonesId: 'zone',
  clustersId: 'clusterId',
  nodePoolsId: 'nodePoolId',
  operationsId: 'operationId',
};

/** A discovery method's path in the OpenAPI document: `/v1/projects/{projectId}/locations/{location}/…`. */
export function openApiPath(method: { version: string; path: string }): string {
  return `/${method.version}/${method.path.replace(/\{(\w+)\}/g, (_, n: string) => `{${PARAM_NAMES[n] ?? n}}`)}`;
}

/** A query parameter of a request message (`pageSize` an int32, the others strings). */
export function queryParameter(name: string) {
  return { name, in: 'query', required: false, schema: { type: name === 'pageSize' ? 'integer' : 'string' } };
}

function jsonSchema(schema: z.ZodType) {
  return z.toJSONSchema(schema, { unrepresentable: 'any', target: 'draft-2020-12', io: 'input' });
}

/**
 * Adds every method of the discovery table the document does not have yet: a simulated one with its
 * request and response messages (as components named after them), a refused one with its 501.
 */
export function addDiscoveryPaths(
  paths: Record<string, Record<string, unknown>>,
  components: Record<string, unknown>,
): void {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const status = { content: { 'application/json': { schema: ref('Status') } } };
  for (const method of DISCOVERY_METHODS) {
    const path = openApiPath(method);
    const verb = method.httpMethod.toLowerCase();
    const entry = paths[path] ?? {};
    paths[path] = entry;
    if (entry[verb] !== undefined) continue;
    const operationId = `${method.version}.${method.id.replace(/^container\.projects\./, '')}`;
    const spec = discoverySpecs.get(method.rpc);
    const state = METHOD_STATES[method.rpc];
    if (spec) {
      const response = spec.response === Operation ? 'Operation' : `${method.rpc}Response`;
      if (response !== 'Operation') components[response] ??= jsonSchema(spec.response);
      if (spec.body) components[method.request] ??= jsonSchema(spec.body);
      // The message's query fields by their JSON names (the snake_case forms are accepted, undeclared).
      const query = [...(spec.query ?? [])].filter((name) => !name.includes('_'));
      entry[verb] = {
        operationId,
        summary: `${method.rpc} (${method.id})`,
        ...(query.length > 0 ? { parameters: query.map(queryParameter) } : {}),
        ...(spec.body
          ? {
              requestBody: {
                required: true,
                content: { 'application/json': { schema: ref(method.request) } },
              },
            }
          : {}),
        responses: {
          200: { description: response, content: { 'application/json': { schema: ref(response) } } },
          default: { description: 'google.rpc.Status in the front end envelope', ...status },
        },
      };
    } else if (state?.state === 'refused') {
      entry[verb] = {
        operationId,
        summary: `${method.rpc} (${method.id}): not simulated, ${state.reason}`,
        responses: { 501: { description: 'UNIMPLEMENTED, naming the method', ...status } },
      };
    }
  }
}
