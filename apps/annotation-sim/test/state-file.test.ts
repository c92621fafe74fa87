import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, startCli } from './support/cli-process';
import { startReceiver } from './support/receiver';

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

/**
 * Where two snapshots differ, or undefined when they hold the same world; compared without vitest's
 * diff, which a world this size would drown.
 */
function difference(a: string, b: string): string | undefined {
  if (a === b) return undefined;
  const [x, y] = [JSON.parse(a), JSON.parse(b)];
  if (isDeepStrictEqual(x, y)) return undefined;
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (key === 'state') continue;
    if (!isDeepStrictEqual(x[key], y[key]))
      return `${key}: ${JSON.stringify(x[key])} vs ${JSON.stringify(y[key])}`;
  }
  for (const key of new Set([...Object.keys(x.state), ...Object.keys(y.state)])) {
    const [p, q] = [x.state[key], y.state[key]];
    if (isDeepStrictEqual(p, q)) continue;
    if (!Array.isArray(p) || !Array.isArray(q) || p.length !== q.length)
      return `state.${key}: ${JSON.stringify(p).slice(0, 300)} vs ${JSON.stringify(q).slice(0, 300)}`;
    const i = p.findIndex((item, n) => !isDeepStrictEqual(item, q[n]));
    return `state.${key}[${i}]: ${JSON.stringify(p[i])} vs ${JSON.stringify(q[i])}`;
  }
  return 'differ';
}

const stateOf = async (url: string) => (await fetch(`${url}/_sim/state`)).text();

describe('annotation-sim --state-file', () => {
  it('saves 10,000 tasks with their webhooks, deliveries and events at SIGTERM, and the next start loads them whole', async () => {
    const receiver = await startReceiver();
    try {
      const file = join(mkdtempSync(join(tmpdir(), 'annotation-sim-large-state-')), 'world.json');
      const args = ['--port', '0', '--clock', 'manual', '--seed', '7', '--state-file', file];
      const first = await startCli(args, started);
      const seeded = await fetch(`${first.url}/_sim/seed`, {
        method: 'POST',
        body: JSON.stringify({
          users: [{ username: 'owner', token: 'owner-token', privilege: 'admin' }],
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
            target_url: receiver.url,
            type: 'project',
            project: `project-${i}`,
            owner: 'owner',
            events: ['update:task', 'update:job'],
            secret: 'shh',
          })),
        }),
      });
      expect(seeded.status, await seeded.clone().text()).toBe(201);
      // Deliveries: a change to a task of each hooked project (its server events logged too).
      const api = { authorization: 'Token owner-token', 'content-type': 'application/json' };
      for (let task = 1; task <= HOOKED_PROJECTS; task++) {
        const res = await fetch(`${first.url}/api/tasks/${task}`, {
          method: 'PATCH',
          headers: api,
          body: JSON.stringify({ name: `renamed-${task}` }),
        });
        expect(res.status).toBe(200);
      }
      expect((await fetch(`${first.url}/_sim/deliveries/idle`, { method: 'POST' })).status).toBe(200);
      expect(receiver.requests.length).toBe(HOOKED_PROJECTS);
      // The event log, written directly (as the control plane offers for seeding): rows per task.
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
        const res = await fetch(`${first.url}/_sim/events/records`, {
          method: 'POST',
          body: JSON.stringify({ events }),
        });
        expect(res.status, await res.clone().text()).toBe(201);
      }
      const saved = await stateOf(first.url);
      const snapshot = JSON.parse(saved);
      expect(snapshot.state.tasks).toHaveLength(TASKS);
      expect(snapshot.state.jobs).toHaveLength(4 * TASKS);
      expect(snapshot.state.webhooks).toHaveLength(HOOKED_PROJECTS);
      expect(snapshot.state.deliveries).toHaveLength(HOOKED_PROJECTS);
      expect(snapshot.state.extensions.events.events.length).toBeGreaterThanOrEqual(SCOPES.length * TASKS);
      // Past the control plane's body limit: the state file must not go through it.
      expect(Buffer.byteLength(saved)).toBeGreaterThan(32 * 1024 * 1024);
      expect(await first.stop()).toBe(0);
      expect(readFileSync(file, 'utf8') === saved, 'the file holds what GET /_sim/state answered').toBe(true);

      const second = await startCli(args, started);
      expect(difference(await stateOf(second.url), saved)).toBeUndefined();
      const tasks = await fetch(`${second.url}/api/tasks?page_size=1`, { headers: api });
      expect(((await tasks.json()) as { count: number }).count).toBe(TASKS);
      expect(await second.stop()).toBe(0);
    } finally {
      await receiver.close();
    }
  }, 180_000);

  it('exits 2 naming the file, the byte offset and the member when the state file is cut short', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'annotation-sim-cut-state-')), 'world.json');
    const text = '{"simulator":"annotation-sim","state":{"tasks":[{"na';
    writeFileSync(file, text);
    await expect(startCli(['--port', '0', '--state-file', file], started)).rejects.toThrow(
      `exited with 2: annotation-sim: state file "${file}": malformed JSON at byte ${text.length} (in state.tasks[0]): unexpected end of file (the file is cut short)`,
    );
  }, 30_000);
});
