import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhookDeliveryRead } from '@sims/annotation-schema';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';
import { type Receiver, startReceiver, WIRE_HEADER_ORDER } from './support/receiver';

/**
 * `enable_ssl` against a real HTTPS receiver on 127.0.0.1 whose certificate is self-signed, made at
 * test time by the openssl CLI (Debian's ca-certificates depends on the openssl package, so every
 * machine that runs this suite has it): no key material is committed and the certificate lives a day.
 */
let dir: string;
let tls: { key: Buffer; cert: Buffer };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'annotation-sim-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  // biome-ignore format: one openssl command line
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1', '-keyout', key, '-out', cert], { stdio: 'pipe' });
  tls = { key: readFileSync(key), cert: readFileSync(cert) };
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let h: Harness;
let receivers: Receiver[] = [];
afterEach(async () => {
  h?.close();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

const SECRET = 'mykey';

/** Org acme, project 1 with task 1, a self-signed HTTPS receiver and a project webhook on update:task. */
async function world(enableSsl: boolean) {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p', size: 2 }],
  });
  const r = await startReceiver({ secret: SECRET, tls });
  receivers.push(r);
  expect(r.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/hook$/);
  const hook = await h.post(
    '/api/webhooks?org=acme',
    aWebhook()
      .forProject(1)
      .to(r.url)
      .withEvents('update:task')
      .withSecret(SECRET)
      .with({ enable_ssl: enableSsl })
      .build(),
    { as: 'alice' },
  );
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  expect(hook.body.enable_ssl).toBe(enableSsl);
  return { r, id: hook.body.id as number };
}

async function deliveries(id: number) {
  const res = await h.get(`/api/webhooks/${id}/deliveries?org=acme`, { as: 'alice' });
  expect(res.status).toBe(200);
  for (const d of res.body.results) WebhookDeliveryRead.parse(d);
  return res.body.results as { status_code: number; response: string; attempt: number; event: string }[];
}

/** `str(requests.exceptions.SSLError)` for a self-signed certificate, which CVAT stores as `response`. */
const sslErrorText = (port: number) =>
  `HTTPSConnectionPool(host='127.0.0.1', port=${port}): Max retries exceeded with url: /hook (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate (_ssl.c:1007)')))`;

describe('enable_ssl over real TLS (self-signed receiver on 127.0.0.1)', () => {
  it('with enable_ssl: true refuses the self-signed certificate: 502 with the SSLError text, nothing received, retried', async () => {
    const { r, id } = await world(true);
    expect((await h.patch('/api/tasks/1?org=acme', { name: 'x' }, { as: 'alice' })).status).toBe(200);
    await h.idle();
    expect(r.requests).toHaveLength(0);
    const rows = await deliveries(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ event: 'update:task', status_code: 502, attempt: 1 });
    expect(rows[0]?.response).toBe(sslErrorText(r.port));
    const entry = h.sim.deliveries().journal().entries.at(-1);
    expect(entry).toMatchObject({ outcome: 'connection-error', statusCode: 502, url: r.url });
    expect((await h.get(`/api/webhooks/${id}?org=acme`, { as: 'alice' })).body.last_status).toBe(502);
    // A connection error is retried on CVAT's schedule (5 s), and fails the same way.
    h.advance('5s');
    await h.idle();
    expect(r.requests).toHaveLength(0);
    expect((await deliveries(id)).map((d) => [d.attempt, d.status_code])).toEqual([
      [2, 502],
      [1, 502],
    ]);
  });

  it('with enable_ssl: false delivers to the self-signed receiver with a valid signature and records 200', async () => {
    const { r, id } = await world(false);
    const patched = await h.patch('/api/tasks/1?org=acme', { name: 'x' }, { as: 'alice' });
    expect(patched.status).toBe(200);
    await h.idle();
    expect(r.requests).toHaveLength(1);
    const got = r.requests[0];
    expect(got?.signatureValid).toBe(true);
    expect(got?.headers['x-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    // Over TLS too, the headers reach the wire in http.client's and requests' order, Host first.
    expect(got?.rawHeaders.filter((_, i) => i % 2 === 0)).toEqual(WIRE_HEADER_ORDER);
    expect(got?.json).toMatchObject({ event: 'update:task', webhook_id: id, task: patched.body });
    const rows = await deliveries(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ event: 'update:task', status_code: 200, attempt: 1, response: 'ok' });
    expect((await h.get(`/api/webhooks/${id}?org=acme`, { as: 'alice' })).body.last_status).toBe(200);
  });

  it('delivers the retry once enable_ssl is switched off (the webhook is re-read before each attempt)', async () => {
    const { r, id } = await world(true);
    await h.patch('/api/tasks/1?org=acme', { name: 'x' }, { as: 'alice' });
    await h.idle();
    expect(r.requests).toHaveLength(0);
    const off = await h.patch(`/api/webhooks/${id}?org=acme`, { enable_ssl: false }, { as: 'alice' });
    expect(off.status).toBe(200);
    h.advance('5s');
    await h.idle();
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]?.signatureValid).toBe(true);
    expect((await deliveries(id)).map((d) => [d.attempt, d.status_code])).toEqual([
      [2, 200],
      [1, 502],
    ]);
  });
});
