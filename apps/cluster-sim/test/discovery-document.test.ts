import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Discovery } from 'googleapis-common';
import { describe, expect, it } from 'vitest';
import { createClusterSim } from '../src/app';
import { clusterRouteEntries } from '../src/http/routes/route-entries';
import { fakeAuth, useSocketSim } from './support/client-sim';

/**
 * The container API's discovery documents as cluster-sim serves them: a generic discovery client
 * (googleapis-common's `Discovery`, what `googleapis` builds its clients with) is built from the
 * simulator's URL alone and drives it; the documents list exactly the methods the simulator routes, and
 * every `$ref` names a schema of the document.
 */

const NAME = 'projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1';
const PARENT = 'projects/p1/locations/us-central1-a';

const APP = join(dirname(fileURLToPath(import.meta.url)), '..');
const GOOGLE_CLIENT = dirname(createRequire(import.meta.url).resolve('@googleapis/container/package.json'));

const simOf = useSocketSim(35, { seedEach: true });

/** The messages of Google's generated client for a version (`Schema$NodePool`): name → field names. */
function googleSchemas(version: string): Map<string, Set<string>> {
  const source = readFileSync(join(GOOGLE_CLIENT, `${version}.ts`), 'utf8');
  const out = new Map<string, Set<string>>();
  for (const [, name = '', body = ''] of source.matchAll(
    /^ {2}export interface Schema\$(\w+) \{([\s\S]*?)^ {2}\}/gm,
  )) {
    const fields = body.replace(/\/\*\*[\s\S]*?\*\//g, '').matchAll(/^\s*(\w+)\?:/gm);
    out.set(name, new Set([...fields].map((f) => f[1] ?? '')));
  }
  return out;
}

interface MethodEntry {
  id: string;
  httpMethod: string;
  flatPath: string;
  path: string;
  parameters: Record<
    string,
    { location: string; required?: boolean; pattern?: string; deprecated?: boolean }
  >;
  parameterOrder: string[];
  request?: { $ref: string };
  response: { $ref: string };
}
interface Resource {
  methods?: Record<string, MethodEntry>;
  resources?: Record<string, Resource>;
}
interface Document extends Resource {
  id: string;
  rootUrl: string;
  baseUrl: string;
  schemas: Record<string, unknown>;
  parameters: Record<string, unknown>;
}

/** The part of a client built from the document that the tests call (its methods are made at run time). */
type Call<T> = (params: object) => Promise<{ data: T; config: { url: unknown } }>;
interface DiscoveredGke {
  projects: {
    locations: {
      clusters: {
        list: Call<{ clusters: { name: string }[] }>;
        nodePools: {
          get: Call<{ name: string; status: string; etag: string }>;
          update: Call<{ name: string; operationType: string; status: string }>;
        };
      };
      operations: { get: Call<{ name: string }> };
    };
    zones: { clusters: { nodePools: { get: Call<{ name: string }> } } };
  };
}

function methodsOf(node: Resource): MethodEntry[] {
  return [
    ...Object.values(node.methods ?? {}),
    ...Object.values(node.resources ?? {}).flatMap((child) => methodsOf(child)),
  ];
}

/** Every `$ref` anywhere below a value. */
function refsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsOf);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v] : refsOf(v)));
}

/** A path's shape: every `{parameter}` a `*` (`v1/projects/*​/locations/*​/clusters/*:setSize`). */
const shape = (path: string) => path.replace(/^\//, '').replace(/\{[^}]+\}/g, '*');

async function fetchDocument(url: string): Promise<Document> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
}

describe.each(['v1beta1', 'v1'] as const)('the %s discovery document', (version) => {
  /** A client built from the document at the simulator's URL, as `discovery.build` does. */
  async function discoveredClient(): Promise<DiscoveredGke> {
    const url = `${simOf().url}/$discovery/rest?version=${version}`;
    const discovery = new Discovery({});
    const create = await discovery.discoverAPI(url);
    // As googleapis' own discoverAllAPIs calls it: the options, then the Discovery as `google`.
    return create({ auth: fakeAuth() as never }, discovery) as unknown as DiscoveredGke;
  }

  it('builds a client that reads, lists, updates and gets the stale-etag ABORTED from the simulator', async () => {
    const gke = await discoveredClient();
    const pool = await gke.projects.locations.clusters.nodePools.get({ name: NAME });
    expect(String(pool.config.url)).toBe(`${simOf().url}/${version}/${NAME}`);
    expect(pool.data).toMatchObject({ name: 'np1', status: 'RUNNING' });
    const list = await gke.projects.locations.clusters.list({ parent: PARENT });
    expect(list.data.clusters.map((c: { name: string }) => c.name)).toEqual(['c1']);
    const op = await gke.projects.locations.clusters.nodePools.update({
      name: NAME,
      requestBody: { nodeVersion: '-', etag: pool.data.etag },
    });
    expect(op.data).toMatchObject({ operationType: 'UPGRADE_NODES', status: 'PENDING' });
    const read = await gke.projects.locations.operations.get({
      name: `${PARENT}/operations/${op.data.name}`,
    });
    expect(read.data.name).toBe(op.data.name);
    const err = (await gke.projects.locations.clusters.nodePools
      .update({ name: NAME, requestBody: { nodeVersion: '-', etag: pool.data.etag } })
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as { status: number; response: { data: { error: { status: string } } } };
    expect(err).toMatchObject({ status: 409 });
    expect(err.response.data.error.status).toBe('ABORTED');
  });

  it('calls the legacy zonal methods by their path parameters', async () => {
    const gke = await discoveredClient();
    const pool = await gke.projects.zones.clusters.nodePools.get({
      projectId: 'p1',
      zone: 'us-central1-a',
      clusterId: 'c1',
      nodePoolId: 'np1',
    });
    expect(pool.data.name).toBe('np1');
  });

  it('answers the same document at the directory path, rooted where the request arrived', async () => {
    const sim = simOf();
    const byService = await fetchDocument(`${sim.url}/$discovery/rest?version=${version}`);
    const byDirectory = await fetchDocument(`${sim.url}/discovery/v1/apis/container/${version}/rest`);
    expect(byDirectory).toEqual(byService);
    expect(byService).toMatchObject({
      kind: 'discovery#restDescription',
      discoveryVersion: 'v1',
      id: `container:${version}`,
      name: 'container',
      version,
      protocol: 'rest',
      rootUrl: `${sim.url}/`,
      baseUrl: `${sim.url}/`,
      servicePath: '',
      batchPath: 'batch',
    });
    expect(Object.keys(byService.parameters).sort()).toEqual(
      [
        '$.xgafv',
        'access_token',
        'alt',
        'callback',
        'fields',
        'key',
        'oauth_token',
        'prettyPrint',
        'quotaUser',
        'uploadType',
        'upload_protocol',
      ].sort(),
    );
    const other = await fetchDocument(
      `http://localhost:${sim.port}/_ns/team-a/$discovery/rest?version=${version}`,
    );
    expect(other.rootUrl).toBe(`http://localhost:${sim.port}/_ns/team-a/`);
  });

  it('lists exactly the methods the simulator routes, served or refused with 501', async () => {
    const doc = await fetchDocument(`${simOf().url}/$discovery/rest?version=${version}`);
    const listed = methodsOf(doc).map((m) => `${m.httpMethod} ${shape(m.flatPath)}`);
    expect(new Set(listed).size).toBe(listed.length);
    const routed = clusterRouteEntries()
      .filter((e) => e.path.startsWith(`/${version}/`))
      .map((e) => `${e.method.toUpperCase()} ${shape(e.path)}`);
    expect(new Set(listed)).toEqual(new Set(routed));
  });

  it('describes each method: path parameters with patterns, in parameterOrder, and its messages', async () => {
    const doc = await fetchDocument(`${simOf().url}/$discovery/rest?version=${version}`);
    const methods = methodsOf(doc);
    for (const m of methods) {
      const inPath = Object.entries(m.parameters).filter(([, p]) => p.location === 'path');
      expect(m.parameterOrder, m.id).toEqual(inPath.map(([n]) => n));
      for (const [n, p] of inPath) {
        expect(p.required, `${m.id} ${n}`).toBe(true);
        if (m.path.includes(`{+${n}}`))
          expect(p.pattern, `${m.id} ${n}`).toMatch(/^\^projects\/\[\^\/\]\+.*\$$/);
      }
    }
    const get = doc.resources?.projects?.resources?.locations?.resources?.clusters?.methods?.get;
    expect(get?.parameters).toEqual({
      name: {
        type: 'string',
        location: 'path',
        required: true,
        pattern: '^projects/[^/]+/locations/[^/]+/clusters/[^/]+$',
      },
      clusterId: { type: 'string', location: 'query', deprecated: true },
      projectId: { type: 'string', location: 'query', deprecated: true },
      zone: { type: 'string', location: 'query', deprecated: true },
    });
    const setSize = doc.resources?.projects?.resources?.locations?.resources?.clusters?.resources?.nodePools
      ?.methods?.setSize as MethodEntry;
    expect(setSize).toMatchObject({
      id: 'container.projects.locations.clusters.nodePools.setSize',
      path: `${version}/{+name}:setSize`,
      httpMethod: 'POST',
      parameters: { name: { pattern: '^projects/[^/]+/locations/[^/]+/clusters/[^/]+/nodePools/[^/]+$' } },
      request: { $ref: 'SetNodePoolSizeRequest' },
      response: { $ref: 'Operation' },
    });
  });

  it('resolves every $ref to a schema of the document', async () => {
    const doc = await fetchDocument(`${simOf().url}/$discovery/rest?version=${version}`);
    const refs = new Set(refsOf(doc));
    expect(refs.size).toBeGreaterThan(30);
    for (const ref of refs) expect(doc.schemas, ref).toHaveProperty([ref]);
    expect(doc.schemas.NodePool).toMatchObject({
      id: 'NodePool',
      type: 'object',
      properties: {
        config: { $ref: 'NodeConfig' },
        initialNodeCount: { type: 'integer', format: 'int32' },
        status: { type: 'string', enum: expect.arrayContaining(['RUNNING', 'RECONCILING']) },
      },
    });
    expect(doc.schemas.NodeConfig).toMatchObject({ properties: { diskSizeGb: { type: 'integer' } } });
  });

  it("names its schemas and their fields as Google's client does", async () => {
    const doc = await fetchDocument(`${simOf().url}/$discovery/rest?version=${version}`);
    const google = googleSchemas(version);
    // gcloud's client has this one; the discovery document @googleapis/container is built from does not.
    const clientOnly = new Set(['CompleteConvertToAutopilotRequest']);
    for (const [name, schema] of Object.entries(doc.schemas) as [string, { properties?: object }][]) {
      if (clientOnly.has(name)) continue;
      const fields = google.get(name);
      expect(fields, name).toBeDefined();
      for (const field of Object.keys(schema.properties ?? {}))
        expect(fields, `${name}.${field}`).toContain(field);
    }
    expect(Object.keys(doc.schemas)).toEqual(expect.arrayContaining(['Metric', 'Status', 'Operation']));
  });
});

describe('the discovery documents', () => {
  it('are described by the table the generator writes now', () => {
    const fresh = execFileSync(process.execPath, ['scripts/generate-discovery-document.mjs', '--stdout'], {
      cwd: APP,
      encoding: 'utf8',
    });
    const file = join(APP, 'src', 'http', 'discovery-document-methods.generated.ts');
    expect(readFileSync(file, 'utf8')).toBe(fresh);
  });

  it('answers 404 NOT_FOUND for another version or API', async () => {
    const sim = createClusterSim();
    const version = await sim.app.request('/$discovery/rest?version=v2');
    expect(version.status).toBe(404);
    expect(await version.json()).toEqual({
      error: {
        code: 404,
        message:
          'Discovery document not found for API service: container.googleapis.com format: rest version: v2',
        status: 'NOT_FOUND',
      },
    });
    const api = await sim.app.request('/discovery/v1/apis/pubsub/v1/rest');
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({
      error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' },
    });
    sim.close();
  });

  it('roots each answer where its request arrived, the rest of the document the same', async () => {
    const sim = createClusterSim();
    const a = (await (await sim.app.request('http://a.test/$discovery/rest?version=v1')).json()) as Document;
    const b = (await (
      await sim.app.request('http://b.test:81/$discovery/rest?version=v1')
    ).json()) as Document;
    expect(a.rootUrl).toBe('http://a.test/');
    expect(b.rootUrl).toBe('http://b.test:81/');
    expect({ ...a, rootUrl: '', baseUrl: '', mtlsRootUrl: '' }).toEqual({
      ...b,
      rootUrl: '',
      baseUrl: '',
      mtlsRootUrl: '',
    });
    sim.close();
  });
});
