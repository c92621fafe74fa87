// The harness itself: headless Chromium opens each simulator's health page on 127.0.0.1, and an off-site
// request from the page is aborted and recorded, never sent.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage, type Sims, startSims } from './harness';

let browser: Browser;
let sims: Sims;
beforeAll(async () => {
  sims = await startSims();
  browser = await launchBrowser(); // without Chromium, this throws and says how to install it
});
afterAll(async () => {
  await browser?.close();
  await sims?.close();
});

describe('harness', () => {
  for (const [name, url] of [
    ['cluster-sim', () => sims.clusterUrl],
    ['annotation-sim', () => sims.annotationUrl],
  ] as const) {
    it(`opens ${name}'s /_sim/health in Chromium`, async () => {
      const { page, consoleErrors, offSiteRequests } = await openPage(browser, url());
      try {
        const response = await page.goto(`${url()}/_sim/health`);
        expect(response?.status()).toBe(200);
        const text = (await page.textContent('body')) ?? '';
        expect(JSON.parse(text)).toMatchObject({ status: 'ok', simulator: name });
        expect(consoleErrors).toEqual([]);
        expect(offSiteRequests).toEqual([]);
      } finally {
        await page.close();
      }
    });
  }

  it('aborts and records a request off the simulator origin', async () => {
    const { page, offSiteRequests } = await openPage(browser, sims.clusterUrl);
    try {
      await page.goto(`${sims.clusterUrl}/_sim/health`);
      // 192.0.2.1 is TEST-NET-1: never routable, and the route aborts the request before it is sent anyway.
      const outcome = await page.evaluate(() =>
        fetch('http://192.0.2.1/probe').then(
          () => 'answered',
          () => 'failed',
        ),
      );
      expect(outcome).toBe('failed');
      expect(offSiteRequests).toEqual(['http://192.0.2.1/probe']);
    } finally {
      await page.close();
    }
  });
});
