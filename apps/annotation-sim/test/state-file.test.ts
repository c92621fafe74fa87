import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportWorldSnapshot, importWorldSnapshot } from '@sims/sim-core';
import { killAll, startCli } from '@sims/test-support/cli-process';
import { textDifference } from '@sims/test-support/snapshot-difference';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness } from './support/harness';

const started = new Set<ChildProcess>();
afterEach(() => killAll(started));

const TASKS = 10_000;
const PROJECTS = 100;
const HOOKED_PROJECTS = 20;
/** Client events logged per task (the event log keeps 100,000 rows). */
const SCOPES = [
  'load:job',
  'change:frame',
  'draw:object',
  'resize:object',
  'zoom:image',
  'save:job',
  'click:element',
];
const TOKEN = 'owner-token';

/**
 * A state file of 10,000 tasks of four jobs in 100 projects, 20 of them with a webhook that delivered a
 * change of a task, and seven client events a task in the event log (the task changes logged there too),
 * as the CLI saves one. Made in-process by the app itself (seeded, changed through the API, the
 * deliveries answered by a sender that says 200, the events written as the control plane offers), then
 * loaded once: a load puts a record's fields in its schema's order, as the next save writes them.
 */
async function stateFile(): Promise<Buffer> {
  const h = createHarness({
    sender: async () => ({ kind: 'response' as const, status: 200, body: 'ok' }),
  });
  try {
    h.seed({
      users: [{ username: 'owner', token: TOKEN, privilege: 'admin' }],
      projects: Array.from({ length: PROJECTS }, (_, i) => ({
        name: `project-${i}`,
        owner: 'owner',
        labels: [{ name: 'car' }, { name: 'person' }],
      })),
      // Four jobs each (20 frames in segments of 5).
      tasks: Array.from({ length: TASKS }, (_, i) => ({
        name: `task-${i}`,
        owner: 'owner',
        project: `project-${i % PROJECTS}`,
        size: 20,
        segment_size: 5,
      })),
      webhooks: Array.from({ length: HOOKED_PROJECTS }, (_, i) => ({
        target_url: 'http://127.0.0.1:9/hook',
        type: 'project',
        project: `project-${i}`,
        owner: 'owner',
        events: ['update:task', 'update:job'],
        secret: 'shh',
      })),
    });
    for (let task = 1; task <= HOOKED_PROJECTS; task++)
      expect(
        (await h.patch(`/api/tasks/${task}`, { name: `renamed-${task}` }, { token: TOKEN })).status,
      ).toBe(200);
    await h.idle();
    for (const scope of SCOPES) {
      const events = Array.from({ length: TASKS }, (_, i) => ({
        scope,
        source: 'client',
        project_id: (i % PROJECTS) + 1,
        task_id: i + 1,
        job_id: i * 4 + 1,
        user_id: 2,
        user_name: 'owner',
        user_email: 'owner@example.com',
        duration: 1200 + i,
        payload: JSON.stringify({ frame: i % 20, tool: 'rectangle' }),
      }));
      const res = await h.post('/_sim/events/records', { events });
      expect(res.status, res.text).toBe(201);
    }
    const { def } = h.sim.kernel;
    const loaded = h.sim.world('loaded');
    importWorldSnapshot(def, loaded, JSON.parse(JSON.stringify(exportWorldSnapshot(def, h.sim.world()))));
    const snapshot = { ...exportWorldSnapshot(def, loaded), namespace: 'default' };
    const { state } = snapshot as {
      state: Record<string, unknown[]> & { extensions: { events: { events: [] } } };
    };
    expect(state.tasks).toHaveLength(TASKS);
    expect(state.jobs).toHaveLength(4 * TASKS);
    expect(state.webhooks).toHaveLength(HOOKED_PROJECTS);
    expect(state.deliveries).toHaveLength(HOOKED_PROJECTS);
    expect(state.extensions.events.events.length).toBeGreaterThanOrEqual(SCOPES.length * TASKS);
    return Buffer.from(JSON.stringify(snapshot));
  } finally {
    h.close();
  }
}

describe('annotation-sim --state-file', () => {
  it('loads 10,000 tasks with their webhooks, deliveries and events at start and saves them at SIGTERM, byte for byte', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'annotation-sim-large-state-')), 'world.json');
    const bytes = await stateFile();
    // Past the control plane's body limit: the state file must not go through it.
    expect(bytes.length).toBeGreaterThan(32 * 1024 * 1024);
    writeFileSync(file, bytes);

    const cli = await startCli(
      'annotation-sim',
      ['--port', '0', '--clock', 'manual', '--state-file', file],
      started,
    );
    const tasks = await fetch(`${cli.url}/api/tasks?page_size=1`, {
      headers: { authorization: `Token ${TOKEN}` },
    });
    expect(((await tasks.json()) as { count: number }).count).toBe(TASKS);
    expect(await cli.stop()).toBe(0);
    // The same world, but for the base of its links: the one the last request came by.
    const base = '"baseUrl":"http://localhost"';
    const at = bytes.indexOf(base);
    expect(at).toBeGreaterThan(0);
    const expected = Buffer.concat([
      bytes.subarray(0, at),
      Buffer.from(`"baseUrl":"${cli.url}"`),
      bytes.subarray(at + base.length),
    ]);
    expect(textDifference(readFileSync(file), expected)).toBeUndefined();
  }, 120_000);

  it('exits 2 naming the file, the byte offset and the member when the state file is cut short', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'annotation-sim-cut-state-')), 'world.json');
    const text = '{"simulator":"annotation-sim","state":{"tasks":[{"na';
    writeFileSync(file, text);
    await expect(startCli('annotation-sim', ['--port', '0', '--state-file', file], started)).rejects.toThrow(
      `exited with 2: annotation-sim: state file "${file}": malformed JSON at byte ${text.length} (in state.tasks[0]): unexpected end of file (the file is cut short)`,
    );
  }, 30_000);
});
