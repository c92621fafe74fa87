import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { METHOD_STATES } from '../src/http/method-states';
import { DISCOVERY_METHODS } from '../src/http/methods.generated';
import { discoverySpecs } from '../src/http/routes/cluster-setters';
import { methodKey, methodState } from '../src/http/routes/discovery';
import { openApiPath } from '../src/http/routes/route-entries';
import { CLUSTER, createHarness, type Harness, ZONE } from './support/harness';

const APP = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the discovery table', () => {
  it('is what the generator writes now', () => {
    const fresh = execFileSync(process.execPath, ['scripts/generate-methods.mjs', '--stdout'], {
      cwd: APP,
      encoding: 'utf8',
    });
    expect(readFileSync(join(APP, 'src', 'http', 'methods.generated.ts'), 'utf8')).toBe(fresh);
  });

  it('has every method of both discovery documents, each once', () => {
    const count = (v: string) => DISCOVERY_METHODS.filter((m) => m.version === v).length;
    expect(count('v1beta1')).toBe(72);
    expect(count('v1')).toBe(71);
    const keys = DISCOVERY_METHODS.map((m) => `${m.version} ${m.id}`);
    expect(new Set(keys).size).toBe(keys.length);
    // Both forms: the zonal method of a simulated setter, and a v1beta1-only method.
    expect(keys).toContain('v1 container.projects.zones.clusters.resourceLabels');
    expect(keys).toContain('v1beta1 container.projects.locations.list');
    expect(keys).not.toContain('v1 container.projects.locations.list');
  });

  it('tells every method apart by the shape of its path', () => {
    const shapes = DISCOVERY_METHODS.map(methodKey);
    expect(new Set(shapes).size).toBe(shapes.length);
  });

  it('gives every RPC a state, and every state is an RPC of the table', () => {
    const rpcs = new Set(DISCOVERY_METHODS.map((m) => m.rpc));
    for (const rpc of rpcs) expect(methodState(rpc), rpc).toBeDefined();
    const listed = [...Object.keys(METHOD_STATES), ...discoverySpecs.keys()];
    expect(new Set(listed)).toEqual(rpcs);
  });

  it('keeps an RPC served through the table by its row alone, never also in METHOD_STATES', () => {
    for (const rpc of discoverySpecs.keys()) expect(METHOD_STATES[rpc], rpc).toBeUndefined();
  });

  it('is in the OpenAPI document, every method of both versions', async () => {
    const h = createHarness();
    const doc = (await h.get('/openapi.json', { token: null })).body;
    for (const m of DISCOVERY_METHODS) {
      const path = openApiPath(m);
      expect(path, m.id).not.toMatch(/\{(projects|locations|zones|clusters|nodePools|operations)Id\}/);
      expect(doc.paths[path]?.[m.httpMethod.toLowerCase()], `${m.httpMethod} ${path}`).toBeDefined();
    }
    expect(doc.paths['/v1beta1/projects/{projectId}/locations']?.get?.responses[200]).toBeDefined();
    h.close();
  });

  it('is listed method by method in FIDELITY.md with its state', () => {
    const fidelity = readFileSync(join(APP, 'FIDELITY.md'), 'utf8');
    for (const m of DISCOVERY_METHODS) {
      const state = methodState(m.rpc)?.state;
      const row = fidelity.split('\n').find((line) => line.startsWith(`| \`${m.id}\` |`));
      expect(row, m.id).toBeDefined();
      expect(row, m.id).toContain(state === 'simulated' ? '| simulated' : '| **refused**: ');
    }
  });
});

describe('the 501 of a refused method', () => {
  let h: Harness;
  beforeEach(async () => {
    h = createHarness();
    await h.seedDefault();
  });
  afterEach(() => h.close());

  it("is Google's envelope naming the method, journaled under its name, in both forms", async () => {
    const res = await h.post(`${CLUSTER}:completeControlPlaneUpgrade`, {});
    expect(res.status).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
    expect(res.body.error).toMatchObject({
      code: 501,
      status: 'UNIMPLEMENTED',
      message:
        "Method google.container.v1beta1.ClusterManager.CompleteControlPlaneUpgrade (container.projects.locations.clusters.completeControlPlaneUpgrade) is not simulated by cluster-sim: control plane upgrades have no soak phase to complete in cluster-sim. See cluster-sim's FIDELITY.md.",
      errors: [{ domain: 'global', reason: 'notImplemented' }],
    });
    const zonal = await h.post(
      `${ZONE.replace('v1beta1', 'v1')}/clusters/c1:completeControlPlaneUpgrade`,
      {},
    );
    expect(zonal.status).toBe(501);
    expect(zonal.body.error.message).toContain(
      'google.container.v1.ClusterManager.CompleteControlPlaneUpgrade',
    );
    const entries = await h.journal();
    expect(entries.map((e) => e.operation)).toEqual([
      'clusters.completeControlPlaneUpgrade',
      'clusters.completeControlPlaneUpgrade',
    ]);
  });

  it('checks credentials first, like any method', async () => {
    const res = await h.post(`${CLUSTER}:completeControlPlaneUpgrade`, {}, { token: null });
    expect(res.status).toBe(401);
    expect(res.body.error.status).toBe('UNAUTHENTICATED');
  });

  it('answers an injected fault first, like any method', async () => {
    await h.addFault({
      match: { operation: 'clusters.completeControlPlaneUpgrade' },
      effect: { error: { status: 'UNAVAILABLE' } },
    });
    const res = await h.post(`${CLUSTER}:completeControlPlaneUpgrade`, {});
    expect(res.status).toBe(503);
  });

  it('refuses a method real clients call that the discovery documents lack (gcloud completeConvertToAutopilot, GA and beta)', async () => {
    for (const version of ['v1', 'v1beta1']) {
      const path = `${CLUSTER.replace('/v1beta1/', `/${version}/`)}:CompleteConvertToAutopilot`;
      const res = await h.post(path, {});
      expect(res.status, res.text).toBe(501);
      expect(res.body.error.status).toBe('UNIMPLEMENTED');
      expect(res.body.error.message).toContain(
        `Method google.container.${version}.ClusterManager.CompleteConvertToAutopilot (container.projects.locations.clusters.completeConvertToAutopilot) is not simulated by cluster-sim: it commits a conversion to Autopilot`,
      );
    }
    const journal = (await h.get('/_sim/journal', { token: null })).body;
    const entries = (journal.entries ?? journal).filter((e: { path?: string }) =>
      e.path?.endsWith(':CompleteConvertToAutopilot'),
    );
    expect(entries.map((e: { operation?: string }) => e.operation)).toEqual([
      'clusters.completeConvertToAutopilot',
      'clusters.completeConvertToAutopilot',
    ]);
  });

  it('leaves the routes that are not methods to the URL-not-found page', async () => {
    const res = await h.post(`${CLUSTER}:noSuchVerb`, {});
    expect(res.status).toBe(404);
    const get = await h.get(`${CLUSTER}:checkAutopilotCompatibility`);
    expect(get.status).toBe(501);
  });
});
