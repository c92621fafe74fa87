// The README's dashboard screenshots: docs/images/<simulator>-dashboard-<tab>.png (cluster-sim's Operations
// and Requests, annotation-sim's Deliveries and Faults), each /_sim/ui/ at 1280x800 in headless Chromium.
//
//   pnpm exec tsx --conditions=@sims/source scripts/screenshots.mjs
//
// (from the repository's root; `node --conditions=@sims/source --import tsx scripts/screenshots.mjs` is the
// same). It needs Chromium at /usr/bin/chromium (`sudo apt-get install -y chromium chromium-driver`) or
// $SIMS_CHROMIUM. Both simulators run in this process on 127.0.0.1 with a manual clock, started by the
// browser tests' harness (packages/dashboard/test/e2e/harness.ts), which also keeps the page on the
// simulator's own origin: nothing is fetched from anywhere else. The demo activity it seeds:
// - cluster-sim: scenarios/demo-cluster.yaml, and a node pool upgrade to `latest` still in flight;
// - annotation-sim: scenarios/demo-annotation.yaml (a project, a task, a project webhook) with the webhook
//   pointed at a receiver on 127.0.0.1, and one delivery to it (update:task, from renaming the task).
// It exits 1 when a page does not answer 200 or logs errors (the screenshot is written all the same).
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  call,
  launchBrowser,
  openPage,
  startReceiver,
  startSims,
} from '../packages/dashboard/test/e2e/harness.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'docs', 'images');
/** The demo webhook's target in scenarios/demo-annotation.yaml, replaced by the receiver's real address. */
const DEMO_WEBHOOK_TARGET = 'http://127.0.0.1:8087/';
const VIEWPORT = { width: 1280, height: 800 };

async function loadScenario(base, file, text = readFileSync(join(root, 'scenarios', file), 'utf8')) {
  await call(base, 'POST', `/_sim/scenarios?source=${encodeURIComponent(file)}`, {
    body: text,
    headers: { 'content-type': 'application/yaml' },
  });
}

async function seedCluster(base) {
  await loadScenario(base, 'demo-cluster.yaml');
  const pool =
    '/v1beta1/projects/demo-project/locations/us-central1-a/clusters/demo-cluster/nodePools/default-pool';
  const auth = { authorization: 'Bearer demo' };
  // A fault that fires once: the first update is ABORTED, as a concurrent change would make it.
  await call(base, 'POST', '/_sim/faults', {
    body: {
      id: 'abort-first-update',
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { error: { status: 'ABORTED' } },
    },
  });
  await call(base, 'GET', pool, { headers: auth });
  await call(base, 'PUT', pool, { body: { nodeVersion: 'latest' }, headers: auth, expectStatus: 409 });
  await call(base, 'GET', pool, { headers: auth });
  await call(base, 'PUT', pool, { body: { nodeVersion: 'latest' }, headers: auth });
  // A second in: the upgrade is under way, not done.
  await call(base, 'POST', '/_sim/clock/advance', { body: { by: '1s' } });
}

async function seedAnnotation(base, receiver) {
  const text = readFileSync(join(root, 'scenarios', 'demo-annotation.yaml'), 'utf8');
  if (!text.includes(DEMO_WEBHOOK_TARGET)) {
    throw new Error(`scenarios/demo-annotation.yaml: no webhook targets ${DEMO_WEBHOOK_TARGET}`);
  }
  await loadScenario(base, 'demo-annotation.yaml', text.replaceAll(DEMO_WEBHOOK_TARGET, receiver.url));
  const admin = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };
  // The receiver refuses the second delivery once (a fault rule on the delivery), so one row shows a failure.
  await call(base, 'POST', '/_sim/faults', {
    body: { id: 'refuse-one-delivery', match: {}, trigger: { nth: 2 }, effect: { deliveryRefused: true } },
  });
  // The seeded superuser is admin / admin; renaming task 1 fires the project webhook's update:task.
  await call(base, 'PATCH', '/api/tasks/1', { body: { name: 'demo-task (renamed)' }, headers: admin });
  await receiver.waitFor(1);
  await call(base, 'PATCH', '/api/tasks/1', { body: { name: 'demo-task (again)' }, headers: admin });
  await call(base, 'POST', '/_sim/deliveries/idle');
  await call(base, 'GET', '/api/tasks/1', { headers: admin });
}

async function capture(browser, name, base, tab) {
  const { page, consoleErrors, offSiteRequests } = await openPage(browser, base, { viewport: VIEWPORT });
  const problems = [];
  try {
    const response = await page.goto(`${base}/_sim/ui/#tab=${tab}`, { waitUntil: 'load' });
    if (response?.status() !== 200) problems.push(`/_sim/ui/ answered ${response?.status() ?? 'nothing'}`);
    // The page keeps its live stream open, so the network never goes idle: wait for the section instead.
    await page.getByText('live', { exact: true }).waitFor({ timeout: 10_000 });
    await page.locator('[role=tabpanel] tbody tr').first().waitFor({ timeout: 10_000 });
    const file = join(out, `${name}-dashboard-${tab}.png`);
    await page.screenshot({ path: file });
    console.log(`screenshots: wrote ${file.slice(root.length + 1)}`);
  } catch (err) {
    problems.push(err.message);
  } finally {
    await page.close();
  }
  for (const e of consoleErrors) problems.push(`console: ${e}`);
  for (const r of offSiteRequests) problems.push(`blocked an off-site request: ${r}`);
  for (const p of problems) console.error(`screenshots: ${name}: ${p}`);
  return problems.length === 0;
}

mkdirSync(out, { recursive: true });
const sims = await startSims();
const receiver = await startReceiver();
let browser;
let ok = false;
try {
  await seedCluster(sims.clusterUrl);
  await seedAnnotation(sims.annotationUrl, receiver);
  browser = await launchBrowser();
  const results = [
    await capture(browser, 'cluster-sim', sims.clusterUrl, 'operations'),
    await capture(browser, 'cluster-sim', sims.clusterUrl, 'requests'),
    await capture(browser, 'annotation-sim', sims.annotationUrl, 'deliveries'),
    await capture(browser, 'annotation-sim', sims.annotationUrl, 'faults'),
  ];
  ok = results.every(Boolean);
} finally {
  await browser?.close();
  await receiver.close();
  await sims.close();
}
process.exit(ok ? 0 : 1);
