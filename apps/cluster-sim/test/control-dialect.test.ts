import {
  appSender,
  checkControlDialect,
  handBuiltEnvelopes,
  KERNEL_ALIASES,
} from '@sims/test-support/control-dialect';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';

/**
 * The control plane's dialect (docs/decisions/0020-control-plane-dialect.md): the shared walk over every
 * route of cluster-sim's `/_sim/openapi.json` (annotation-sim's routes pass the same), and settings
 * changed with PATCH beside the older PUT.
 */
let h: Harness;
let guarded: Harness | undefined;
afterEach(async () => {
  await h?.close();
  await guarded?.close();
  guarded = undefined;
});

/** The older forms this simulator still serves, and what replaces each. */
const ALIASES = {
  ...KERNEL_ALIASES,
  'PUT /_sim/settings': 'PATCH /_sim/settings',
  'PUT /_sim/server-config': 'PATCH /_sim/server-config',
};

describe("cluster-sim's control plane", () => {
  it("writes its control errors with sim-core's controlError, never an envelope by hand", async () => {
    expect(await handBuiltEnvelopes(new URL('../src/control/', import.meta.url))).toEqual([]);
  });

  it('speaks the control dialect on every route its OpenAPI document lists', async () => {
    h = createHarness();
    guarded = createHarness({ adminToken: 'secret' });
    const report = await checkControlDialect({
      send: appSender(h.sim.app),
      sendWithoutToken: appSender(guarded.sim.app),
      aliases: ALIASES,
    });
    expect(report.violations).toEqual([]);
    // What the walk reached: not an empty document or a check that skipped everything.
    expect(report.operations.length).toBeGreaterThan(30);
    expect(report.missingIds).toEqual(
      expect.arrayContaining(['POST /_sim/operations/{id}/complete', 'GET /_sim/faults/{id}']),
    );
    expect(report.settings).toEqual(
      expect.arrayContaining(['/_sim/settings', '/_sim/server-config', '/_sim/clock']),
    );
    expect(report.finishing.sort()).toEqual([
      'POST /_sim/operations/{id}/complete',
      'POST /_sim/operations/{id}/fail',
    ]);
    expect(report.idInBody).toEqual([]);
  });
});

describe('settings changed with PATCH', () => {
  it('changes only the settings given, as the older PUT still does', async () => {
    h = createHarness();
    const before = (await h.get('/_sim/settings', { token: null })).body;
    const patched = await h.request('PATCH', '/_sim/settings', {
      body: { operationDurationMs: 1234 },
      token: null,
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ ...before, operationDurationMs: 1234 });
    const put = await h.put('/_sim/settings', { abortingMs: 77 }, { token: null });
    expect(put.body).toEqual({ ...before, operationDurationMs: 1234, abortingMs: 77 });
    expect((await h.get('/_sim/settings', { token: null })).body).toEqual(put.body);
  });

  it('replaces the ServerConfig fields given with PATCH /_sim/server-config', async () => {
    h = createHarness();
    const res = await h.request('PATCH', '/_sim/server-config', {
      body: { defaultClusterVersion: '1.30.1-gke.100' },
      token: null,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.defaultClusterVersion).toBe('1.30.1-gke.100');
    expect((await h.get('/_sim/server-config', { token: null })).body).toEqual(res.body);
  });
});

describe('an operation named in the path', () => {
  it('answers a missing operation in the control envelope, naming it', async () => {
    h = createHarness();
    const res = await h.post('/_sim/operations/operation-none/complete', {}, { token: null });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { status: 404, reason: 'NOT_FOUND', message: 'no operation "operation-none"' },
    });
  });
});
