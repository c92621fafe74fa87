import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';
import { applyEdit, TOY_EDITS } from './support/toy-resource';

/**
 * Adding a CVAT resource takes the files docs/ARCHITECTURE.md lists ("Adding a CVAT resource"), and only
 * those: a copy of the app and of its schema package gets a toy resource, `/api/toys`
 * (support/toy-resource.ts), by plain text edits of those files; the copy is loaded as it is (its `@sims/*`
 * imports resolve to this repository's sources, but `@sims/annotation-schema` to the copied package) and
 * serves the resource end to end. The copy is not type-checked (tsc would take most of a minute); the
 * edits are written as a maintainer would, and typecheck covers the real files.
 */

const APP = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = join(APP, '..', '..');
const SCHEMA = 'packages/annotation-schema';
/** What is copied, from the repository's root: the app's sources, the package.json they import their
 * version from, FIDELITY.md, and the schema package's sources. */
const COPIED = [
  'apps/annotation-sim/src',
  'apps/annotation-sim/package.json',
  'apps/annotation-sim/FIDELITY.md',
  `${SCHEMA}/src`,
  `${SCHEMA}/package.json`,
];

/** A file as ARCHITECTURE.md names it (the app's relative to the app) from the repository's root. */
const fromRoot = (file: string) => (file.startsWith('packages/') ? file : `apps/annotation-sim/${file}`);
/** A path from the repository's root as ARCHITECTURE.md names it. */
const asNamed = (path: string) =>
  path.startsWith('apps/annotation-sim/') ? path.slice('apps/annotation-sim/'.length) : path;

/** Every file under `dir`, relative to `base`. */
function filesUnder(dir: string, base: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path, base) : [relative(base, path)];
  });
}

/** The app's node_modules, but `@sims/annotation-schema` is the copied package. */
function linkModules(copy: string): void {
  const modules = join(APP, 'node_modules');
  const into = join(copy, 'apps/annotation-sim/node_modules');
  mkdirSync(join(into, '@sims'), { recursive: true });
  for (const name of readdirSync(modules))
    if (name !== '@sims') symlinkSync(join(modules, name), join(into, name));
  for (const name of readdirSync(join(modules, '@sims'))) {
    const target = name === 'annotation-schema' ? join(copy, SCHEMA) : join(modules, '@sims', name);
    symlinkSync(target, join(into, '@sims', name), 'dir');
  }
  symlinkSync(join(ROOT, SCHEMA, 'node_modules'), join(copy, SCHEMA, 'node_modules'), 'dir');
}

/**
 * The numbered list of ARCHITECTURE.md's "Adding a CVAT resource": the file each step names first, a
 * new file's `<resource>` read as the toy's name.
 */
function documentedList(): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Adding a CVAT resource\n')) ?? '';
  return section
    .split('\n')
    .filter((line) => /^\d+\. /.test(line))
    .map((line) => /`((?:src|test|packages)\/[\w./<>-]+\.ts|FIDELITY\.md)`/.exec(line)?.[1] ?? line)
    .map((file) => file.replace('<resource>', 'toys'));
}

let copy: string;
let h: Harness;
/** The id of the seeded user `alice`. */
let alice: number;

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'annotation-sim-toy-'));
  for (const entry of COPIED) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
  linkModules(copy);
  for (const [file, edits] of Object.entries(TOY_EDITS)) {
    const path = join(copy, fromRoot(file));
    const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    writeFileSync(
      path,
      edits.reduce<string | undefined>((text, e) => applyEdit(file, text, e), before) as string,
    );
  }
  const app = await import(/* @vite-ignore */ join(copy, 'apps/annotation-sim/src/index.ts'));
  h = createHarness({}, app.createAnnotationSim);
  alice = h.seed({ users: [{ username: 'alice' }] }).users.alice as number;
}, 60_000);

afterAll(async () => {
  await h?.close();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

const journaled = async (operation: string) => {
  const res = await h.get(`/_sim/journal?operation=${operation}`);
  return (res.body as { entries: unknown[] }).entries.length;
};

describe('adding a CVAT resource that stores records', () => {
  it('edits only the files ARCHITECTURE.md lists, in its order', () => {
    const changed = COPIED.flatMap((entry) =>
      entry.endsWith('src') ? filesUnder(join(copy, entry), copy) : [entry],
    ).filter((file) => {
      const original = join(ROOT, file);
      const before = existsSync(original) ? readFileSync(original, 'utf8') : undefined;
      return before !== readFileSync(join(copy, file), 'utf8');
    });
    expect(changed.map(asNamed).sort()).toEqual(Object.keys(TOY_EDITS).sort());
    // The docs list the same files in the same order, then this test as the resource's tests.
    expect(documentedList()).toEqual([...Object.keys(TOY_EDITS), 'test/adding-a-resource.test.ts']);
  });

  it("creates, lists, retrieves, patches and deletes a toy in CVAT's shapes", async () => {
    const made = await h.post('/api/toys', { name: 'ball' }, { as: 'alice' });
    expect(made.status, made.text).toBe(201);
    expect(made.headers.get('content-type')).toBe('application/vnd.cvat+json');
    expect(made.body).toEqual({
      url: `http://localhost/api/toys/${made.body.id}`,
      id: made.body.id,
      name: 'ball',
      owner: expect.objectContaining({ id: alice, username: 'alice' }),
      created_date: '2026-01-01T00:00:00Z',
      updated_date: '2026-01-01T00:00:00Z',
    });
    const other = await h.post('/api/toys', { name: 'kite' }, { as: 'alice' });
    expect(other.status, other.text).toBe(201);

    const page = await h.get('/api/toys?page_size=1', { as: 'alice' });
    expect(page.status, page.text).toBe(200);
    expect(page.body).toEqual({
      count: 2,
      next: 'http://localhost/api/toys?page=2&page_size=1',
      previous: null,
      results: [expect.objectContaining({ id: other.body.id, name: 'kite' })],
    });

    expect((await h.get(`/api/toys/${made.body.id}`, { as: 'alice' })).body).toEqual(made.body);
    h.advance('1s');
    const patched = await h.patch(`/api/toys/${made.body.id}`, { name: 'bat' }, { as: 'alice' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: 'bat', updated_date: '2026-01-01T00:00:01Z' });

    const gone = await h.del(`/api/toys/${other.body.id}`, { as: 'alice' });
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    const missing = await h.get(`/api/toys/${other.body.id}`, { as: 'alice' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'No Toy matches the given query.' });
    expect((await h.del(`/api/toys/${other.body.id}`, { as: 'alice' })).status).toBe(404);
    expect((await h.get('/api/toys/x', { as: 'alice' })).body).toEqual({ detail: 'Not found.' });
  });

  it("refuses a bad body with DRF's field errors and a taken name with the domain's", async () => {
    const empty = await h.post('/api/toys', {}, { as: 'alice' });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ name: ['This field is required.'] });
    const long = await h.post('/api/toys', { name: 'x'.repeat(65) }, { as: 'alice' });
    expect(long.body).toEqual({ name: ['Ensure this field has no more than 64 characters.'] });
    const taken = await h.post('/api/toys', { name: 'top' }, { as: 'alice' });
    expect(taken.status, taken.text).toBe(201);
    const again = await h.post('/api/toys', { name: 'top' }, { as: 'alice' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ name: ['toy with this name already exists.'] });
    const blank = await h.patch(`/api/toys/${taken.body.id}`, { name: '' }, { as: 'alice' });
    expect(blank.body).toEqual({ name: ['This field may not be blank.'] });
    expect((await h.post('/api/toys', { name: 'a' })).status).toBe(401);
  });

  it('journals each call under its row and is in the OpenAPI document', async () => {
    for (const op of ['create', 'list', 'retrieve', 'partial_update', 'destroy'])
      expect(await journaled(`toys.${op}`), op).toBeGreaterThan(0);
    const doc = (await h.get('/openapi.json')).body;
    expect(doc.paths['/api/toys'].post.operationId).toBe('toys_create');
    expect(doc.paths['/api/toys/{id}'].patch.operationId).toBe('toys_partial_update');
  });

  it('exports its table in a snapshot and imports it back, checked', async () => {
    const toys = (await h.get('/api/toys?page_size=all', { as: 'alice' })).body.results;
    expect(toys.length).toBeGreaterThan(0);
    const state = (await h.get('/_sim/state')).body;
    const rows = state.state.toys as [number, { name: string }][];
    expect(rows.map(([, t]) => t.name).sort()).toEqual(toys.map((t: { name: string }) => t.name).sort());

    const put = (body: unknown) => h.request('PUT', '/_ns/copy/_sim/state', { body });
    expect((await put(state)).status).toBe(200);
    const copied = await h.get('/_ns/copy/api/toys?page_size=all', { as: 'alice' });
    // The same records; their links are the namespace's.
    const inCopy = JSON.stringify(toys).replaceAll('http://localhost/api/', 'http://localhost/_ns/copy/api/');
    expect(copied.body.results).toEqual(JSON.parse(inCopy));
    // A row that names no user is refused at its path, and the namespace keeps its toys.
    const [first] = rows;
    const bad = {
      ...state,
      state: { ...state.state, toys: [[first?.[0], { ...first?.[1], owner_id: 999 }]] },
    };
    const refused = await put(bad);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('state.toys[0][1].owner_id');
    expect((await h.get('/_ns/copy/api/toys', { as: 'alice' })).body.count).toBe(toys.length);
  });
});
