import { getPath as honoGetPath } from 'hono/utils/url';
import { SimInputError } from '../duration';
import { DEFAULT_NAMESPACE, invalidNamespaceMessage, isValidNamespace } from '../world';

export const NAMESPACE_HEADER = 'x-sim-namespace';
const PREFIX = '/_ns/';

/**
 * The path the router sees: the request path without a `/_ns/<name>` prefix, so every route (emulated
 * API and control plane) is reachable under a namespace prefix for clients that cannot add headers.
 */
export function namespaceAwareGetPath(request: Request): string {
  const path = honoGetPath(request);
  if (!path.startsWith(PREFIX)) return path;
  const end = path.indexOf('/', PREFIX.length);
  return end === -1 ? '/' : path.slice(end);
}

/** The namespace a request selects: `/_ns/<name>/…` wins over the `X-Sim-Namespace` header. */
export function resolveNamespace(request: Request): string {
  const path = honoGetPath(request);
  let name: string | undefined;
  if (path.startsWith(PREFIX)) {
    const end = path.indexOf('/', PREFIX.length);
    name = decodeURIComponent(path.slice(PREFIX.length, end === -1 ? undefined : end));
  } else {
    name = request.headers.get(NAMESPACE_HEADER) ?? undefined;
  }
  if (name === undefined || name === '') return DEFAULT_NAMESPACE;
  if (!isValidNamespace(name)) {
    throw new SimInputError(invalidNamespaceMessage(name), 'namespace');
  }
  return name;
}
