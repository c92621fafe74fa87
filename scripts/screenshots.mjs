// The README's dashboard screenshots: docs/images/cluster-sim-dashboard.png and
// docs/images/annotation-sim-dashboard.png, each /_sim/ui/ at 1280x800 in headless Chromium.
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
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, openPage, startSims } from '../packages/dashboard/test/e2e/harness.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'docs', 'images');
/** The demo webhook's target in scenarios/demo-annotation.yaml, replaced by the receiver's real address. */
const DEMO_WEBHOOK_TARGET = 'http://127.0.0.1:8087/';
const VIEWPORT = { width: 1280, height: 800 };

async function call(base, method, path, { body, headers = {} } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || body === undefined ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function loadScenario(base, file, text = readFileSync(join(root, 'scenarios', file), 'utf8')) {
  await call(base, 'POST', `/_sim/scenarios?source=${encodeURIComponent(file)}`, {
    body: text,
    headers: { 'content-type': 'application/yaml' },
  });
}

/** A webhook receiver on 127.0.0.1 that answers 200 and counts deliveries. */
function startReceiver() {
  let received = 0;
  const waiting = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      for (const w of waiting.splice(0)) w();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        /** Resolves once `count` deliveries arrived; rejects after 10 s. */
        waitFor(count) {
          return new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`no webhook delivery within 10 s`)), 10_000);
            const check = () => {
              if (received >= count) {
                clearTimeout(timer);
                done();
              } else waiting.push(check);
            };
            check();
          });
        },
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

async function seedCluster(base) {
  await loadScenario(base, 'demo-cluster.yaml');
  const pool =
    '/v1beta1/projects/demo-project/locations/us-central1-a/clusters/demo-cluster/nodePools/default-pool';
  await call(base, 'PUT', pool, {
    body: { nodeVersion: 'latest' },
    headers: { authorization: 'Bearer demo' },
  });
  // A minute in: the upgrade is under way, not done.
  await call(base, 'POST', '/_sim/clock/advance', { body: { by: '1m' } });
}

async function seedAnnotation(base, receiver) {
  const text = readFileSync(join(root, 'scenarios', 'demo-annotation.yaml'), 'utf8');
  if (!text.includes(DEMO_WEBHOOK_TARGET)) {
    throw new Error(`scenarios/demo-annotation.yaml: no webhook targets ${DEMO_WEBHOOK_TARGET}`);
  }
  await loadScenario(base, 'demo-annotation.yaml', text.replaceAll(DEMO_WEBHOOK_TARGET, receiver.url));
  // The seeded superuser is admin / admin; renaming task 1 fires the project webhook's update:task.
  await call(base, 'PATCH', '/api/tasks/1', {
    body: { name: 'demo-task (renamed)' },
    headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` },
  });
  await receiver.waitFor(1);
}

async function capture(browser, name, base) {
  const { page, consoleErrors, offSiteRequests } = await openPage(browser, base, { viewport: VIEWPORT });
  const problems = [];
  try {
    const response = await page.goto(`${base}/_sim/ui/`, { waitUntil: 'load' });
    if (response?.status() !== 200) problems.push(`/_sim/ui/ answered ${response?.status() ?? 'nothing'}`);
    // Let the page fetch its data and render; a live stream would keep the network busy, so this is bounded.
    await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {});
    await page.waitForTimeout(500);
    const file = join(out, `${name}-dashboard.png`);
    await page.screenshot({ path: file });
    console.log(`screenshots: wrote ${file.slice(root.length + 1)}`);
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
    await capture(browser, 'cluster-sim', sims.clusterUrl),
    await capture(browser, 'annotation-sim', sims.annotationUrl),
  ];
  ok = results.every(Boolean);
} finally {
  await browser?.close();
  await receiver.close();
  await sims.close();
}
process.exit(ok ? 0 : 1);
