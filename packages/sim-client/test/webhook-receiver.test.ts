import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SimWaitTimeoutError,
  signWebhookBody,
  startWebhookReceiver,
  verifyWebhookSignature,
  type WebhookReceiver,
} from '../src/index';

const SECRET = 'mykey';
// CVAT signs Python's json.dumps output: ", " and ": " separators, byte for byte.
const PAYLOAD = '{"event": "ping", "webhook_id": 1, "sender": {"username": "admin"}}';

const receivers: WebhookReceiver[] = [];
async function receiver(options: Parameters<typeof startWebhookReceiver>[0] = {}) {
  const r = await startWebhookReceiver(options);
  receivers.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** Sends a delivery the way CVAT does: POST JSON, signed when there is a secret. */
function deliver(
  url: string,
  body: string,
  options: { secret?: string; signature?: string; signal?: AbortSignal } = {},
) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'CVAT/2.73.0 python-requests/2.33.1',
  };
  const signature = options.signature ?? (options.secret ? signWebhookBody(options.secret, body) : undefined);
  if (signature) headers['x-signature-256'] = signature;
  return fetch(url, { method: 'POST', headers, body, signal: options.signal });
}

describe('signWebhookBody / verifyWebhookSignature', () => {
  it('computes sha256=<hex HMAC-SHA256> of the raw bytes', () => {
    const expected = `sha256=${createHmac('sha256', SECRET).update(PAYLOAD).digest('hex')}`;
    expect(signWebhookBody(SECRET, PAYLOAD)).toBe(expected);
    expect(signWebhookBody(SECRET, Buffer.from(PAYLOAD))).toBe(expected);
    // CVAT's documentation example: the empty body with secret "mykey".
    expect(signWebhookBody('mykey', '')).toBe(
      'sha256=e1b24265bf2e0b20c81837993b4f1415f7b68c503114d100a40601eca6a2745f',
    );
  });

  it('accepts only the exact signature of the exact bytes', () => {
    const good = signWebhookBody(SECRET, PAYLOAD);
    expect(verifyWebhookSignature(SECRET, PAYLOAD, good)).toBe(true);
    expect(verifyWebhookSignature(SECRET, PAYLOAD, undefined)).toBe(false);
    expect(verifyWebhookSignature('other', PAYLOAD, good)).toBe(false);
    expect(verifyWebhookSignature(SECRET, PAYLOAD, good.toUpperCase())).toBe(false);
    expect(verifyWebhookSignature(SECRET, PAYLOAD, good.slice('sha256='.length))).toBe(false);
    // A re-serialization with other separators is other bytes: the signature no longer holds.
    expect(verifyWebhookSignature(SECRET, JSON.stringify(JSON.parse(PAYLOAD)), good)).toBe(false);
  });
});

describe('startWebhookReceiver', () => {
  it('records a delivery with raw body, parsed JSON, headers and a valid signature, and echoes the body', async () => {
    const r = await receiver({ secret: SECRET });
    expect(r.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await deliver(`${r.url}/hooks/1?x=y`, PAYLOAD, { secret: SECRET });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(PAYLOAD);
    expect(r.deliveries).toHaveLength(1);
    const d = r.deliveries[0]!;
    expect(d).toMatchObject({
      seq: 1,
      method: 'POST',
      path: '/hooks/1?x=y',
      text: PAYLOAD,
      body: { event: 'ping', webhook_id: 1, sender: { username: 'admin' } },
      signature: signWebhookBody(SECRET, PAYLOAD),
      signatureValid: true,
      answer: { kind: 'ok', status: 200 },
    });
    expect(d.rawBody.equals(Buffer.from(PAYLOAD))).toBe(true);
    expect(d.headers['user-agent']).toBe('CVAT/2.73.0 python-requests/2.33.1');
    expect(d.headers['content-type']).toBe('application/json');
    expect(d.receivedAt).toBeInstanceOf(Date);
    expect(() => r.verifyAll()).not.toThrow();
  });

  it('detects a tampered body, a wrong secret and a missing signature', async () => {
    const r = await receiver({ secret: SECRET });
    const signature = signWebhookBody(SECRET, PAYLOAD);
    await deliver(r.url, PAYLOAD.replace('admin', 'mallory'), { signature });
    await deliver(r.url, PAYLOAD, { secret: 'not-the-secret' });
    await deliver(r.url, PAYLOAD);
    await deliver(r.url, PAYLOAD, { secret: SECRET });
    expect(r.deliveries.map((d) => d.signatureValid)).toEqual([false, false, false, true]);
    expect(() => r.verifyAll()).toThrow(
      `webhook receiver: 3 of 4 deliveries have a missing or wrong X-Signature-256:\n` +
        `  #1 POST / event=ping signature BAD → 200 (header: ${signature})\n` +
        `  #2 POST / event=ping signature BAD → 200 (header: ${signWebhookBody('not-the-secret', PAYLOAD)})\n` +
        '  #3 POST / event=ping signature BAD → 200 (header: absent)',
    );
  });

  it('verifies nothing without a secret, and says so when asked to', async () => {
    const r = await receiver();
    await deliver(r.url, PAYLOAD);
    expect(r.deliveries[0]?.signatureValid).toBeUndefined();
    expect(() => r.verifyAll()).toThrow(/started without a secret/);
  });

  it('keeps a body that is not JSON as raw bytes and text', async () => {
    const r = await receiver();
    await fetch(r.url, { method: 'POST', body: 'not json {' });
    expect(r.deliveries[0]).toMatchObject({ text: 'not json {', body: undefined });
  });

  it('fails the next deliveries when told to, and the sender sees the status', async () => {
    const r = await receiver({ secret: SECRET });
    r.failNext(503, 2);
    r.failNext(429, 1, { detail: 'slow down' });
    const statuses: number[] = [];
    const bodies: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await deliver(r.url, PAYLOAD, { secret: SECRET });
      statuses.push(res.status);
      bodies.push(await res.text());
    }
    expect(statuses).toEqual([503, 503, 429, 200]);
    expect(bodies[0]).toBe('{"error":"test receiver told to answer 503"}');
    expect(bodies[2]).toBe('{"detail":"slow down"}');
    expect(r.deliveries.map((d) => d.answer)).toEqual([
      { kind: 'fail', status: 503 },
      { kind: 'fail', status: 503 },
      { kind: 'fail', status: 429 },
      { kind: 'ok', status: 200 },
    ]);
    expect(() => r.failNext(42)).toThrow(/not an HTTP status/);
  });

  it('hangs until the sender gives up, still recording the delivery', async () => {
    const r = await receiver({ secret: SECRET });
    r.hang();
    const sent = deliver(r.url, PAYLOAD, { secret: SECRET, signal: AbortSignal.timeout(100) });
    await expect(sent).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(r.deliveries).toMatchObject([{ seq: 1, answer: { kind: 'hang' }, signatureValid: true }]);
    // Only the next delivery hung.
    expect((await deliver(r.url, PAYLOAD)).status).toBe(200);
  });

  it('drops hanging connections on close', async () => {
    const r = await receiver();
    r.hang();
    const sent = deliver(r.url, PAYLOAD);
    await r.waitFor(1);
    await r.close();
    await expect(sent).rejects.toThrow();
  });

  it('answers slowly when told to, and slow(0) turns it off', async () => {
    const r = await receiver();
    r.slow(80);
    let started = performance.now();
    expect((await deliver(r.url, PAYLOAD)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    r.slow('0ms');
    started = performance.now();
    await deliver(r.url, PAYLOAD);
    expect(performance.now() - started).toBeLessThan(75);
  });

  it('times the sender out when slower than its timeout, combined with failNext', async () => {
    const r = await receiver();
    r.slow('2s');
    r.failNext(500);
    await expect(deliver(r.url, PAYLOAD, { signal: AbortSignal.timeout(50) })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(r.deliveries[0]?.answer).toEqual({ kind: 'fail', status: 500 });
  });

  it('waitFor(count) resolves as soon as the deliveries arrive', async () => {
    const r = await receiver();
    const two = r.waitFor(2, '10s');
    await deliver(r.url, '{"n": 1}');
    await deliver(r.url, '{"n": 2}');
    expect((await two).map((d) => d.body)).toEqual([{ n: 1 }, { n: 2 }]);
    // Already there: at once.
    expect(await r.waitFor(1)).toHaveLength(2);
  });

  it('waitFor(predicate) resolves with the first matching delivery, past or future', async () => {
    const r = await receiver();
    await deliver(r.url, '{"event": "create:task"}');
    const update = r.waitFor((d) => (d.body as { event: string }).event === 'update:task', '10s');
    await deliver(r.url, '{"event": "create:job"}');
    await deliver(r.url, '{"event": "update:task"}');
    expect((await update).seq).toBe(3);
    expect((await r.waitFor((d) => d.path === '/')).seq).toBe(1);
  });

  it('waitFor rejects on timeout, listing what arrived', async () => {
    const r = await receiver({ secret: SECRET });
    await deliver(r.url, PAYLOAD, { secret: SECRET });
    const error = await r.waitFor(2, 20).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimWaitTimeoutError);
    expect((error as Error).message).toBe(
      'webhook receiver: 2 deliveries not received within 20; received 1:\n  #1 POST / event=ping signature ok → 200',
    );
  });

  it('clear forgets deliveries and instructions', async () => {
    const r = await receiver();
    r.failNext(500);
    r.slow(1000);
    r.clear();
    expect((await deliver(r.url, PAYLOAD)).status).toBe(200);
    expect(r.deliveries).toHaveLength(1);
    r.clear();
    expect(r.deliveries).toHaveLength(0);
  });
});
