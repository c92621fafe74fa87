import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Discovery } from 'googleapis-common';
import { describe, expect, it } from 'vitest';
import { createClusterSim } from '../src/app';
import { computeRouteEntries } from '../src/http/compute-routes';
import { fakeAuth, useSocketSim } from './support/client-sim';
import { aCluster, aNodePool } from './support/fixtures';

/**
 * Compute Engine v1's discovery document as cluster-sim serves it at the discovery directory's
 * `/discovery/v1/apis/compute/v1/rest`: a generic discovery client (googleapis-common's `Discovery`) is
 * built from the simulator's URL alone and reads the node pools' managed instance groups; the document
 * lists exactly the Compute methods the simulator answers, names fields as `@googleapis/compute` does,
 * and describes every field the slice's answers carry.
 */

const APP = join(dirname(fileURLToPath(import.meta.url)), '..');
const COMPUTE_CLIENT = dirname(createRequire(import.meta.url).resolve('@googleapis/compute/package.json'));
const ZONAL = 'projects/p1/locations/us-central1-a/clusters/c1';
const REGIONAL = 'projects/p1/locations/us-central1/clusters/r1';
const IGM_URL = /projects\/([^/]+)\/zones\/([a-z0-9-]+)\/instanceGroupManagers\/([^/]+)$/;

const simOf = useSocketSim(36, { seedEach: true });

interface Schema {
  id?: string;
  type?: string;
  format?: string;
  $ref?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema;
}
interface MethodEntry {
  id: string;
  httpMethod: string;
  path: string;
  flatPath: string;
  parameters: Record<string, { location: string; required?: boolean; pattern?: string; type: string }>;
  parameterOrder: string[];
  request?: { $ref: string };
  response: { $ref: string };
  scopes: string[];
}
interface Document {
  id: string;
  rootUrl: string;
  servicePath: string;
  resources: Record<string, { methods: Record<string, MethodEntry> }>;
  schemas: Record<string, Schema>;
  parameters: Record<string, unknown>;
  auth: { oauth2: { scopes: Record<string, unknown> } };
}

type Call<T> = (params: object) => Promise<{ data: T; config: { url: unknown } }>;
interface Igm {
  name: string;
  targetSize: number;
  instanceGroup: string;
  selfLink: string;
}
interface DiscoveredCompute {
  instanceGroupManagers: {
    get: Call<Igm>;
    list: Call<{ items?: Igm[] }>;
    aggregatedList: Call<{ items: Record<string, { instanceGroupManagers: Igm[] }> }>;
    listManagedInstances: Call<{ managedInstances: { name: string; instanceStatus: string }[] }>;
  };
  instanceGroups: {
    get: Call<{ size: number }>;
    listInstances: Call<{ items: { instance: string; status: string }[] }>;
  };
  instances: { get: Call<{ name: string }>; list: Call<{ items: { name: string }[] }> };
}

const docUrl = () => `${simOf().url}/discovery/v1/apis/compute/v1/rest`;

async function fetchDocument(url = docUrl()): Promise<Document> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
}

/** A client built from the served document, as googleapis' own discoverAllAPIs builds one. */
async function discoveredCompute(): Promise<DiscoveredCompute> {
  const discovery = new Discovery({});
  const create = await discovery.discoverAPI(docUrl());
  return create({ auth: fakeAuth() as never }, discovery) as unknown as DiscoveredCompute;
}

const seed = async (clusters: unknown[]) => {
  expect((await simOf().app.request('/_sim/reset', { method: 'POST' })).status).toBe(200);
  const res = await simOf().app.request('/_sim/seed', { method: 'POST', body: JSON.stringify({ clusters }) });
  expect(res.status, await res.clone().text()).toBe(201);
};

/** A pool's `instanceGroupUrls` and its `initialNodeCount`, read over REST. */
async function poolOf(name: string): Promise<{ urls: string[]; perZone: number }> {
  const res = await fetch(`${simOf().url}/v1/${name}`, { headers: { authorization: 'Bearer t' } });
  const pool = (await res.json()) as { instanceGroupUrls: string[]; initialNodeCount: number };
  return { urls: pool.instanceGroupUrls, perZone: pool.initialNodeCount };
}

/** The managers of a pool's URLs through the discovered client: `[project, zone, name]` and each manager. */
async function managersOf(gce: DiscoveredCompute, urls: string[]) {
  return Promise.all(
    urls.map(async (url) => {
      const [, project = '', zone = '', instanceGroupManager = ''] = IGM_URL.exec(url) ?? [];
      const igm = await gce.instanceGroupManagers.get({ project, zone, instanceGroupManager });
      return { project, zone, igm: igm.data, url: String(igm.config.url) };
    }),
  );
}

/** The `@googleapis/compute` type of each field of a `Schema$…` interface. */
function clientFields(source: string, name: string): Map<string, string> | undefined {
  const start = source.indexOf(`  export interface Schema$${name} {`);
  if (start < 0) return undefined;
  const body = source.slice(start, source.indexOf('\n  }\n', start));
  const fields = body.replace(/\/\*\*[\s\S]*?\*\//g, '').matchAll(/^ {4}(\w+)\?: ([\s\S]*?);$/gm);
  return new Map([...fields].map(([, field = '', type = '']) => [field, type.replace(/ \| null$/, '')]));
}

/** The TypeScript type Google's generator writes for a document schema. */
function tsTypeOf(s: Schema): string {
  if (s.$ref) return `Schema$${s.$ref}`;
  if (s.type === 'array') {
    const items = s.items ?? {};
    return items.properties ? `Array<${tsTypeOf(items)}>` : `${tsTypeOf(items)}[]`;
  }
  if (s.additionalProperties) return `{[key: string]: ${tsTypeOf(s.additionalProperties)}}`;
  if (s.properties)
    return `{${Object.entries(s.properties)
      .map(([k, v]) => `${k}?: ${tsTypeOf(v)}`)
      .join('; ')}}`;
  return s.type === 'integer' || s.type === 'number' ? 'number' : (s.type ?? 'unknown');
}

/** Paths in `value` the schema does not describe, or describes with another JSON type. */
function undescribed(doc: Document, schema: Schema, value: unknown, at: string): string[] {
  const s = schema.$ref ? (doc.schemas[schema.$ref] ?? {}) : schema;
  if (s.type === 'array')
    return Array.isArray(value)
      ? value.flatMap((v, i) => undescribed(doc, s.items ?? {}, v, `${at}[${i}]`))
      : [`${at}: not an array`];
  if (s.type === 'object') {
    if (value === null || typeof value !== 'object') return [`${at}: not an object`];
    return Object.entries(value).flatMap(([k, v]) => {
      const field = s.properties?.[k] ?? s.additionalProperties;
      return field
        ? undescribed(doc, field, v, `${at}.${k}`)
        : [`${at}.${k}: not in ${s.id ?? 'the schema'}`];
    });
  }
  const ok =
    s.type === 'integer'
      ? Number.isInteger(value)
      : s.type === 'boolean'
        ? typeof value === 'boolean'
        : typeof value === 'string' && (s.format !== 'uint64' || /^\d+$/.test(value));
  return ok ? [] : [`${at}: ${JSON.stringify(value)} is not ${s.type}/${s.format ?? ''}`];
}

describe('Compute v1 discovery document', () => {
  it("builds a client that reads a zonal pool's manager and lists its group's instances", async () => {
    await seed([aCluster().withPools(aNodePool('np1').withNodeCount(3), aNodePool('np2')).build()]);
    const gce = await discoveredCompute();
    const pool = await poolOf(`${ZONAL}/nodePools/np1`);
    const [one] = await managersOf(gce, pool.urls);
    expect(one?.url).toBe(`${simOf().url}/compute/v1/${IGM_URL.exec(pool.urls[0] ?? '')?.[0]}`);
    expect(one?.igm.targetSize).toBe(3);
    const { project = '', zone = '', igm } = one ?? {};
    const name = igm?.name ?? '';
    const listed = await gce.instanceGroupManagers.list({ project, zone, maxResults: 1 });
    expect(listed.data.items).toHaveLength(1);
    const group = await gce.instanceGroups.get({ project, zone, instanceGroup: name });
    expect(group.data.size).toBe(3);
    const instances = await gce.instanceGroups.listInstances({
      project,
      zone,
      instanceGroup: name,
      requestBody: { instanceState: 'RUNNING' },
    });
    expect(instances.data.items.map((i) => i.status)).toEqual(['RUNNING', 'RUNNING', 'RUNNING']);
    const managed = await gce.instanceGroupManagers.listManagedInstances({
      project,
      zone,
      instanceGroupManager: name,
    });
    const names = managed.data.managedInstances.map((i) => i.name);
    expect(instances.data.items.map((i) => i.instance.split('/').pop()).sort()).toEqual([...names].sort());
    const node = await gce.instances.get({ project, zone, instance: names[0] });
    expect(node.data.name).toBe(names[0]);
    const all = await gce.instances.list({ project, zone });
    expect(all.data.items.map((i) => i.name)).toEqual(expect.arrayContaining(names));
  });

  it("reads a regional pool's managers: per zone the pool's count, summed its node count", async () => {
    const cluster = aCluster('r1')
      .inLocation('us-central1')
      .withPools(aNodePool('np1').withNodeCount(2))
      .build();
    cluster.locations = ['us-central1-a', 'us-central1-b', 'us-central1-c'];
    await seed([cluster]);
    const gce = await discoveredCompute();
    const pool = await poolOf(`${REGIONAL}/nodePools/np1`);
    const managers = await managersOf(gce, pool.urls);
    expect(managers.map((m) => m.zone)).toEqual(['us-central1-a', 'us-central1-b', 'us-central1-c']);
    const total = managers.reduce((sum, m) => sum + m.igm.targetSize, 0);
    expect(total).toBe(pool.perZone * 3);
    // Terraform's node_count: the managers' targetSize summed, divided by their number.
    expect(Math.trunc(total / managers.length)).toBe(2);
    const aggregated = await gce.instanceGroupManagers.aggregatedList({ project: 'p1' });
    expect(Object.keys(aggregated.data.items).sort()).toEqual(managers.map((m) => `zones/${m.zone}`));
  });

  it("has Google's top-level fields, rooted where the request arrived (its namespace kept)", async () => {
    const sim = simOf();
    const doc = await fetchDocument();
    expect(doc).toMatchObject({
      kind: 'discovery#restDescription',
      discoveryVersion: 'v1',
      id: 'compute:v1',
      name: 'compute',
      version: 'v1',
      protocol: 'rest',
      rootUrl: `${sim.url}/`,
      servicePath: 'compute/v1/',
      basePath: '/compute/v1/',
      baseUrl: `${sim.url}/compute/v1/`,
      batchPath: 'batch/compute/v1',
    });
    expect(Object.keys(doc.auth.oauth2.scopes).sort()).toEqual([
      'https://www.googleapis.com/auth/cloud-platform',
      'https://www.googleapis.com/auth/compute',
      'https://www.googleapis.com/auth/compute.readonly',
    ]);
    expect(Object.keys(doc.parameters)).toEqual(expect.arrayContaining(['key', 'access_token', 'userIp']));
    const other = await fetchDocument(
      `http://localhost:${sim.port}/_ns/team-a/discovery/v1/apis/compute/v1/rest`,
    );
    expect(other).toMatchObject({
      rootUrl: `http://localhost:${sim.port}/_ns/team-a/`,
      baseUrl: `http://localhost:${sim.port}/_ns/team-a/compute/v1/`,
    });
  });

  it('lists exactly the Compute methods the simulator answers, each with its parameters', async () => {
    const doc = await fetchDocument();
    const methods = Object.values(doc.resources).flatMap((r) => Object.values(r.methods));
    const shape = (p: string) => p.replace(/\{[^}]+\}/g, '*');
    expect(new Set(methods.map((m) => `${m.httpMethod} /compute/v1/${shape(m.flatPath)}`))).toEqual(
      new Set(computeRouteEntries().map((e) => `${e.method.toUpperCase()} ${shape(e.path)}`)),
    );
    for (const m of methods) {
      const inPath = Object.entries(m.parameters).filter(([, p]) => p.location === 'path');
      expect(new Set(m.parameterOrder), m.id).toEqual(new Set(inPath.map(([n]) => n)));
      expect(m.parameters.project?.pattern, m.id).toBeDefined();
      expect(m.scopes, m.id).toContain('https://www.googleapis.com/auth/compute.readonly');
    }
    expect(doc.resources.instanceGroups?.methods.listInstances).toMatchObject({
      id: 'compute.instanceGroups.listInstances',
      path: 'projects/{project}/zones/{zone}/instanceGroups/{instanceGroup}/listInstances',
      httpMethod: 'POST',
      parameterOrder: ['project', 'zone', 'instanceGroup'],
      request: { $ref: 'InstanceGroupsListInstancesRequest' },
      response: { $ref: 'InstanceGroupsListInstances' },
    });
    expect(doc.resources.instanceGroupManagers?.methods.list?.parameters.maxResults).toEqual({
      type: 'integer',
      format: 'uint32',
      default: '500',
      minimum: '0',
      location: 'query',
    });
  });

  it("names every schema and field as @googleapis/compute's types do, each $ref resolved", async () => {
    const doc = await fetchDocument();
    const source = readFileSync(join(COMPUTE_CLIENT, 'v1.ts'), 'utf8');
    const refs = JSON.stringify(doc).matchAll(/"\$ref":"(\w+)"/g);
    for (const [, ref = ''] of refs) expect(doc.schemas, ref).toHaveProperty([ref]);
    for (const [name, schema] of Object.entries(doc.schemas)) {
      const fields = clientFields(source, name);
      expect(fields, name).toBeDefined();
      for (const [field, s] of Object.entries(schema.properties ?? {}))
        expect(fields?.get(field), `${name}.${field}`).toBe(tsTypeOf(s));
    }
  });

  it("describes every field of the slice's answers with its type", async () => {
    await seed([aCluster().withPools(aNodePool('np1').withNodeCount(2)).build()]);
    const doc = await fetchDocument();
    const pool = await poolOf(`${ZONAL}/nodePools/np1`);
    const [, project, zone, igm] = IGM_URL.exec(pool.urls[0] ?? '') ?? [];
    const zonePath = `projects/${project}/zones/${zone}`;
    const answers: [string, string, string][] = [
      ['instanceGroupManagers', 'get', `${zonePath}/instanceGroupManagers/${igm}`],
      ['instanceGroupManagers', 'list', `${zonePath}/instanceGroupManagers?maxResults=1`],
      ['instanceGroupManagers', 'aggregatedList', `projects/${project}/aggregated/instanceGroupManagers`],
      [
        'instanceGroupManagers',
        'listManagedInstances',
        `${zonePath}/instanceGroupManagers/${igm}/listManagedInstances`,
      ],
      ['instanceGroups', 'get', `${zonePath}/instanceGroups/${igm}`],
      ['instanceGroups', 'listInstances', `${zonePath}/instanceGroups/${igm}/listInstances`],
      ['instances', 'list', `${zonePath}/instances`],
    ];
    const auth = { authorization: 'Bearer t' };
    for (const [resource, method, path] of answers) {
      const entry = doc.resources[resource]?.methods[method] as MethodEntry;
      const res = await fetch(`${simOf().url}/compute/v1/${path}`, {
        method: entry.httpMethod,
        headers: auth,
        ...(entry.httpMethod === 'POST' ? { body: '{}' } : {}),
      });
      expect(res.status, path).toBe(200);
      expect(undescribed(doc, entry.response, await res.json(), entry.id)).toEqual([]);
    }
    const list = (await (
      await fetch(`${simOf().url}/compute/v1/${zonePath}/instances`, { headers: auth })
    ).json()) as {
      items: { name: string }[];
    };
    const one = await fetch(`${simOf().url}/compute/v1/${zonePath}/instances/${list.items[0]?.name}`, {
      headers: auth,
    });
    expect(undescribed(doc, { $ref: 'Instance' }, await one.json(), 'instance')).toEqual([]);
  });

  it('is described by the table the generator writes now', () => {
    const fresh = execFileSync(process.execPath, ['scripts/generate-compute-discovery.mjs', '--stdout'], {
      cwd: APP,
      encoding: 'utf8',
    });
    const file = join(APP, 'src', 'http', 'compute-discovery-methods.generated.ts');
    expect(readFileSync(file, 'utf8')).toBe(fresh);
  });

  it("answers the directory's 404 for another version, and leaves the service form to the container API", async () => {
    const sim = createClusterSim();
    for (const path of ['/discovery/v1/apis/compute/v2/rest', '/discovery/v1/apis/compute/beta/rest']) {
      const res = await sim.app.request(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({
        error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' },
      });
    }
    const service = await sim.app.request('/$discovery/rest?version=v1');
    expect(((await service.json()) as { id: string }).id).toBe('container:v1');
    sim.close();
  });
});
