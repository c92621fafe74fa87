import { expect } from 'vitest';
import { type ClusterSimOptions, createClusterSim, type SeedInput } from '../../src/index';
import { aCluster } from './fixtures';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON that tests compare whole
export type AnyJson = any;

export interface SimResponse<T = AnyJson> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Bearer token; `null` sends no Authorization header. Default `test-token`. */
  token?: string | null;
  headers?: Record<string, string>;
}

const T0 = '2026-01-01T00:00:00.000Z';

/**
 * One harness for the cluster simulator's tests: a manual clock at T0, seed 42, an in-memory world,
 * and a typed `request()` through `app.request()` (no socket). `create` is the app's factory, another
 * copy's for a test that loads an edited copy of the sources (adding-a-method.test.ts).
 */
export function createHarness(options: ClusterSimOptions = {}, create = createClusterSim) {
  const sim = create({ seed: 42, clock: { mode: 'manual', start: T0 }, ...options });

  async function request<T = AnyJson>(
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<SimResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token !== null) headers.authorization = `Bearer ${opts.token ?? 'test-token'}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await sim.app.request(path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  const h = {
    sim,
    request,
    get: <T = AnyJson>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts),
    put: <T = AnyJson>(path: string, body: unknown, opts?: RequestOptions) =>
      request<T>('PUT', path, { ...opts, body }),
    post: <T = AnyJson>(path: string, body: unknown, opts?: RequestOptions) =>
      request<T>('POST', path, { ...opts, body }),
    del: <T = AnyJson>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, opts),
    world: () => sim.world(),
    /** Seeds through the control plane and fails the test on a refusal. */
    async seed(input: SeedInput) {
      const res = await request('POST', '/_sim/seed', { body: input, token: null });
      expect(res.status, res.text).toBe(201);
      return res.body.seeded as {
        clusters: string[];
        nodePools: { name: string; etag: string; version: string }[];
      };
    },
    /** Seeds the standard fixture: project p1, zonal cluster c1 in us-central1-a with pool np1 (3 nodes). */
    seedDefault() {
      return h.seed({ clusters: [aCluster().build()] });
    },
    async advance(by: string | number) {
      const res = await request('POST', '/_sim/clock/advance', { body: { by }, token: null });
      expect(res.status, res.text).toBe(200);
    },
    async addFault(rule: unknown) {
      const res = await request('POST', '/_sim/faults', { body: rule, token: null });
      expect(res.status, res.text).toBe(201);
      return res.body;
    },
    async settings(patch: Record<string, unknown>) {
      const res = await request('PUT', '/_sim/settings', { body: patch, token: null });
      expect(res.status, res.text).toBe(200);
      return res.body;
    },
    async journal(query = '') {
      const res = await request('GET', `/_sim/journal${query ? `?${query}` : ''}`, { token: null });
      return res.body.entries as {
        operation?: string;
        status: number;
        faults: string[];
        method: string;
        path: string;
      }[];
    },
    /** The etag of a pool as a client sees it. */
    async etagOf(path = POOL) {
      const res = await request('GET', path);
      expect(res.status, res.text).toBe(200);
      return res.body.etag as string;
    },
    close: () => sim.close(),
  };
  return h;
}

export type Harness = ReturnType<typeof createHarness>;

export const LOC = '/v1beta1/projects/p1/locations/us-central1-a';
export const ZONE = '/v1beta1/projects/p1/zones/us-central1-a';
export const CLUSTER = `${LOC}/clusters/c1`;
export const POOL = `${CLUSTER}/nodePools/np1`;
export const OPS = `${LOC}/operations`;
