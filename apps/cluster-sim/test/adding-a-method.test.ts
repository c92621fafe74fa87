import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER, createHarness, type Harness, LOC, OPS, ZONE } from './support/harness';
import { applyEdit, GENERATED_EDITS, READ_EDITS, TOY_EDITS, type ToyEdit } from './support/toy-method';

/**
 * Adding a GKE method takes the files docs/ARCHITECTURE.md lists ("Adding a GKE method"), and only
 * those: a copy of the app gets two toy methods (support/toy-method.ts), `clusters.setToyField`, which
 * starts an operation, and the read-only `clusters.getToyInfo`, by plain text edits of those files; the
 * copy is loaded as it is (its `@sims/*` imports resolve to this repository's sources through the app's
 * node_modules) and serves both end to end. The copy is not type-checked (tsc would take most of a
 * minute); the edits are written as a maintainer would, and typecheck covers the real files.
 */

const APP = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = join(APP, '..', '..');
/** What is copied: the sources, the package.json they import their version from, FIDELITY.md. */
const COPIED = ['src', 'package.json', 'FIDELITY.md'];

/** Every file under `dir`, relative to `base`. */
function filesUnder(dir: string, base: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path, base) : [relative(base, path)];
  });
}

function edit(copy: string, edits: Readonly<Record<string, readonly ToyEdit[]>>): void {
  for (const [file, list] of Object.entries(edits)) {
    const path = join(copy, file);
    writeFileSync(
      path,
      list.reduce((text, e) => applyEdit(file, text, e), readFileSync(path, 'utf8')),
    );
  }
}

/** The numbered lists of ARCHITECTURE.md's "Adding a GKE method": the file each step names first. */
function documentedLists(): string[][] {
  const doc = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Adding a GKE method\n')) ?? '';
  const lists: string[][] = [];
  for (const line of section.split('\n')) {
    if (!/^\d+\. /.test(line)) continue;
    if (line.startsWith('1. ')) lists.push([]);
    const file = /`((?:src|test)\/[\w./-]+\.ts|FIDELITY\.md)`/.exec(line)?.[1] ?? line;
    lists[lists.length - 1]?.push(file);
  }
  return lists;
}

let copy: string;
let h: Harness;
/** The copy's discovery table and what it says of each RPC. */
let table: {
  methods: readonly { id: string; rpc: string }[];
  stateOf: (rpc: string) => { state: string } | undefined;
};

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'cluster-sim-toy-'));
  for (const entry of COPIED) cpSync(join(APP, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(APP, 'node_modules'), join(copy, 'node_modules'), 'dir');
  edit(copy, GENERATED_EDITS);
  edit(copy, TOY_EDITS);
  edit(copy, READ_EDITS);
  const app = await import(/* @vite-ignore */ join(copy, 'src', 'index.ts'));
  h = createHarness({}, app.createClusterSim);
  const generated = await import(/* @vite-ignore */ join(copy, 'src', 'http', 'methods.generated.ts'));
  const discovery = await import(/* @vite-ignore */ join(copy, 'src', 'http', 'routes', 'discovery.ts'));
  table = { methods: generated.DISCOVERY_METHODS, stateOf: discovery.methodState };
  await h.seedDefault();
}, 60_000);

afterAll(() => {
  h?.close();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('adding a GKE method that starts an operation', () => {
  it('edits only the files ARCHITECTURE.md lists, besides the generated discovery table', () => {
    const changed = COPIED.flatMap((entry) =>
      entry.includes('.') ? [entry] : filesUnder(join(copy, entry), copy),
    ).filter((file) => {
      const original = join(APP, file);
      let before: string | undefined;
      try {
        before = readFileSync(original, 'utf8');
      } catch {
        before = undefined;
      }
      return before !== readFileSync(join(copy, file), 'utf8');
    });
    const edited = new Set([GENERATED_EDITS, TOY_EDITS, READ_EDITS].flatMap((e) => Object.keys(e)));
    expect(changed.sort()).toEqual([...edited].sort());
    // The docs list the same files in the same order, then this test as the method's tests.
    const test = 'test/adding-a-method.test.ts';
    expect(documentedLists()).toEqual([
      [...Object.keys(TOY_EDITS), test],
      [...Object.keys(READ_EDITS), test],
    ]);
  });

  it("keeps the discovery table's rules: every RPC has a state, every method a FIDELITY.md row", () => {
    const fidelity = readFileSync(join(copy, 'FIDELITY.md'), 'utf8').split('\n');
    const toy = table.methods.filter((m) => m.rpc === 'SetToyField');
    expect(toy.map((m) => m.id)).toHaveLength(2);
    for (const m of table.methods) {
      const state = table.stateOf(m.rpc)?.state;
      expect(state, m.rpc).toBeDefined();
      const row = fidelity.find((line) => line.startsWith(`| \`${m.id}\` |`));
      expect(row, m.id).toContain(state === 'simulated' ? '| simulated' : '| **refused**: ');
    }
  });

  it('starts an operation that lands its change when the world clock reaches DONE', async () => {
    const op = await h.post(`${CLUSTER}:setToyField`, { toyField: 'a toy' });
    expect(op.status, op.text).toBe(200);
    expect(op.body.operationType).toBe('UPDATE_CLUSTER');
    expect(op.body.status).not.toBe('DONE');
    expect((await h.get(CLUSTER)).body.description).toBeUndefined();
    // A snapshot taken while it runs holds its change: imported elsewhere, it lands there too.
    const state = (await h.request('GET', '/_sim/state', { token: null })).body;
    const imported = await h.request('PUT', '/_ns/toy/_sim/state', { token: null, body: state });
    expect(imported.status, imported.text).toBe(200);
    await h.advance('5s');
    expect((await h.get(`${OPS}/${op.body.name}`)).body.status).toBe('DONE');
    expect((await h.get(CLUSTER)).body.description).toBe('a toy');
    const moved = await h.request('POST', '/_ns/toy/_sim/clock/advance', { token: null, body: { by: '5s' } });
    expect(moved.status, moved.text).toBe(200);
    expect((await h.get(`/_ns/toy${CLUSTER}`)).body.description).toBe('a toy');
  });

  it("answers the legacy zonal form, refuses with Google's error, and is journaled under its name", async () => {
    await h.advance('5s'); // whatever an earlier case left running ends first
    const toyCalls = async () =>
      (await h.journal()).filter((e) => e.operation === 'clusters.setToyField').length;
    const before = await toyCalls();
    const zonal = await h.post(`${ZONE}/clusters/c1/toyField`, { toyField: 'zonal' });
    expect(zonal.status, zonal.text).toBe(200);
    await h.advance('5s');
    expect((await h.get(CLUSTER)).body.description).toBe('zonal');
    const empty = await h.post(`${CLUSTER}:setToyField`, { toyField: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: 'toy_field must not be empty.',
    });
    const unknown = await h.post(`${CLUSTER}:setToyField`, { toyField: 'x', other: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.status).toBe('INVALID_ARGUMENT');
    expect(await toyCalls()).toBe(before + 3);
  });

  it('answers a read-only method from its row and its domain read', async () => {
    await h.advance('5s'); // whatever an earlier case left running ends first
    const set = await h.post(`${CLUSTER}:setToyField`, { toyField: 'read me' });
    expect(set.status, set.text).toBe(200);
    await h.advance('5s');
    const read = await h.get(`${CLUSTER}:getToyInfo`);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({ description: 'read me' });
    const missing = await h.get(`${LOC}/clusters/nope:getToyInfo`);
    expect(missing.status).toBe(404);
    const names = (await h.journal()).map((e) => e.operation);
    expect(names).toContain('clusters.getToyInfo');
  });

  it('is in the OpenAPI document with its request message', async () => {
    const doc = (await h.get('/openapi.json', { token: null })).body;
    const post =
      doc.paths[
        `${LOC.replace('p1', '{projectId}').replace('us-central1-a', '{location}')}/clusters/{clusterId}:setToyField`
      ]?.post;
    expect(post?.requestBody?.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SetToyFieldRequest',
    });
    expect(doc.components.schemas.SetToyFieldRequest.properties.toyField).toEqual({ type: 'string' });
  });
});
