import { type AnnotationSim, type AnnotationSimOptions, createAnnotationSim } from '../../src/app';
import type { SeedInput } from '../../src/domain/seed';

export interface HarnessResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else the text. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies freely
  body: any;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  /** Basic auth as this seeded user (password "password", admin "admin"). */
  as?: string;
  token?: string;
  headers?: Record<string, string>;
}

/** `request(method, path, opts)`: what both harnesses send a request through. */
export type RequestFn = (method: string, path: string, opts?: RequestOptions) => Promise<HarnessResponse>;

/** The verb shorthands over `request` that both harnesses (in-process and the CLI's) give tests. */
export const verbs = (request: RequestFn) => ({
  get: (path: string, opts?: RequestOptions) => request('GET', path, opts),
  post: (path: string, body?: unknown, opts?: RequestOptions) => request('POST', path, { ...opts, body }),
  patch: (path: string, body?: unknown, opts?: RequestOptions) => request('PATCH', path, { ...opts, body }),
  put: (path: string, body?: unknown, opts?: RequestOptions) => request('PUT', path, { ...opts, body }),
  del: (path: string, opts?: RequestOptions) => request('DELETE', path, opts),
});

const START = '2026-01-01T00:00:00Z';

/**
 * One harness for every test: an in-process simulator with a manual clock and seeded ids, a typed
 * `request()` that authenticates as a seeded user, and helpers for the clock and deliveries.
 */
export function createHarness(
  options: AnnotationSimOptions = {},
  // Another build of the app (adding-a-resource.test.ts loads a copy of it).
  create: (options: AnnotationSimOptions) => AnnotationSim = createAnnotationSim,
) {
  const sim = create({ seed: 42, clock: { mode: 'manual', start: START }, ...options });
  const passwords = new Map<string, string>([['admin', 'admin']]);

  async function request(method: string, path: string, opts: RequestOptions = {}): Promise<HarnessResponse> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.as)
      headers.authorization = `Basic ${Buffer.from(`${opts.as}:${passwords.get(opts.as) ?? 'password'}`).toString('base64')}`;
    if (opts.token) headers.authorization = `Token ${opts.token}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await sim.app.request(`http://localhost${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  return {
    sim,
    request,
    ...verbs(request),
    seed(input: SeedInput) {
      for (const u of input.users ?? []) passwords.set(u.username, u.password ?? 'password');
      return sim.kernel.def.seed(sim.world(), input) as {
        users: Record<string, number>;
        organizations: Record<string, number>;
        projects: Record<string, number>;
        tasks: Record<string, { id: number; jobs: number[] }>;
        webhooks: number[];
      };
    },
    advance(by: string | number) {
      sim.world().clock.advance(by);
    },
    idle: () => sim.deliveries().idle(),
    state: () => sim.world().state,
    close: () => sim.close(),
  };
}

export type Harness = ReturnType<typeof createHarness>;

/** A typical cast: an admin, an org with every role, a sandbox user, and a worker-privilege user. */
export const TEAM: SeedInput = {
  users: [
    { username: 'alice' },
    { username: 'bob' },
    { username: 'carol' },
    { username: 'dave' },
    { username: 'erin' },
    { username: 'wanda', privilege: 'worker' },
    { username: 'outsider' },
  ],
  organizations: [
    {
      slug: 'acme',
      name: 'Acme',
      owner: 'alice',
      members: [
        { user: 'bob', role: 'maintainer' },
        { user: 'carol', role: 'supervisor' },
        { user: 'dave', role: 'worker' },
      ],
    },
  ],
};
