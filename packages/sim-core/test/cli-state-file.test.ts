import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startToyCli } from './support/toy-cli';

const tmp = () => mkdtempSync(join(tmpdir(), 'sim-cli-state-'));

/** A toy snapshot of `count` widgets, each with a `size`-character colour, as GET /_sim/state writes it. */
function toySnapshot(count: number, size: number): string {
  const widgets = Array.from({ length: count }, (_, i) => ({
    name: `w${i}`,
    color: `${i}`.padEnd(size, 'x'),
  }));
  return JSON.stringify({
    simulator: 'toy-sim',
    version: '0.0.0',
    namespace: 'default',
    clock: { mode: 'manual', speed: 1, now: '2026-01-01T00:00:00.000Z' },
    faults: [],
    state: { widgets, nextWidget: count + 1 },
  });
}

describe('--state-file, streamed through the kernel', () => {
  it('loads a state file larger than the control plane accepts as a body (32 MiB), and saves it again', async () => {
    const file = join(tmp(), 'world.json');
    const bytes = Buffer.from(toySnapshot(9000, 4000));
    expect(bytes.length).toBeGreaterThan(32 * 1024 * 1024);
    writeFileSync(file, bytes);
    const cli = await startToyCli(['--state-file', file, '--clock', 'manual']);
    expect(cli.err).toEqual([]);
    expect(cli.code()).toBeUndefined();
    const widget = await fetch(`${cli.running?.url}/widgets/w8999`);
    expect(((await widget.json()) as { color: string }).color).toBe('8999'.padEnd(4000, 'x'));
    const advanced = await fetch(`${cli.running?.url}/_sim/clock/advance`, {
      method: 'POST',
      body: JSON.stringify({ by: '1h' }),
    });
    expect(advanced.status).toBe(200);
    expect(await cli.stop()).toBe(0);
    // Written again at SIGTERM: the same world in the same bytes, its clock an hour on.
    const saved = Buffer.from(bytes);
    saved.write('"now":"2026-01-01T01:00:00.000Z"', bytes.indexOf('"now":"2026-01-01T00:00:00.000Z"'));
    expect(readFileSync(file).equals(saved), 'the file holds the world loaded, an hour on').toBe(true);
  }, 30_000);

  it('saves on SIGTERM what GET /_sim/state answers, byte for byte, and the next start continues from it', async () => {
    const file = join(tmp(), 'world.json');
    const a = await startToyCli(['--state-file', file, '--clock', 'manual', '--admin-token', 't']);
    for (let i = 0; i < 50; i++) {
      await fetch(`${a.running?.url}/widgets`, {
        method: 'POST',
        body: JSON.stringify({ name: `kept-${i}`, color: 'gold ✓ "quoted"' }),
      });
    }
    const answered = await (
      await fetch(`${a.running?.url}/_sim/state`, { headers: { 'x-sim-admin-token': 't' } })
    ).text();
    expect(await a.stop()).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(answered);
    const b = await startToyCli(['--state-file', file, '--clock', 'manual', '--admin-token', 't']);
    const again = await (
      await fetch(`${b.running?.url}/_sim/state`, { headers: { 'x-sim-admin-token': 't' } })
    ).text();
    expect(again).toBe(answered);
    await b.running?.close();
  });

  it('starts with no world saved when the file is not there yet, and writes it on SIGTERM', async () => {
    const file = join(tmp(), 'first-run.json');
    const cli = await startToyCli(['--state-file', file]);
    expect(cli.err).toEqual([]);
    expect(await cli.stop()).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      simulator: 'toy-sim',
      state: { widgets: [] },
    });
  });

  it('loads --scenario files first and the state file over them', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 's.yaml'), 'seed:\n  widgets:\n    - { name: from-scenario, color: teal }\n');
    const file = join(dir, 'world.json');
    writeFileSync(file, toySnapshot(1, 4));
    const cli = await startToyCli(['--scenario', join(dir, 's.yaml'), '--state-file', file]);
    expect((await fetch(`${cli.running?.url}/widgets/from-scenario`)).status).toBe(404);
    expect((await fetch(`${cli.running?.url}/widgets/w0`)).status).toBe(200);
    await cli.running?.close();
  });

  it('exits 2 naming the file and the byte offset when the state file is cut short', async () => {
    const file = join(tmp(), 'world.json');
    const whole = toySnapshot(3, 4);
    // Cut inside the third widget's name, as a disk filling up would leave it.
    const cut = whole.indexOf('"w2"') + 3;
    writeFileSync(file, whole.slice(0, cut));
    const cli = await startToyCli(['--state-file', file]);
    expect(cli.running).toBeUndefined();
    expect(cli.code()).toBe(2);
    expect(cli.err).toEqual([
      `toy-sim: state file "${file}": malformed JSON at byte ${cut} (in state.widgets[2].name): unexpected end of file (the file is cut short)`,
    ]);
  });

  it('exits 2 naming the file and the field when the state file is JSON but not a snapshot', async () => {
    const file = join(tmp(), 'world.json');
    writeFileSync(file, '{"state": {"widgets": "no"}}');
    const cli = await startToyCli(['--state-file', file]);
    expect(cli.code()).toBe(2);
    expect(cli.err[0]).toMatch(/^toy-sim: state file ".*world\.json": state\.widgets/);
  });

  it('exits 2 naming the file when it cannot be read', async () => {
    const file = join(tmp(), 'world.json');
    mkdirSync(file);
    const cli = await startToyCli(['--state-file', file]);
    expect(cli.code()).toBe(2);
    expect(cli.err).toEqual([
      expect.stringMatching(/^toy-sim: cannot read state file ".*world\.json": EISDIR/),
    ]);
  });

  it('exits 1 with one line naming the file when the state cannot be saved on SIGTERM', async () => {
    const file = join(tmp(), 'world.json');
    const cli = await startToyCli(['--state-file', file]);
    // A directory where the file should be: the save's rename cannot replace it.
    mkdirSync(file);
    writeFileSync(join(file, 'keep'), 'x');
    expect(await cli.stop()).toBe(1);
    expect(cli.err).toEqual([
      expect.stringMatching(/^toy-sim: could not save the state to ".*world\.json": /),
    ]);
  });
});
