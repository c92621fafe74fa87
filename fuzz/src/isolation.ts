/**
 * Namespace isolation: two namespaces get different seeds and different requests (resources created,
 * fault rules added, logins), selected by header or by `/_ns/<name>` prefix; reads in each never show
 * what the other one seeded, created, recorded or was given.
 */
import { createAnnotationSim } from '@sims/annotation-sim';
import { createClusterSim } from '@sims/cluster-sim';
import fc from 'fast-check';
import { type FuzzRequest, plainRequest, send } from './http';
import { ADMIN, offlineSender, START } from './targets/annotation';
import { T0 } from './targets/cluster';
import type { Instance } from './targets/types';

/** Pairs of distinct namespaces, including near misses (`a.b`/`a_b`) and the default one. */
const NAMESPACE_PAIRS: [string, string][] = [
  ['iso-a', 'iso-b'],
  ['a.b', 'a_b'],
  ['default', 'other'],
  ['n1', 'n1-'],
  ['x', 'x.'],
];

interface IsolationCommand {
  /** Which namespace of the pair acts (0 or 1). */
  ns: 0 | 1;
  /** Header, path prefix, or (for `default`) nothing at all. */
  style: 'header' | 'prefix' | 'none';
  kind: 'create' | 'child' | 'fault' | 'login';
  /** A short unique-ish suffix for names. */
  tag: string;
}

export interface IsolationCase {
  pair: [string, string];
  seedTags: [string[], string[]];
  commands: IsolationCommand[];
}

export const isolationCaseArb: fc.Arbitrary<IsolationCase> = fc.record({
  pair: fc.constantFrom(...NAMESPACE_PAIRS),
  seedTags: fc.tuple(
    fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,4}$/), { minLength: 1, maxLength: 3 }),
    fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,4}$/), { minLength: 1, maxLength: 3 }),
  ),
  commands: fc.array(
    fc.record({
      ns: fc.constantFrom<0 | 1>(0, 1),
      style: fc.constantFrom<'header' | 'prefix' | 'none'>('header', 'prefix', 'none'),
      kind: fc.constantFrom<'create' | 'child' | 'fault' | 'login'>('create', 'child', 'fault', 'login'),
      tag: fc.stringMatching(/^[a-z0-9]{1,5}$/),
    }),
    { minLength: 1, maxLength: 10 },
  ),
});

/** How a request reaches namespace `name`: the header or the prefix; `none` only works for `default`. */
function via(
  name: string,
  style: IsolationCommand['style'],
): { headers: [string, string][]; prefix: string } {
  if (style === 'none' && name === 'default') return { headers: [], prefix: '' };
  if (style === 'prefix') return { headers: [], prefix: `/_ns/${name}` };
  return { headers: [['x-sim-namespace', name]], prefix: '' };
}

async function call(
  inst: Instance,
  method: string,
  path: string,
  body: unknown,
  headers: [string, string][],
): Promise<{ status: number; json: unknown; text: string }> {
  const req: FuzzRequest = plainRequest(method, path, body, headers);
  const out = await send(inst.app, req, { timeoutMs: 10_000 });
  if (out.kind !== 'response') throw new Error(`${method} ${path}: ${out.kind}`);
  let json: unknown;
  try {
    json = out.res.text === '' ? undefined : JSON.parse(out.res.text);
  } catch {
    json = undefined;
  }
  return { status: out.res.status, json, text: out.res.text };
}

/** What a namespace owns (by name), as the commands and seeds made it. */
interface Owned {
  names: Set<string>;
  faults: Set<string>;
  marker: string;
  tokens: string[];
}

function ownedBy(i: number): Owned {
  return { names: new Set(), faults: new Set(), marker: `m${i}`, tokens: [] };
}

export interface SimIsolation {
  sim: 'cluster-sim' | 'annotation-sim';
  /** Runs one case on a fresh simulator; returns the leaks found (empty when isolated). */
  run(c: IsolationCase): Promise<string[]>;
}

function leaks(label: string, seen: Iterable<string>, own: Owned, other: Owned): string[] {
  const out: string[] = [];
  for (const name of seen) {
    if (other.names.has(name) && !own.names.has(name))
      out.push(`${label} shows "${name}", which only the other namespace has`);
  }
  return out;
}

/** Adds a fault rule that matches nothing in the command's namespace, which owns it once added. */
async function addFault(
  inst: Instance,
  cmd: IsolationCommand,
  v: ReturnType<typeof via>,
  own: Owned,
): Promise<void> {
  const d = `f${cmd.ns}-${cmd.tag}`;
  const r = await call(
    inst,
    'POST',
    `${v.prefix}/_sim/faults`,
    { description: d, match: { path: '/never' }, effect: { delay: '1ms' } },
    v.headers,
  );
  if (r.status === 201) own.faults.add(d);
}

async function commonChecks(inst: Instance, ns: string, own: Owned, other: Owned): Promise<string[]> {
  const out: string[] = [];
  const v = via(ns, 'header');
  const faults = await call(inst, 'GET', '/_sim/faults', undefined, v.headers);
  const descriptions = ((faults.json as { faults?: { description?: string }[] })?.faults ?? []).map(
    (f) => f.description ?? '',
  );
  for (const d of descriptions) {
    if (other.faults.has(d) && !own.faults.has(d))
      out.push(`GET /_sim/faults in "${ns}" shows the other namespace's rule "${d}"`);
  }
  const journal = await call(inst, 'GET', '/_sim/journal', undefined, v.headers);
  const entries =
    (journal.json as { entries?: { url?: string; query?: Record<string, string>; namespace?: string }[] })
      ?.entries ?? [];
  for (const e of entries) {
    const marker = e.query?.quotaUser ?? e.query?.fuzzns;
    if (marker !== undefined && marker === other.marker)
      out.push(`GET /_sim/journal in "${ns}" holds a request sent to the other namespace`);
    if (e.namespace !== undefined && e.namespace !== ns)
      out.push(`GET /_sim/journal in "${ns}" holds an entry of namespace "${e.namespace}"`);
  }
  return out;
}

export function clusterIsolation(): SimIsolation {
  const LOC = '/v1beta1/projects/p1/locations/us-central1-a';
  return {
    sim: 'cluster-sim',
    async run(c) {
      const sim = createClusterSim({ seed: 7, clock: { mode: 'manual', start: T0 } });
      const inst: Instance = { app: sim.app, close: () => sim.close() };
      const owned: [Owned, Owned] = [ownedBy(0), ownedBy(1)];
      try {
        for (const i of [0, 1] as const) {
          const ns = c.pair[i];
          const clusters = c.seedTags[i].map((t) => `s${i}-${t}`);
          const res = await call(
            inst,
            'POST',
            '/_sim/seed',
            {
              clusters: [
                ...clusters.map((name) => ({
                  projectId: 'p1',
                  location: 'us-central1-a',
                  name,
                  nodePools: [{ name: `np${i}` }],
                })),
                // The same cluster name in both namespaces: its pools must stay apart.
                {
                  projectId: 'p1',
                  location: 'us-central1-a',
                  name: 'shared',
                  nodePools: [{ name: `shared-np${i}` }],
                },
              ],
            },
            via(ns, 'header').headers,
          );
          if (res.status !== 201) return [`seeding "${ns}" failed: ${res.status} ${res.text.slice(0, 200)}`];
          for (const n of clusters) owned[i].names.add(n);
          owned[i].names.add(`shared-np${i}`);
        }
        const problems: string[] = [];
        for (const cmd of c.commands) {
          const ns = c.pair[cmd.ns];
          const v = via(ns, cmd.style);
          const auth: [string, string][] = [...v.headers, ['authorization', 'Bearer t']];
          const q = `?quotaUser=${owned[cmd.ns].marker}`;
          if (cmd.kind === 'create') {
            const name = `c${cmd.ns}-${cmd.tag}`;
            const r = await call(
              inst,
              'POST',
              `${v.prefix}${LOC}/clusters${q}`,
              { cluster: { name, initialNodeCount: 1 } },
              auth,
            );
            if (r.status === 200) owned[cmd.ns].names.add(name);
          } else if (cmd.kind === 'child') {
            const name = `p${cmd.ns}-${cmd.tag}`;
            const r = await call(
              inst,
              'POST',
              `${v.prefix}${LOC}/clusters/shared/nodePools${q}`,
              { nodePool: { name, initialNodeCount: 1 } },
              auth,
            );
            if (r.status === 200) owned[cmd.ns].names.add(name);
          } else if (cmd.kind === 'fault') {
            await addFault(inst, cmd, v, owned[cmd.ns]);
          } else {
            // A read in the namespace, so that the journal has something to keep apart.
            await call(inst, 'GET', `${v.prefix}${LOC}/clusters/shared${q}`, undefined, auth);
          }
          for (const i of [0, 1] as const) {
            const ns2 = c.pair[i];
            const h: [string, string][] = [...via(ns2, 'header').headers, ['authorization', 'Bearer t']];
            const own = owned[i];
            const other = owned[1 - i] as Owned;
            const list = await call(inst, 'GET', '/v1beta1/projects/p1/locations/-/clusters', undefined, h);
            const names = ((list.json as { clusters?: { name: string }[] })?.clusters ?? []).map(
              (x) => x.name,
            );
            problems.push(...leaks(`GET clusters in "${ns2}"`, names, own, other));
            const pools = await call(inst, 'GET', `${LOC}/clusters/shared/nodePools`, undefined, h);
            const poolNames = ((pools.json as { nodePools?: { name: string }[] })?.nodePools ?? []).map(
              (x) => x.name,
            );
            problems.push(...leaks(`GET shared/nodePools in "${ns2}"`, poolNames, own, other));
            for (const name of other.names) {
              if (own.names.has(name) || !name.startsWith('c')) continue;
              const r = await call(inst, 'GET', `${LOC}/clusters/${name}`, undefined, h);
              if (r.status !== 404)
                problems.push(`GET cluster "${name}" (only in the other namespace) in "${ns2}": ${r.status}`);
            }
            problems.push(...(await commonChecks(inst, ns2, own, other)));
          }
          if (problems.length > 0) return [...new Set(problems)];
        }
        return [];
      } finally {
        sim.close();
      }
    },
  };
}

export function annotationIsolation(): SimIsolation {
  return {
    sim: 'annotation-sim',
    async run(c) {
      const sim = createAnnotationSim({
        seed: 7,
        clock: { mode: 'manual', start: START },
        sender: offlineSender,
        delivery: { thread: 'main' },
      });
      const inst: Instance = { app: sim.app, close: () => sim.close() };
      const owned: [Owned, Owned] = [ownedBy(0), ownedBy(1)];
      try {
        for (const i of [0, 1] as const) {
          const ns = c.pair[i];
          const users = c.seedTags[i].map((t) => `u${i}-${t}`);
          const res = await call(
            inst,
            'POST',
            '/_sim/seed',
            {
              users: users.map((username) => ({ username, password: 'pw' })),
              projects: users.map((owner) => ({ name: `sp-${owner}`, owner })),
              organizations: [{ slug: `o${i}-${c.seedTags[i][0]}`.slice(0, 16), owner: users[0] }],
            },
            via(ns, 'header').headers,
          );
          if (res.status !== 201) return [`seeding "${ns}" failed: ${res.status} ${res.text.slice(0, 200)}`];
          for (const u of users) {
            owned[i].names.add(u);
            owned[i].names.add(`sp-${u}`);
          }
          owned[i].names.add(`o${i}-${c.seedTags[i][0]}`.slice(0, 16));
        }
        const problems: string[] = [];
        for (const cmd of c.commands) {
          const ns = c.pair[cmd.ns];
          const v = via(ns, cmd.style);
          const admin: [string, string][] = [...v.headers, ['authorization', ADMIN]];
          const q = `?fuzzns=${owned[cmd.ns].marker}`;
          if (cmd.kind === 'create') {
            const name = `p${cmd.ns}-${cmd.tag}`;
            const r = await call(inst, 'POST', `${v.prefix}/api/projects${q}`, { name }, admin);
            if (r.status === 201) owned[cmd.ns].names.add(name);
          } else if (cmd.kind === 'child') {
            const slug = `g${cmd.ns}-${cmd.tag}`;
            const r = await call(
              inst,
              'POST',
              `${v.prefix}/api/organizations${q}`,
              { slug, name: slug },
              admin,
            );
            if (r.status === 201) owned[cmd.ns].names.add(slug);
          } else if (cmd.kind === 'fault') {
            await addFault(inst, cmd, v, owned[cmd.ns]);
          } else {
            const user = c.seedTags[cmd.ns][0];
            const r = await call(
              inst,
              'POST',
              `${v.prefix}/api/auth/login${q}`,
              { username: `u${cmd.ns}-${user}`, password: 'pw' },
              v.headers,
            );
            const key = (r.json as { key?: string })?.key;
            if (r.status === 200 && key) owned[cmd.ns].tokens.push(key);
          }
          for (const i of [0, 1] as const) {
            const ns2 = c.pair[i];
            const h: [string, string][] = [...via(ns2, 'header').headers, ['authorization', ADMIN]];
            const own = owned[i];
            const other = owned[1 - i] as Owned;
            for (const [path, key] of [
              ['/api/projects?page_size=all', 'name'],
              ['/api/users?page_size=all', 'username'],
              ['/api/organizations?page_size=all', 'slug'],
            ] as const) {
              const r = await call(inst, 'GET', path, undefined, h);
              const names = ((r.json as { results?: Record<string, string>[] })?.results ?? []).map(
                (x) => x[key] ?? '',
              );
              problems.push(...leaks(`GET ${path} in "${ns2}"`, names, own, other));
            }
            for (const token of other.tokens) {
              if (own.tokens.includes(token)) continue;
              const r = await call(inst, 'GET', '/api/users/self', undefined, [
                ...via(ns2, 'header').headers,
                ['authorization', `Token ${token}`],
              ]);
              if (r.status !== 401)
                problems.push(
                  `a login token of the other namespace works in "${ns2}": GET /api/users/self → ${r.status}`,
                );
            }
            problems.push(...(await commonChecks(inst, ns2, own, other)));
          }
          if (problems.length > 0) return [...new Set(problems)];
        }
        return [];
      } finally {
        sim.close();
      }
    },
  };
}
