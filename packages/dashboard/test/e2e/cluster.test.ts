// cluster-sim's dashboard in headless Chromium: it loads clean, shows requests as they arrive, and steers
// the simulator (a fault added on the page fires on the next API call; the clock advanced on the page
// completes an operation).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, launchBrowser, type OpenedPage, openPage, type Sims, startSims } from './harness';

const SCENARIO = readFileSync(join(import.meta.dirname, '../../../../scenarios/demo-cluster.yaml'), 'utf8');
const POOL =
  '/v1beta1/projects/demo-project/locations/us-central1-a/clusters/demo-cluster/nodePools/default-pool';
const AUTH = { authorization: 'Bearer e2e' };

let browser: Browser;
let sims: Sims;
let base: string;
let opened: OpenedPage | undefined;

beforeAll(async () => {
  sims = await startSims();
  base = sims.clusterUrl;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await sims?.close();
});
beforeEach(async () => {
  await opened?.page.close();
  opened = undefined;
  await call(base, 'POST', '/_sim/reset');
  await call(base, 'POST', '/_sim/scenarios?source=demo-cluster.yaml', {
    body: SCENARIO,
    headers: { 'content-type': 'application/yaml' },
  });
});

async function dashboard(path = '/_sim/ui/'): Promise<Page> {
  opened = await openPage(browser, base);
  const response = await opened.page.goto(`${base}${path}`);
  expect(response?.status()).toBe(200);
  await opened.page.getByRole('heading', { level: 1, name: 'cluster-sim dashboard' }).waitFor();
  // The live stream is open once the page says so.
  await opened.page.getByText('live', { exact: true }).waitFor();
  return opened.page;
}

/** No console error but, when a test makes the page call the control plane wrongly on purpose, that refusal. */
function expectClean(refused?: number) {
  const unexpected = (opened?.consoleErrors ?? []).filter(
    (e) => refused === undefined || !e.includes(`status of ${refused}`),
  );
  expect(unexpected).toEqual([]);
  expect(opened?.offSiteRequests).toEqual([]);
}

describe('cluster-sim dashboard', () => {
  it('loads with every section as a named tab, no console error and no request off the simulator', async () => {
    const page = await dashboard();
    const tabs = await page.getByRole('tab').allTextContents();
    expect(tabs).toEqual(['Requests', 'Faults', 'Operations', 'Node pools', 'Clock', 'Namespaces']);
    await expect
      .poll(() => page.getByRole('tab', { name: 'Requests' }).getAttribute('aria-selected'))
      .toBe('true');
    await page.getByRole('tabpanel').getByRole('heading', { name: 'Requests', exact: true }).waitFor();
    expectClean();
  });

  it('shows a request made after the page loaded, without a reload, and its details', async () => {
    const page = await dashboard();
    const table = page.getByRole('table', { name: 'Requests received' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(0);
    await call(base, 'GET', POOL, { headers: { ...AUTH, 'x-goog-api-key': 'secret-key-123' } });
    const row = table.locator('tbody tr', { hasText: 'nodePools.get' });
    await row.waitFor();
    expect(await row.textContent()).toContain(`GET ${POOL}`);
    expect(await row.textContent()).toContain('200');
    await row.getByRole('button').click();
    const detail = page.getByRole('region', { name: /Request 1/ });
    await detail.getByText('Response body').waitFor();
    const text = (await detail.textContent()) ?? '';
    expect(text).toContain('"name": "default-pool"');
    // Credentials are redacted in the journal, and so on the page.
    expect(text).not.toContain('Bearer e2e');
    expectClean();
  });

  it('filters requests by status, operation and path', async () => {
    const page = await dashboard();
    await call(base, 'GET', POOL, { headers: AUTH });
    await call(base, 'GET', `${POOL}-missing`, { headers: AUTH, expectStatus: 404 });
    const rows = page.getByRole('table', { name: 'Requests received' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('Status').fill('404');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('-missing');
    await page.getByLabel('Status').fill('');
    await page.getByLabel('Path').fill('/v1beta1/**/default-pool');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    // A new matching request joins the filtered list live; one that does not match stays out.
    await call(base, 'GET', `${POOL}-other`, { headers: AUTH, expectStatus: 404 });
    await call(base, 'GET', POOL, { headers: AUTH });
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.allTextContents()).not.toContain(expect.stringContaining('-other'));
    expectClean();
  });

  it('adds a fault from the form that fires on the next API call, then shows it fired', async () => {
    const page = await dashboard();
    await page.getByRole('tab', { name: 'Faults' }).click();
    await page.getByText('No fault rules in this namespace.').waitFor();
    const form = page.getByRole('form', { name: 'Add a fault rule' });
    await form.getByLabel('Rule id (optional)').fill('unavailable-once');
    await form.getByLabel('Operation').fill('nodePools.get');
    await form.getByRole('textbox', { name: 'Status' }).fill('UNAVAILABLE');
    await form.getByLabel('Message').fill('The service is currently unavailable (from the page).');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('status').getByText('Fault rule added').waitFor();
    const row = page.getByRole('row', { name: /unavailable-once/ });
    await row.getByText('never fired').waitFor();

    const first = await call<{ error: { code: number; status: string; message: string } }>(
      base,
      'GET',
      POOL,
      {
        headers: AUTH,
        expectStatus: 503,
      },
    );
    expect(first.body.error).toMatchObject({
      code: 503,
      status: 'UNAVAILABLE',
      message: 'The service is currently unavailable (from the page).',
    });
    await call(base, 'GET', POOL, { headers: AUTH }); // times: 1 — the next call passes
    // The table follows live: fired once, no longer marked never-fired.
    await expect.poll(() => row.locator('td').nth(4).textContent()).toBe('1');
    await expect.poll(() => row.getByText('never fired').count()).toBe(0);
    await row.getByRole('button', { name: 'Delete fault rule unavailable-once' }).click();
    await page.getByText('No fault rules in this namespace.').waitFor();
    expect((await call<{ faults: unknown[] }>(base, 'GET', '/_sim/faults')).body.faults).toEqual([]);
    expectClean();
  });

  it('adds fault rules from a YAML snippet', async () => {
    const page = await dashboard('/_sim/ui/#tab=faults');
    await page
      .getByLabel('A rule or a list of rules')
      .fill(
        '- id: abort-update\n  match: {operation: nodePools.update}\n  effect: {error: {status: ABORTED}}\n',
      );
    await page.getByRole('button', { name: 'Add from snippet' }).click();
    await page.getByRole('row', { name: /abort-update/ }).waitFor();
    const res = await call<{ error: { status: string } }>(base, 'PUT', POOL, {
      headers: AUTH,
      body: { nodeVersion: 'latest' },
      expectStatus: 409,
    });
    expect(res.body.error.status).toBe('ABORTED');
    // A bad snippet is refused with the control plane's message, and nothing is added.
    await page.getByLabel('A rule or a list of rules').fill('- id: broken\n  effect: {teleport: true}\n');
    await page.getByRole('button', { name: 'Add from snippet' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/effect/);
    expect(
      (await call<{ faults: { id: string }[] }>(base, 'GET', '/_sim/faults')).body.faults.map((f) => f.id),
    ).toEqual(['abort-update']);
    expectClean(400);
  });

  it('completes an operation when the clock is advanced from the page', async () => {
    const page = await dashboard();
    const started = await call<{ name: string }>(base, 'PUT', POOL, {
      headers: AUTH,
      body: { nodeVersion: 'latest' },
    });
    await page.getByRole('tab', { name: 'Operations' }).click();
    const row = page.locator(`tr[data-operation="${started.body.name}"]`);
    await expect.poll(() => row.getByTestId('operation-status').textContent()).toMatch(/PENDING|RUNNING/);
    await page.getByRole('tab', { name: 'Node pools' }).click();
    await page
      .getByRole('row', { name: /default-pool/ })
      .getByText(/upgrade/)
      .waitFor();

    await page.getByRole('tab', { name: 'Clock' }).click();
    const before = await page.getByTestId('clock-now').textContent();
    await page.getByLabel(/^By/).fill('2h');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await page.getByRole('status').getByText('Clock advanced by 2h').waitFor();
    await expect.poll(() => page.getByTestId('clock-now').textContent()).not.toBe(before);

    const op = await call<{ status: string }>(
      base,
      'GET',
      `/v1beta1/projects/demo-project/locations/us-central1-a/operations/${started.body.name}`,
      { headers: AUTH },
    );
    expect(op.body.status).toBe('DONE');
    await page.getByRole('tab', { name: 'Operations' }).click();
    await expect.poll(() => row.getByTestId('operation-status').textContent()).toBe('DONE');
    expectClean();
  });

  it('completes or fails an operation now from its row', async () => {
    const page = await dashboard('/_sim/ui/#tab=operations');
    const started = await call<{ name: string }>(base, 'PUT', POOL, {
      headers: AUTH,
      body: { nodeVersion: 'latest' },
    });
    const row = page.locator(`tr[data-operation="${started.body.name}"]`);
    await row.getByRole('button', { name: `Fail operation ${started.body.name} now` }).click();
    await expect.poll(() => row.getByTestId('operation-status').textContent()).toBe('DONE');
    await row.getByText('Failed from the dashboard.').waitFor();
    expectClean();
  });

  it('creates, switches to and deletes a namespace; each namespace shows its own requests', async () => {
    const page = await dashboard('/_sim/ui/#tab=namespaces');
    await page.getByRole('textbox', { name: 'Name' }).fill('team-a');
    await page.getByRole('button', { name: 'Create and switch' }).click();
    await expect.poll(() => page.getByTestId('namespace').textContent()).toBe('team-a');
    // The address follows the switch a moment after the page shows it.
    await expect.poll(() => page.url()).toContain('namespace=team-a');
    await page.getByRole('tab', { name: 'Requests' }).click();
    await call(base, 'GET', `/_ns/team-a${POOL}`, { headers: AUTH, expectStatus: 404 });
    await call(base, 'GET', POOL, { headers: AUTH }); // default namespace: not shown here
    const rows = page.getByRole('table', { name: 'Requests received' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('404');
    await page.getByRole('tab', { name: 'Namespaces' }).click();
    // The memory budget (docs/decisions/0019): each kind's share of all namespaces, and team-a's part.
    const memory = page.getByRole('table', { name: 'Memory budget' });
    await expect.poll(() => memory.locator('tbody tr').count()).toBe(2);
    expect(await memory.locator('tr[data-kind="journal"]').textContent()).toContain('of 64.0 MiB');
    expect(await memory.locator('tr[data-kind="operations"]').textContent()).toContain('of 32.0 MiB');
    expect(await memory.locator('thead').textContent()).toContain('In team-a');
    // Reset empties that namespace's world (its journal too), and leaves the default one alone.
    await page.getByRole('button', { name: 'Reset namespace team-a' }).click();
    await page.getByRole('status').getByText('Namespace team-a reset').waitFor();
    const journal = (ns: string) =>
      call<{ entries: unknown[] }>(base, 'GET', '/_sim/journal', { headers: { 'x-sim-namespace': ns } });
    expect((await journal('team-a')).body.entries).toEqual([]);
    expect((await journal('default')).body.entries).toHaveLength(1);
    await page.getByRole('button', { name: 'Delete namespace team-a' }).click();
    await page.getByRole('status').getByText('Namespace team-a deleted').waitFor();
    expect(await page.getByTestId('namespace').textContent()).toBe('default');
    expect(
      (await call<{ namespaces: string[] }>(base, 'GET', '/_sim/namespaces')).body.namespaces,
    ).not.toContain('team-a');
    expectClean();
  });

  it('leaves a namespace deleted from elsewhere for the default one, without creating it again', async () => {
    await call(base, 'PUT', '/_sim/namespaces/team-b');
    const page = await dashboard('/_sim/ui/?namespace=team-b#tab=requests');
    expect(await page.getByTestId('namespace').textContent()).toBe('team-b');
    await call(base, 'DELETE', '/_sim/namespaces/team-b');
    await page
      .getByRole('status')
      .getByText('Namespace team-b was deleted; now showing namespace default')
      .waitFor();
    expect(await page.getByTestId('namespace').textContent()).toBe('default');
    // The page re-reads on the change (after 150 ms): in the default namespace, not in the deleted one.
    await page.getByRole('table', { name: 'Requests received' }).waitFor();
    await new Promise((r) => setTimeout(r, 500));
    expect(
      (await call<{ namespaces: string[] }>(base, 'GET', '/_sim/namespaces')).body.namespaces,
    ).not.toContain('team-b');
    expectClean();
  });

  it('is keyboard usable: arrow keys move between tabs, Enter submits a form', async () => {
    const page = await dashboard();
    await page.getByRole('tab', { name: 'Requests' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => page.getByRole('tab', { name: 'Faults' }).getAttribute('aria-selected'))
      .toBe('true');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Faults');
    await page.keyboard.press('End');
    await expect
      .poll(() => page.getByRole('tab', { name: 'Namespaces' }).getAttribute('aria-selected'))
      .toBe('true');
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('tabpanel').getByRole('heading', { name: 'Clock', exact: true }).waitFor();
    await page.getByLabel(/^By/).focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('90s');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Clock advanced by 90s').waitFor();
    expectClean();
  });

  it('is readable in a narrow window: no section is wider than the viewport (tables scroll in their own box)', async () => {
    await call(base, 'PUT', POOL, { headers: AUTH, body: { nodeVersion: 'latest' } });
    opened = await openPage(browser, base, { viewport: { width: 360, height: 740 } });
    await opened.page.goto(`${base}/_sim/ui/`);
    for (const tab of ['Requests', 'Faults', 'Operations', 'Node pools', 'Clock', 'Namespaces']) {
      await opened.page.getByRole('tab', { name: tab }).click();
      await opened.page.getByRole('tabpanel').getByRole('heading', { name: tab, exact: true }).waitFor();
      const overflow = await opened.page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect(overflow, `${tab} is wider than a 360 px window`).toBeLessThanOrEqual(0);
    }
    expectClean();
  });
});

describe('cluster-sim dashboard behind an admin token', () => {
  let guarded: Sims;
  beforeAll(async () => {
    guarded = await startSims({ adminToken: 'e2e-token' });
  });
  afterAll(async () => {
    await guarded?.close();
  });

  it('asks for the token, refuses a wrong one, then works with the right one', async () => {
    const url = guarded.clusterUrl;
    opened = await openPage(browser, url);
    const page = opened.page;
    await page.goto(`${url}/_sim/ui/`);
    await page.getByLabel('Admin token').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('That is not the admin token.').waitFor();
    await page.getByLabel('Admin token').fill('e2e-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'cluster-sim dashboard' }).waitFor();
    await page.getByText('live', { exact: true }).waitFor();
    // The page steers with the cookie; the API without the token is still refused.
    await page.getByRole('tab', { name: 'Clock' }).click();
    await page.getByRole('button', { name: '+1m' }).click();
    await page.getByRole('status').getByText('Clock advanced by 1m').waitFor();
    const bare = await fetch(`${url}/_sim/clock`);
    expect(bare.status).toBe(401);
    expect(opened.offSiteRequests).toEqual([]);
    // The wrong token's 401 page is the only console error (the browser reports the failed load).
    expect(opened.consoleErrors.filter((e) => !e.includes('401'))).toEqual([]);
  });
});
