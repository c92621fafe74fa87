// annotation-sim's dashboard in headless Chromium: it loads clean, shows requests as they arrive, a fault
// added on the page fires on the next API call, a webhook delivery is redelivered from the page, and an
// export job is settled from it; the annotations a job holds and the annotation events are shown.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  launchBrowser,
  type OpenedPage,
  openPage,
  type Receiver,
  type Sims,
  startReceiver,
  startSims,
} from './harness';

const SCENARIO = readFileSync(
  join(import.meta.dirname, '../../../../scenarios/demo-annotation.yaml'),
  'utf8',
);
const DEMO_TARGET = 'http://127.0.0.1:8087/';
const ADMIN = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };

let browser: Browser;
let sims: Sims;
let base: string;
let receiver: Receiver;
let opened: OpenedPage | undefined;

beforeAll(async () => {
  sims = await startSims();
  base = sims.annotationUrl;
  receiver = await startReceiver();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await sims?.close();
  await receiver?.close();
});
beforeEach(async () => {
  await opened?.page.close();
  opened = undefined;
  receiver.received.length = 0;
  await call(base, 'POST', '/_sim/reset');
  expect(SCENARIO).toContain(DEMO_TARGET);
  await call(base, 'POST', '/_sim/scenarios?source=demo-annotation.yaml', {
    body: SCENARIO.replaceAll(DEMO_TARGET, receiver.url),
    headers: { 'content-type': 'application/yaml' },
  });
});

async function dashboard(path = '/_sim/ui/'): Promise<Page> {
  opened = await openPage(browser, base);
  const response = await opened.page.goto(`${base}${path}`);
  expect(response?.status()).toBe(200);
  await opened.page.getByRole('heading', { level: 1, name: 'annotation-sim dashboard' }).waitFor();
  await opened.page.getByText('live', { exact: true }).waitFor();
  return opened.page;
}

function expectClean() {
  expect(opened?.consoleErrors).toEqual([]);
  expect(opened?.offSiteRequests).toEqual([]);
}

describe('annotation-sim dashboard', () => {
  it('loads with every section as a named tab, no console error and no request off the simulator', async () => {
    const page = await dashboard();
    expect(await page.getByRole('tab').allTextContents()).toEqual([
      'Requests',
      'Faults',
      'Deliveries',
      'Export jobs',
      'Annotations',
      'Clock',
      'Namespaces',
    ]);
    expectClean();
  });

  it('shows a request made after the page loaded, and its details with the password redacted', async () => {
    const page = await dashboard();
    await call(base, 'POST', '/api/auth/login', { body: { username: 'alice', password: 'alice-password' } });
    const row = page
      .getByRole('table', { name: 'Requests received' })
      .locator('tbody tr', { hasText: '/api/auth/login' });
    await row.waitFor();
    await row.getByRole('button').click();
    const detail = page.getByRole('region', { name: /Request \d+/ });
    await detail.getByText('Request body').waitFor();
    const text = (await detail.textContent()) ?? '';
    expect(text).toContain('"username": "alice"');
    expect(text).not.toContain('alice-password');
    expectClean();
  });

  it('adds a fault from the form that fires on the next API call', async () => {
    const page = await dashboard('/_sim/ui/#tab=faults');
    const form = page.getByRole('form', { name: 'Add a fault rule' });
    await form.getByLabel('Method').fill('GET');
    await form.getByLabel('Path').fill('/api/tasks/*');
    await form.getByRole('textbox', { name: 'Status' }).fill('503');
    await form.getByLabel('Message').fill('Service temporarily unavailable (from the page).');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('status').getByText('Fault rule added').waitFor();
    const failed = await call<{ detail: string }>(base, 'GET', '/api/tasks/1', {
      headers: ADMIN,
      expectStatus: 503,
    });
    expect(failed.body.detail).toBe('Service temporarily unavailable (from the page).');
    await call(base, 'GET', '/api/tasks/1', { headers: ADMIN });
    const rule = page.getByRole('table', { name: 'Fault rules' }).locator('tbody tr').first();
    await expect.poll(() => rule.locator('td').nth(4).textContent()).toBe('1');
    expectClean();
  });

  it('redelivers a webhook delivery from the page', async () => {
    const page = await dashboard();
    await call(base, 'PATCH', '/api/tasks/1', { headers: ADMIN, body: { name: 'renamed on the API' } });
    await receiver.waitFor(1);
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    const table = page.getByRole('table', { name: /Deliveries of webhook \d+/ });
    const first = table.locator('tbody tr', { hasText: 'update:task' }).first();
    await first.waitFor();
    expect(await first.locator('td').nth(1).textContent()).toBe('200');
    const deliveryId = await first.getAttribute('data-delivery');
    await first.getByRole('button', { name: `Redeliver delivery ${deliveryId}` }).click();
    await page.getByRole('status').getByText(`Delivery ${deliveryId} queued for redelivery`).waitFor();
    await receiver.waitFor(2);
    // The same payload, signed again.
    expect(JSON.parse(receiver.received[1]?.body ?? '{}')).toMatchObject({
      event: 'update:task',
      task: { name: 'renamed on the API' },
    });
    expect(receiver.received[1]?.headers['x-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    // The new row appears on its own (the page follows the stream), marked as a redelivery.
    await table.locator('tbody tr', { hasText: 'redelivery' }).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(2);
    expectClean();
  });

  it('shows an export job and completes it from the page', async () => {
    await call(base, 'POST', '/_sim/events/exports', {
      body: {
        query_id: '0d6f3f1e-2a4b-4c8d-9e0f-1a2b3c4d5e6f',
        user_id: 1,
        username: 'admin',
        status: 'queued',
      },
    });
    const page = await dashboard('/_sim/ui/#tab=exports');
    const row = page.getByRole('table', { name: 'Events export jobs' }).locator('tbody tr').first();
    await expect.poll(() => row.locator('td').first().textContent()).toBe('queued');
    const rqId = (await row.getAttribute('data-job')) as string;
    await row.getByRole('button', { name: `Complete export ${rqId} now` }).click();
    await expect.poll(() => row.locator('td').first().textContent()).toBe('finished');
    const view = await call<{ jobs: { rq_id: string; status: string }[] }>(base, 'GET', '/_sim/events');
    expect(view.body.jobs.find((j) => j.rq_id === rqId)?.status).toBe('finished');
    expectClean();
  });

  it('says how many events the store evicted to stay within maxEvents', async () => {
    await call(base, 'PATCH', '/_sim/events/settings', { body: { maxEvents: 2 } });
    const events = [1, 2, 3].map((i) => ({ scope: 'load:job', obj_id: i }));
    await call(base, 'POST', '/_sim/events/records', { body: { events } });
    const page = await dashboard('/_sim/ui/#tab=exports');
    await page.getByText('2 events stored, 1 oldest evicted (maxEvents)').waitFor();
    expectClean();
  });

  it("shows a job's annotations by label and type after a PUT, and the annotation events", async () => {
    const labels = await call<{ results: { id: number; name: string }[] }>(
      base,
      'GET',
      '/api/labels?task_id=1',
      { headers: ADMIN },
    );
    const id = (name: string) => labels.body.results.find((l) => l.name === name)?.id;
    const box = (label: string, frame: number, type = 'rectangle') => ({
      type,
      frame,
      label_id: id(label),
      occluded: false,
      points: type === 'polygon' ? [0, 0, 9, 0, 9, 9] : [1, 2, 30, 40],
    });
    await call(base, 'PUT', '/api/jobs/1/annotations', {
      headers: ADMIN,
      body: {
        version: 0,
        tags: [{ frame: 0, label_id: id('person') }],
        shapes: [box('car', 0), box('car', 1), box('car', 2, 'polygon'), box('person', 3)],
        tracks: [],
      },
    });
    // Annotation rows as CVAT's handler writes them (by a user of their own, to tell them from any the PUT
    // logged), and a row of another scope, which the panel leaves out.
    await call(base, 'POST', '/_sim/events/records', {
      body: {
        events: [
          { scope: 'create:tags', count: 1, job_id: 1, task_id: 1, user_name: 'annotator' },
          {
            scope: 'create:shapes',
            obj_name: 'rectangle',
            count: 3,
            job_id: 1,
            task_id: 1,
            user_name: 'annotator',
          },
          { scope: 'update:job', job_id: 1, user_name: 'annotator' },
        ],
      },
    });
    const page = await dashboard('/_sim/ui/#tab=annotations');
    const job = page.getByRole('region', { name: 'Job 1: task 1 demo-task' });
    await job.getByText('1 tags · 4 shapes · 0 tracks').waitFor();
    const counts = job.getByRole('table', { name: 'Annotations of job 1 by label and type' });
    const rows = async () =>
      (await counts.locator('tbody tr').allTextContents()).map((r) => r.replace(/\s+/g, ' '));
    expect(await rows()).toEqual(['carrectangle2', 'carpolygon1', 'persontag1', 'personrectangle1']);

    const events = page
      .getByRole('table', { name: 'Annotation events' })
      .locator('tbody tr', { hasText: 'annotator' });
    await expect.poll(() => events.count()).toBe(2);
    // Newest first.
    expect(await events.first().locator('td').allTextContents()).toEqual([
      'create:shapes',
      'rectangle',
      '3',
      '1',
      'annotator',
    ]);
    expect(await events.nth(1).locator('td').first().textContent()).toBe('create:tags');
    await page.getByText(/^\d+ in the event log/).waitFor();

    // A change made while the page is open shows without a reload.
    await call(base, 'PUT', '/api/jobs/2/annotations', {
      headers: ADMIN,
      body: { version: 0, tags: [], shapes: [box('person', 12, 'polygon')], tracks: [] },
    });
    await page
      .getByRole('region', { name: 'Job 2: task 1 demo-task' })
      .getByText('0 tags · 1 shapes · 0 tracks')
      .waitFor();
    expectClean();
  });
});
