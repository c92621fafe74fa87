import {
  appSender,
  checkControlDialect,
  handBuiltEnvelopes,
  KERNEL_ALIASES,
} from '@sims/test-support/control-dialect';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';

/**
 * The control plane's dialect (docs/decisions/0020-control-plane-dialect.md): the shared walk over every
 * route of annotation-sim's `/_sim/openapi.json` (cluster-sim's routes pass the same), and the acts on one
 * background request or export job named in the path beside their older body forms.
 */
let h: Harness;
let guarded: Harness | undefined;
afterEach(() => {
  h?.close();
  guarded?.close();
  guarded = undefined;
});

/** The older forms this simulator still serves, and what replaces each. */
const ALIASES = {
  ...KERNEL_ALIASES,
  'POST /_sim/requests/complete': 'POST /_sim/requests/{id}/complete',
  'POST /_sim/events/exports/complete': 'POST /_sim/events/exports/{id}/complete',
  'POST /_sim/events/exports/expire-file': 'POST /_sim/events/exports/{id}/expire-file',
};

describe("annotation-sim's control plane", () => {
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
    expect(report.operations.length).toBeGreaterThan(40);
    expect(report.missingIds).toEqual(
      expect.arrayContaining([
        'POST /_sim/requests/{id}/complete',
        'POST /_sim/events/exports/{id}/expire-file',
        'POST /_sim/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      ]),
    );
    expect(report.settings).toEqual(
      expect.arrayContaining([
        '/_sim/requests/settings',
        '/_sim/events/settings',
        '/_sim/deliveries/settings',
        '/_sim/clock',
      ]),
    );
    expect(report.finishing.sort()).toEqual([
      'POST /_sim/events/exports/complete',
      'POST /_sim/events/exports/{id}/complete',
      'POST /_sim/events/exports/{id}/fail',
      'POST /_sim/requests/complete',
      'POST /_sim/requests/{id}/complete',
      'POST /_sim/requests/{id}/fail',
    ]);
    // The check finds the older forms that name their request in the body: they are the listed aliases.
    expect(report.idInBody.sort()).toEqual([
      'POST /_sim/events/exports/complete',
      'POST /_sim/events/exports/expire-file',
      'POST /_sim/requests/complete',
    ]);
  });
});

const RQ = 'action=create&target=task&target_id=1';
const control = (path: string, body?: unknown) =>
  h.post(path, body, { headers: body === undefined ? {} : { 'content-type': 'application/json' } });
const requestPath = (rqId: string, act: string) => `/_sim/requests/${encodeURIComponent(rqId)}/${act}`;
const statusOf = async (rqId: string) =>
  (await h.get(`/api/requests/${encodeURIComponent(rqId)}`, { as: 'alice' })).body;

/** Alice's task 1 with its data being created: a background request that takes 5 s of world time. */
async function pendingRequest() {
  h = createHarness();
  h.seed({ ...TEAM, tasks: [{ name: 't', owner: 'alice', org: 'acme', segment_size: 2 }] });
  expect((await h.patch('/_sim/requests/settings', { taskCreation: '5s' })).status).toBe(200);
  const res = await h.post(
    '/api/tasks/1/data/?org=acme',
    { image_quality: 70, server_files: ['a.jpg', 'b.jpg'] },
    { as: 'alice' },
  );
  expect(res.body).toEqual({ rq_id: RQ });
  expect((await statusOf(RQ)).status).toBe('started');
}

describe('a background request named in the path', () => {
  it('finishes now with POST /_sim/requests/{id}/complete, and is a 409 once it has ended', async () => {
    await pendingRequest();
    const done = await control(requestPath(RQ, 'complete'));
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ rq_id: RQ, status: 'finished' });
    expect((await statusOf(RQ)).status).toBe('finished');
    const again = await control(requestPath(RQ, 'complete'));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: { status: 409, reason: 'CONFLICT', message: `request "${RQ}" has already ended` },
    });
  });

  it('fails now with POST /_sim/requests/{id}/fail and the message given, which it needs', async () => {
    await pendingRequest();
    const bare = await control(requestPath(RQ, 'fail'), {});
    expect(bare.status).toBe(400);
    expect(bare.body.error).toMatchObject({ reason: 'INVALID_INPUT', path: 'message' });
    const failed = await control(requestPath(RQ, 'fail'), { message: 'ValueError: No media data found\n' });
    expect(failed.status, failed.text).toBe(200);
    expect(await statusOf(RQ)).toMatchObject({
      status: 'failed',
      message: 'ValueError: No media data found\n',
    });
  });

  it('is a 404 when no request has the id, where the older body form keeps its 400 on rq_id', async () => {
    await pendingRequest();
    const missing = await control(requestPath('action=create&target=task&target_id=9', 'complete'));
    expect(missing.status).toBe(404);
    expect(missing.body.error).toEqual({
      status: 404,
      reason: 'NOT_FOUND',
      message: 'no request "action=create&target=task&target_id=9"',
    });
    const older = await control('/_sim/requests/complete', {
      rq_id: 'action=create&target=task&target_id=9',
    });
    expect(older.status).toBe(400);
    expect(older.body.error).toMatchObject({ reason: 'INVALID_INPUT', path: 'rq_id' });
    // And the older form still ends a request that exists.
    expect((await control('/_sim/requests/complete', { rq_id: RQ })).status).toBe(200);
    expect((await statusOf(RQ)).status).toBe('finished');
  });
});

const QUERY_ID = '5f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
const EXPORT = `action=export&target=events&id=${QUERY_ID}&user_id=2`;
const exportPath = (act: string) => `/_sim/events/exports/${encodeURIComponent(EXPORT)}/${act}`;

describe('an events export named in the path', () => {
  /** A running export of alice's (user 2). */
  async function startedExport() {
    h = createHarness();
    h.seed(TEAM);
    const seeded = await control('/_sim/events/exports', {
      query_id: QUERY_ID,
      user_id: 2,
      username: 'alice',
      status: 'started',
    });
    expect(seeded.status, seeded.text).toBe(201);
  }

  it('fails now with its message, and complete is then a 409 (the older form answered the job unchanged)', async () => {
    await startedExport();
    const failed = await control(exportPath('fail'), { message: 'MemoryError\n' });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body).toMatchObject({ rq_id: EXPORT, status: 'failed' });
    expect((await control(exportPath('complete'))).status).toBe(409);
    const older = await control('/_sim/events/exports/complete', { rq_id: EXPORT });
    expect(older.status).toBe(200);
    expect(older.body).toMatchObject({ status: 'failed' });
  });

  it('finishes now, and its file expires with POST …/{id}/expire-file', async () => {
    await startedExport();
    expect((await control(exportPath('complete'))).body).toMatchObject({ status: 'finished' });
    const download = () => h.get(`/api/events/download?rq_id=${encodeURIComponent(EXPORT)}`, { as: 'alice' });
    expect((await download()).status).toBe(200);
    expect((await control(exportPath('expire-file'))).status).toBe(200);
    expect((await download()).body).toBe('The exported file has expired, please retry exporting');
  });

  it('is a 404 when no export has the id', async () => {
    await startedExport();
    const missing = await control('/_sim/events/exports/rq-none/expire-file');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe('no export job "rq-none"');
  });
});
