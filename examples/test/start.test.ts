// The newcomer's first minute: `npm start` from the repository's root, then the "Try:" commands it
// prints, run as printed (as fetch requests, on 127.0.0.1 only). All ports are 0 (free ones), so a running
// `npm start` on the default ports does not get in the way; the printed URLs say which were taken.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { type CurlRequest, curlRequest, send, tryCommands } from './support/curl';
import {
  type GroupProcess,
  groupMembers,
  signalGroup,
  spawnGroup,
  waitForStdout,
} from './support/process-group';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const POOL =
  '/v1beta1/projects/demo-project/locations/us-central1-a/clusters/demo-cluster/nodePools/default-pool';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON
type AnyJson = any;

/** "<name>  http://127.0.0.1:<port>   (dashboard <url>/_sim/ui/, control plane <url>/_sim, API docs <url>/openapi.json)" */
function urlLine(name: string): RegExp {
  return new RegExp(
    `^${name}\\s+(http://127\\.0\\.0\\.1:[1-9]\\d*)\\s+\\(dashboard \\1/_sim/ui/, control plane \\1/_sim, API docs \\1/openapi\\.json\\)$`,
    'm',
  );
}

/**
 * This process's environment less what the test setup adds: vitest's NODE_OPTIONS carries the workspace's
 * source condition (`--conditions=@sims/source`) for the processes tests spawn, and a newcomer's shell
 * has no such flag, so `npm start` must bring whatever it needs itself. Also no SIM_HOST.
 */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.SIM_HOST;
  const options = (env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean);
  const kept = options.filter(
    (option, i) =>
      !/^(--conditions|-C)=?@sims\/source$/.test(option) &&
      !(option === '@sims/source' && /^(--conditions|-C)$/.test(options[i - 1] ?? '')) &&
      !(/^(--conditions|-C)$/.test(option) && options[i + 1] === '@sims/source'),
  );
  if (kept.length > 0) env.NODE_OPTIONS = kept.join(' ');
  else delete env.NODE_OPTIONS;
  return env;
}

let started: GroupProcess | undefined;

afterEach(async () => {
  // Whatever happened in the test, nothing of `npm start` outlives it.
  if (started && groupMembers(started.pgid).length > 0) {
    signalGroup(started.pgid, 'SIGKILL');
    await expect.poll(() => groupMembers((started as GroupProcess).pgid), { timeout: 5_000 }).toEqual([]);
  }
  started = undefined;
});

it('npm start: prints the URLs, its Try: steps work as printed, the echo receiver prints the signed update:task, SIGTERM stops all', async () => {
  started = spawnGroup('npm', ['start'], {
    cwd: repo,
    env: { ...newcomerEnv(), SIM_CLUSTER_PORT: '0', SIM_ANNOTATION_PORT: '0', SIM_ECHO_PORT: '0' },
  });
  const p = started;
  await waitForStdout(p, /^Stop with Ctrl-C\.$/m, 35_000);
  const stdout = p.stdout();

  // What README.md says `npm start` prints: the URLs of both simulators, one line each, and they answer.
  const readmeLine = readFileSync(join(repo, 'README.md'), 'utf8')
    .split('\n')
    .find((line) => line.startsWith('npm start'));
  expect(readmeLine).toMatch(/starts both simulators .*prints their URLs/);
  const cluster = urlLine('cluster-sim').exec(stdout)?.[1];
  const annotation = urlLine('annotation-sim').exec(stdout)?.[1];
  const echo = /^echo receiver\s+(http:\/\/127\.0\.0\.1:[1-9]\d*)\s/m.exec(stdout)?.[1];
  expect({ cluster, annotation, echo }).toEqual({
    cluster: expect.any(String),
    annotation: expect.any(String),
    echo: expect.any(String),
  });
  expect(new Set([cluster, annotation, echo]).size).toBe(3);
  for (const [url, simulator] of [
    [cluster, 'cluster-sim'],
    [annotation, 'annotation-sim'],
  ]) {
    const health = await send(curlRequest(`curl ${url}/_sim/health`));
    expect(health.status, health.text).toBe(200);
    expect(health.json).toMatchObject({ status: 'ok', simulator });
    expect((await send(curlRequest(`curl ${url}/openapi.json`))).status).toBe(200);
  }

  // The "Try:" steps, in the order printed.
  const steps = tryCommands(stdout).map(curlRequest);
  expect(steps.map((s) => `${s.method} ${s.url}`)).toEqual([
    `GET ${cluster}${POOL}`,
    `PUT ${cluster}${POOL}`,
    `GET ${annotation}/api/tasks`,
    expect.stringMatching(new RegExp(`^PATCH ${annotation}/api/tasks/\\d+$`)),
    `GET ${annotation}/_sim/journal`,
  ]);
  const [getPool, upgradePool, listTasks, renameTask, journal] = steps as [
    CurlRequest,
    CurlRequest,
    CurlRequest,
    CurlRequest,
    CurlRequest,
  ];

  const pool = await send(getPool);
  expect(pool.status, pool.text).toBe(200);
  expect(pool.json).toMatchObject({ name: 'default-pool', version: '1.29.8-gke.1211000' });

  const upgrade = await send(upgradePool);
  expect(upgrade.status, upgrade.text).toBe(200);
  expect(upgrade.json).toMatchObject({ operationType: 'UPGRADE_NODES' });
  expect((upgrade.json as AnyJson).targetLink).toMatch(/\/clusters\/demo-cluster\/nodePools\/default-pool$/);

  // admin:admin works, and the task the PATCH names is the demo task.
  const tasks = await send(listTasks);
  expect(tasks.status, tasks.text).toBe(200);
  const demoTask = (tasks.json as AnyJson).results.find((t: AnyJson) => t.name === 'demo-task');
  expect(demoTask, tasks.text).toBeDefined();
  expect(renameTask.url).toBe(demoTask.url);

  const renamed = await send(renameTask);
  expect(renamed.status, renamed.text).toBe(200);
  expect(renamed.json).toMatchObject({ id: demoTask.id, name: 'renamed' });

  // The promise printed under the PATCH: the echo receiver prints the signed update:task delivery.
  await expect
    .poll(() => p.stdout(), { timeout: 10_000 })
    .toMatch(/^echo receiver: update:task \(\d+ bytes, signature valid\)$/m);
  expect(p.stdout()).not.toMatch(/signature (INVALID|absent)/);

  const received = await send(journal);
  expect(received.status, received.text).toBe(200);
  expect((received.json as AnyJson).entries).toContainEqual(
    expect.objectContaining({ method: 'PATCH', path: new URL(renameTask.url).pathname, status: 200 }),
  );

  // SIGTERM to the group (what Ctrl-C does to a terminal's foreground group): everything exits.
  expect(signalGroup(p.pgid, 'SIGTERM')).toBe(true);
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000).unref());
  expect(await Promise.race([p.exited.then(() => 'exited'), timeout])).toBe('exited');
  await expect.poll(() => groupMembers(p.pgid), { timeout: 5_000 }).toEqual([]);
  // And the ports are free again.
  for (const url of [cluster, annotation, echo]) {
    await expect(fetch(`${url}/`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
  }
}, 60_000);
