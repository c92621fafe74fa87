// The end-to-end tests' harness: headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
// and both simulators in this process on 127.0.0.1 with a manual clock. Nothing leaves the machine: the
// browser starts with its background networking off and a dead proxy for anything but loopback, and every
// page aborts (and records) each request that is not for the simulator it was opened on.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type StartedAnnotationSim, startAnnotationSim } from '@sims/annotation-sim';
import { type StartedClusterSim, startClusterSim } from '@sims/cluster-sim';
import { type Browser, chromium, type Page } from 'playwright-core';

/** The Chromium the tests drive: $SIMS_CHROMIUM, else Debian's package. */
const CHROMIUM_PATH = process.env.SIMS_CHROMIUM ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-breakpad',
  '--no-first-run',
  '--no-pings',
  // Belt and braces: whatever the browser itself might still fetch (not a page, which page.route guards)
  // goes to a proxy nobody listens on. Chromium never proxies loopback, so 127.0.0.1 is reached directly.
  '--proxy-server=http://127.0.0.1:9',
];

/** How to get a Chromium, for the error when there is none. */
const INSTALL_HINT =
  'install it with `sudo apt-get install -y chromium chromium-driver` (Debian/Ubuntu; .ci/run does this in CI), ' +
  'or set SIMS_CHROMIUM to the path of a Chromium or Chrome executable';

/**
 * Launches headless Chromium. Throws, saying how to install it, when the executable is missing.
 *
 * @example const browser = await launchBrowser(); …; await browser.close();
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The browser tests need Chromium, and there is none at ${CHROMIUM_PATH}${process.env.SIMS_CHROMIUM ? ' (SIMS_CHROMIUM)' : ''}: ${INSTALL_HINT}.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 30_000,
  });
}

export interface OpenedPage {
  page: Page;
  /** Every console message of type error and every uncaught page error, in order. */
  consoleErrors: string[];
  /** Every request the page tried off the simulator's origin (each was aborted). */
  offSiteRequests: string[];
}

export interface OpenPageOptions {
  /** Default 1280x800. */
  viewport?: { width: number; height: number };
}

/**
 * A new page in a fresh browser context (its own cookies and storage; closing the page closes the
 * context). Only `baseUrl`'s origin is reachable: any other request is recorded and aborted.
 *
 * @example const { page, consoleErrors } = await openPage(browser, sims.clusterUrl);
 */
export async function openPage(
  browser: Browser,
  baseUrl: string,
  options: OpenPageOptions = {},
): Promise<OpenedPage> {
  const origin = new URL(baseUrl).origin;
  const page = await browser.newPage({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    // Service workers would fetch past page.route; the dashboard has none.
    serviceWorkers: 'block',
  });
  const consoleErrors: string[] = [];
  const offSiteRequests: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const { url, lineNumber } = message.location();
    consoleErrors.push(url ? `${message.text()} (${url}:${lineNumber})` : message.text());
  });
  page.on('pageerror', (error) => {
    consoleErrors.push(`pageerror: ${error.stack ?? error.message}`);
  });
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (originOf(url) === origin) return route.continue();
    offSiteRequests.push(url);
    return route.abort('blockedbyclient');
  });
  await page.routeWebSocket(/.*/, (ws) => {
    if (originOf(ws.url().replace(/^ws/, 'http')) === origin) {
      ws.connectToServer();
      return;
    }
    offSiteRequests.push(ws.url());
    void ws.close({ code: 1008, reason: 'off-site' });
  });
  return { page, consoleErrors, offSiteRequests };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

export interface StartSimsOptions {
  /** Protects both control planes (`/_sim`) with this token. */
  adminToken?: string;
}

export interface Sims {
  cluster: StartedClusterSim;
  annotation: StartedAnnotationSim;
  /** `http://127.0.0.1:<port>` of cluster-sim. */
  clusterUrl: string;
  /** `http://127.0.0.1:<port>` of annotation-sim. */
  annotationUrl: string;
  /** Stops both. */
  close(): Promise<void>;
}

/**
 * Both simulators in this process on 127.0.0.1, each on a free port, with a manual clock (advance it
 * through the control plane: `POST /_sim/clock/advance`, or `sim.world().clock` in process).
 *
 * @example const sims = await startSims(); …; await sims.close();
 */
export async function startSims(options: StartSimsOptions = {}): Promise<Sims> {
  const common = {
    port: 0,
    host: '127.0.0.1',
    clock: { mode: 'manual' as const },
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
  };
  const [cluster, annotation] = await Promise.all([startClusterSim(common), startAnnotationSim(common)]);
  return {
    cluster,
    annotation,
    clusterUrl: cluster.url,
    annotationUrl: annotation.url,
    async close() {
      await Promise.allSettled([cluster.close(), annotation.close()]);
    },
  };
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps what it received. */
export interface Receiver {
  url: string;
  received: { headers: Record<string, string | string[] | undefined>; body: string }[];
  /** Resolves once `count` deliveries arrived; rejects after 10 s. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

export function startReceiver(): Promise<Receiver> {
  const received: Receiver['received'] = [];
  const waiting: (() => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      for (const w of waiting.splice(0)) w();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/`,
        received,
        waitFor(count) {
          return new Promise((done, fail) => {
            const timer = setTimeout(
              () => fail(new Error(`no webhook delivery #${count} within 10 s`)),
              10_000,
            );
            const check = () => {
              if (received.length >= count) {
                clearTimeout(timer);
                done();
              } else waiting.push(check);
            };
            check();
          });
        },
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/** A JSON call to a simulator; throws with the answer when it is not 2xx unless `expectStatus` is given. */
export async function call<T = unknown>(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; expectStatus?: number } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    body:
      typeof options.body === 'string' || options.body === undefined
        ? (options.body as string | undefined)
        : JSON.stringify(options.body),
  });
  const text = await res.text();
  const body = (text ? JSON.parse(text) : undefined) as T;
  if (options.expectStatus === undefined ? !res.ok : res.status !== options.expectStatus)
    throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return { status: res.status, body };
}
