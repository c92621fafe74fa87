import type { Env, Hono } from 'hono';
import type { ComputeDiscoveryDocument } from './compute-discovery';
import type { DiscoveryDocuments } from './discovery-document';

/**
 * Serves the discovery documents where Google's clients fetch them: the container API's at the service's
 * own `/$discovery/rest?version=v1` (what `googleapiclient.discovery.build` asks for with a
 * `discoveryServiceUrl` of `{root}/$discovery/rest?version={apiVersion}`) and at the directory's
 * `/discovery/v1/apis/container/v1/rest`; Compute Engine's at the directory's
 * `/discovery/v1/apis/compute/v1/rest` only, since the simulator answers both APIs on one host and the
 * service form there is the container API's. A document's module (and the schemas it reads) is imported
 * on the first request for it, not at start (cold start is benchmarked).
 */

const JSON_TYPE = { 'content-type': 'application/json; charset=UTF-8' };

/** Google's 404 envelope for a document the discovery service does not have. */
function notFound(message: string): Response {
  return new Response(JSON.stringify({ error: { code: 404, message, status: 'NOT_FOUND' } }, null, 2), {
    status: 404,
    headers: JSON_TYPE,
  });
}

/**
 * The root URL the request reached (scheme, host and a `/_ns/<name>` prefix, so a client built from the
 * document stays in the namespace it was fetched from), ending in `/`.
 */
function rootUrlOf(request: Request): string {
  const url = new URL(request.url);
  const prefix = /^\/_ns\/[^/]+/.exec(url.pathname)?.[0] ?? '';
  return `${url.protocol}//${url.host}${prefix}/`;
}

const answer = (text: string | undefined) =>
  text === undefined ? undefined : new Response(text, { status: 200, headers: JSON_TYPE });

/** Registers the two discovery routes on an app; the documents are made once per app, on first use. */
export function registerDiscoveryDocuments<E extends Env>(app: Hono<E>): void {
  let documents: DiscoveryDocuments | undefined;
  let compute: ComputeDiscoveryDocument | undefined;
  const render = async (version: string, request: Request) => {
    documents ??= (await import('./discovery-document')).createDiscoveryDocuments();
    return answer(documents.render(version, rootUrlOf(request)));
  };
  const renderCompute = async (version: string, request: Request) => {
    // An unknown version answers before the document's module is loaded.
    if (version !== 'v1') return undefined;
    compute ??= (await import('./compute-discovery')).createComputeDiscoveryDocument();
    return answer(compute.render(version, rootUrlOf(request)));
  };
  app.get('/$discovery/rest', async (c) => {
    const version = c.req.query('version') ?? '';
    return (
      (await render(version, c.req.raw)) ??
      notFound(
        `Discovery document not found for API service: container.googleapis.com format: rest version: ${version}`,
      )
    );
  });
  app.get('/discovery/v1/apis/:api/:version/rest', async (c) => {
    const api = c.req.param('api');
    const version = c.req.param('version');
    const found =
      api === 'container'
        ? await render(version, c.req.raw)
        : api === 'compute'
          ? await renderCompute(version, c.req.raw)
          : undefined;
    return found ?? notFound('Requested entity was not found.');
  });
}
