import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { SimulatorDefinition } from '../src/definition';
import { createSimKernel, type KernelOptions } from '../src/http/kernel';
import { parseInput } from '../src/validation';
import { snapshotJsonDepth } from '../src/world-snapshot';
import { call } from './support/http';
import { startToyCli } from './support/toy-cli';

/**
 * A simulator whose API keeps what it is given, as annotation-sim keeps an organization's `contact`,
 * and takes JSON nested 1,000 levels, as annotation-sim does.
 */
interface NotesState {
  notes: unknown[];
}
const API_DEPTH = 1000;
const notesDefinition: SimulatorDefinition<NotesState> = {
  name: 'notes-sim',
  version: '0.0.0',
  limits: { maxJsonDepth: API_DEPTH },
  createState: () => ({ notes: [] }),
  exportState: (w) => ({ notes: w.state.notes }),
  importState(w, snapshot) {
    const s = parseInput(z.object({ notes: z.array(z.unknown()) }).strict(), snapshot, 'state');
    w.state = { notes: s.notes };
  },
  seed: () => ({}),
  renderFaultError: (c, error) => c.json({ message: error.message ?? 'injected' }, 503),
};

function createNotesSim(
  options: KernelOptions = { clock: { mode: 'manual', start: '2026-01-01T00:00:00Z' } },
) {
  const kernel = createSimKernel(notesDefinition, options);
  kernel.app.post('/notes', kernel.operation('notes.create'), (c) => {
    const sim = c.var.sim;
    if (sim.jsonError) return c.json({ message: sim.jsonError }, 400);
    sim.world.state.notes.push((sim.json as { note: unknown }).note);
    return c.json({ kept: sim.world.state.notes.length }, 201);
  });
  return kernel;
}

/** `{"a":{"a":…{"x":1}}}`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { x: 1 };
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

/** The deepest note the API takes: `{"note": …}` nested as deep as its limit. */
const deepest = () => nested(API_DEPTH - 1);

const tmp = () => mkdtempSync(join(tmpdir(), 'sim-snapshot-depth-'));

describe('a world holding JSON as deep as its API takes', () => {
  it('is taken back by PUT /_sim/state from what GET /_sim/state answered', async () => {
    const { app } = createNotesSim();
    expect((await call(app, 'POST', '/notes', { note: deepest() })).status).toBe(201);
    // The API's own limit: one level more is refused.
    expect((await call(app, 'POST', '/notes', { note: nested(API_DEPTH) })).status).toBe(400);
    const saved = await call(app, 'GET', '/_sim/state');
    const other = createNotesSim();
    const put = await call(other.app, 'PUT', '/_sim/state', saved.text);
    expect(put.status, put.text).toBe(200);
    expect((await call(other.app, 'GET', '/_sim/state')).text).toBe(saved.text);
  });

  it("refuses with a 400 a snapshot nested past the simulator's depth, and the world stays as it was", async () => {
    const { app } = createNotesSim();
    await call(app, 'POST', '/notes', { note: 'kept' });
    const before = (await call(app, 'GET', '/_sim/state')).text;
    const limit = snapshotJsonDepth(notesDefinition);
    // state(2) notes(3): a note of limit - 2 levels takes the snapshot one level past the limit.
    const res = await call(app, 'PUT', '/_sim/state', { state: { notes: [nested(limit - 2)] } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(`JSON body nested deeper than ${limit} levels`);
    expect((await call(app, 'GET', '/_sim/state')).text).toBe(before);
    const within = await call(app, 'PUT', '/_sim/state', { state: { notes: [nested(limit - 3)] } });
    expect(within.status, within.text).toBe(200);
  });

  it('is saved to --state-file on SIGTERM and loaded whole on the next start', async () => {
    const file = join(tmp(), 'world.json');
    const first = await startToyCli(['--state-file', file, '--clock', 'manual'], createNotesSim);
    const posted = await fetch(`${first.running?.url}/notes`, {
      method: 'POST',
      body: JSON.stringify({ note: deepest() }),
    });
    expect(posted.status).toBe(201);
    const answered = await (await fetch(`${first.running?.url}/_sim/state`)).text();
    expect(await first.stop()).toBe(0);
    const second = await startToyCli(['--state-file', file, '--clock', 'manual'], createNotesSim);
    expect(second.err).toEqual([]);
    expect(second.code()).toBeUndefined();
    expect(await (await fetch(`${second.running?.url}/_sim/state`)).text()).toBe(answered);
    await second.running?.close();
  });

  it("exits 2 for a state file nested past the simulator's depth, saying so with a short path", async () => {
    const file = join(tmp(), 'world.json');
    const limit = snapshotJsonDepth(notesDefinition);
    writeFileSync(file, JSON.stringify({ state: { notes: [nested(limit)] } }));
    const cli = await startToyCli(['--state-file', file], createNotesSim);
    expect(cli.running).toBeUndefined();
    expect(cli.code()).toBe(2);
    // The object that would be level limit + 1: the note's (limit - 2)th, under limit - 3 `a` keys.
    const at = '{"state":{"notes":['.length + '{"a":'.length * (limit - 3);
    expect(cli.err).toEqual([
      `toy-sim: state file "${file}": JSON nested deeper than ${limit} levels (the simulator's limit) at byte ${at} (in state.notes[0].a.a.a.a.a.a.a … a.a.a (${limit} levels))`,
    ]);
  });
});
