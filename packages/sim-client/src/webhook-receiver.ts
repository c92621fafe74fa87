import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toMilliseconds } from './duration';
import { SimWaitTimeoutError } from './errors';
import type { Duration } from './types';

/** The header CVAT signs deliveries with when the webhook has a secret. */
export const SIGNATURE_HEADER = 'X-Signature-256';

/**
 * The `X-Signature-256` value for a body: `sha256=` + lower-case hex HMAC-SHA256 keyed with the secret
 * (UTF-8) over the exact body bytes, as CVAT computes it.
 *
 * @example signWebhookBody('mykey', '{"event": "ping"}') // 'sha256=…64 hex digits'
 */
export function signWebhookBody(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Checks an `X-Signature-256` header against the RAW body bytes, in constant time, the way CVAT's
 * documented sample receiver does (HMAC-SHA256 of the raw body, `hmac.compare_digest` with
 * `sha256=<hex>`). Verifying a re-serialized body would be wrong: CVAT signs Python's `json.dumps`
 * output byte for byte.
 *
 * @example verifyWebhookSignature('mykey', rawBody, req.headers['x-signature-256']) // true or false
 */
export function verifyWebhookSignature(
  secret: string,
  rawBody: string | Uint8Array,
  header: string | undefined,
): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signWebhookBody(secret, rawBody));
  const given = Buffer.from(header);
  // timingSafeEqual needs equal lengths; a length mismatch reveals nothing secret.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** How the receiver answered one delivery. */
export type DeliveryAnswer =
  | { kind: 'ok'; status: 200 }
  | { kind: 'fail'; status: number }
  /** Never answered: the sender timed out or the receiver closed. */
  | { kind: 'hang' };

/** One request the receiver got. */
export interface ReceivedDelivery {
  /** 1-based arrival order. */
  seq: number;
  method: string;
  /** Path and query, e.g. `/hooks/a?x=1`. */
  path: string;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body bytes exactly as received (what the signature covers). */
  rawBody: Buffer;
  /** The body decoded as UTF-8. */
  text: string;
  /** The body parsed as JSON; `undefined` when empty or not JSON. */
  body: unknown;
  /** The `X-Signature-256` header, when sent. */
  signature?: string;
  /**
   * With a secret: whether `signature` is the HMAC of `rawBody`. Without a secret: `undefined` (not
   * checked; CVAT sends no signature for a webhook without a secret).
   */
  signatureValid: boolean | undefined;
  receivedAt: Date;
  answer: DeliveryAnswer;
}

export interface WebhookReceiverOptions {
  /** The webhook's secret; when set every delivery's signature is verified. */
  secret?: string;
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`; any path under it is accepted (`${url}/hooks/a`). */
  readonly url: string;
  readonly port: number;
  /** Every delivery so far, in arrival order (a live array). */
  readonly deliveries: readonly ReceivedDelivery[];
  /** Resolves with all deliveries once there are at least `count` (now or later). */
  waitFor(count: number, timeout?: Duration): Promise<ReceivedDelivery[]>;
  /** Resolves with the first delivery (already received or future) for which `predicate` holds. */
  waitFor(predicate: (d: ReceivedDelivery) => boolean, timeout?: Duration): Promise<ReceivedDelivery>;
  /** Answers the next `times` deliveries (default 1) with `status` (and `body`, JSON by default). */
  failNext(status: number, times?: number, body?: unknown): void;
  /** Never answers the next `times` deliveries (default 1): the sender sees its own timeout. */
  hang(times?: number): void;
  /** Waits `delay` (wall time) before every answer from now on; `slow(0)` turns it off. */
  slow(delay: Duration): void;
  /** Throws when a secret is set and any delivery's signature is missing or wrong (lists them). */
  verifyAll(): void;
  /** Forgets deliveries and pending fail/hang instructions and the slow delay. */
  clear(): void;
  /** Stops listening and drops open (hanging) connections. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

type Instruction = { kind: 'fail'; status: number; body?: unknown } | { kind: 'hang' };

function describe(d: ReceivedDelivery): string {
  const event = (d.body as { event?: unknown } | undefined)?.event;
  const sig = d.signatureValid === undefined ? '' : d.signatureValid ? ' signature ok' : ' signature BAD';
  const answer = d.answer.kind === 'hang' ? 'hung' : String(d.answer.status);
  return `#${d.seq} ${d.method} ${d.path}${typeof event === 'string' ? ` event=${event}` : ''}${sig} → ${answer}`;
}

function listDeliveries(deliveries: readonly ReceivedDelivery[]): string {
  if (deliveries.length === 0) return 'no deliveries received';
  return `received ${deliveries.length}:\n${deliveries.map((d) => `  ${describe(d)}`).join('\n')}`;
}

/**
 * Starts a webhook receiver for tests on 127.0.0.1: it records every delivery, verifies
 * `X-Signature-256` when given the secret, echoes the body with 200 (like CVAT's own test receiver),
 * and can be told to fail, hang or be slow.
 *
 * @example
 * const receiver = await startWebhookReceiver({ secret: 'mykey' });
 * await createWebhook({ target_url: `${receiver.url}/hook`, secret: 'mykey' });
 * receiver.failNext(503); // the first attempt fails, CVAT retries
 * const [first, second] = await receiver.waitFor(2);
 * receiver.verifyAll();
 * await receiver.close();
 */
export function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const { secret } = options;
  const deliveries: ReceivedDelivery[] = [];
  const instructions: Instruction[] = [];
  const waiters = new Set<(d: ReceivedDelivery) => void>();
  const hanging = new Set<ServerResponse>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let delayMs = 0;

  function answer(res: ServerResponse, status: number, body: string): void {
    const send = () => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    };
    if (delayMs === 0) {
      send();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, delayMs);
    timers.add(timer);
  }

  function handle(req: IncomingMessage, res: ServerResponse, rawBody: Buffer): void {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const text = rawBody.toString('utf8');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const signature = headers[SIGNATURE_HEADER.toLowerCase()];
    const instruction = instructions.shift();
    const delivery: ReceivedDelivery = {
      seq: deliveries.length + 1,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers,
      rawBody,
      text,
      body,
      signature,
      signatureValid: secret === undefined ? undefined : verifyWebhookSignature(secret, rawBody, signature),
      receivedAt: new Date(),
      answer:
        instruction === undefined
          ? { kind: 'ok', status: 200 }
          : instruction.kind === 'fail'
            ? { kind: 'fail', status: instruction.status }
            : { kind: 'hang' },
    };
    // Recorded before answering, so a waiter sees a delivery the receiver is told to hang on.
    deliveries.push(delivery);
    for (const notify of [...waiters]) notify(delivery);

    if (instruction?.kind === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (instruction?.kind === 'fail') {
      const failBody =
        instruction.body === undefined
          ? JSON.stringify({ error: `test receiver told to answer ${instruction.status}` })
          : typeof instruction.body === 'string'
            ? instruction.body
            : JSON.stringify(instruction.body);
      answer(res, instruction.status, failBody);
      return;
    }
    // Echo, as CVAT's tests/python/webhook_receiver does: the sender records it as the delivery's response.
    answer(res, 200, text);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });

  function waitFor(
    target: number | ((d: ReceivedDelivery) => boolean),
    timeout: Duration = '3s',
  ): Promise<ReceivedDelivery[] | ReceivedDelivery> {
    const done = (): ReceivedDelivery[] | ReceivedDelivery | undefined => {
      if (typeof target === 'number') return deliveries.length >= target ? [...deliveries] : undefined;
      return deliveries.find(target);
    };
    const now = done();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const check = () => {
        const result = done();
        if (result === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(result);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        const what =
          typeof target === 'number' ? `${target} deliveries` : 'a delivery matching the predicate';
        reject(
          new SimWaitTimeoutError(
            `webhook receiver: ${what} not received within ${String(timeout)}; ${listDeliveries(deliveries)}`,
          ),
        );
      }, toMilliseconds(timeout));
      waiters.add(check);
    });
  }

  let closed: Promise<void> | undefined;
  function close(): Promise<void> {
    closed ??= new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      const receiver: WebhookReceiver = {
        url: `http://127.0.0.1:${port}`,
        port,
        deliveries,
        waitFor: waitFor as WebhookReceiver['waitFor'],
        failNext(status, times = 1, body) {
          if (!Number.isInteger(status) || status < 100 || status > 599) {
            throw new RangeError(`failNext: ${status} is not an HTTP status`);
          }
          for (let i = 0; i < times; i++) instructions.push({ kind: 'fail', status, body });
        },
        hang(times = 1) {
          for (let i = 0; i < times; i++) instructions.push({ kind: 'hang' });
        },
        slow(delay) {
          delayMs = toMilliseconds(delay);
        },
        verifyAll() {
          if (secret === undefined) {
            throw new Error('verifyAll: the receiver was started without a secret, so nothing was verified');
          }
          const bad = deliveries.filter((d) => !d.signatureValid);
          if (bad.length > 0) {
            throw new Error(
              `webhook receiver: ${bad.length} of ${deliveries.length} deliveries have a missing or wrong ${SIGNATURE_HEADER}:\n` +
                bad.map((d) => `  ${describe(d)} (header: ${d.signature ?? 'absent'})`).join('\n'),
            );
          }
        },
        clear() {
          deliveries.length = 0;
          instructions.length = 0;
          delayMs = 0;
        },
        close,
        [Symbol.asyncDispose]: close,
      };
      resolve(receiver);
    });
  });
}
