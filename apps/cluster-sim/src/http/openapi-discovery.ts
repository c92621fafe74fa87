import { Operation } from '@sims/cluster-schema';
import * as z from 'zod';
import type { ClusterRouteEntry } from './routes/route-entries';

/** A query parameter of a request message (`pageSize` an int32, the others strings). */
export function queryParameter(name: string) {
  return { name, in: 'query', required: false, schema: { type: name === 'pageSize' ? 'integer' : 'string' } };
}

function jsonSchema(schema: z.ZodType) {
  return z.toJSONSchema(schema, { unrepresentable: 'any', target: 'draft-2020-12', io: 'input' });
}

/**
 * Adds the methods of the discovery table the route entries give beyond the family tables' rows: a
 * simulated one with its request and response messages (as components named after them), a refused one
 * with its 501.
 */
export function addDiscoveryPaths(
  paths: Record<string, Record<string, unknown>>,
  components: Record<string, unknown>,
  entries: readonly ClusterRouteEntry[],
): void {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const status = { content: { 'application/json': { schema: ref('Status') } } };
  for (const { target, path, method: verb, operationId } of entries) {
    if (target === undefined) continue;
    const { method } = target;
    const entry = paths[path] ?? {};
    paths[path] = entry;
    if (target.kind === 'spec') {
      const { spec } = target;
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
    } else {
      entry[verb] = {
        operationId,
        summary: `${method.rpc} (${method.id}): not simulated, ${target.reason}`,
        responses: { 501: { description: 'UNIMPLEMENTED, naming the method', ...status } },
      };
    }
  }
}
