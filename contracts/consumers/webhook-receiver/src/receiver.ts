import { parseWebhookEvent, type WebhookEvent } from './payload';
import { SIGNATURE_HEADER, verifySignature } from './signature';

/** A delivery as the HTTP server received it; `body` is the raw bytes, before any parsing. */
export interface ReceivedDelivery {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body: Uint8Array;
}

export interface ReceiverAnswer {
  readonly status: number;
  readonly body: string;
}

export interface WebhookReceiverOptions {
  /** The webhook's secret; deliveries without a matching `X-Signature-256` are refused. */
  readonly secret: string;
  readonly onEvent: (event: WebhookEvent) => void | Promise<void>;
}

function header(headers: ReceivedDelivery['headers'], name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

/**
 * The handler behind a team's CVAT webhook endpoint, free of any HTTP server: verify the signature over
 * the raw body, parse, dispatch. The status codes are chosen for CVAT's retry rule (it retries 5xx, 408
 * and 429, nothing else; reference §2.5): a bad signature or body is final (403, 400, as in CVAT's sample
 * receiver), a failing handler asks for a retry (500), anything else is acknowledged (200).
 *
 * @example
 * const receiver = createWebhookReceiver({ secret, onEvent: (e) => console.log(e.kind) });
 * const answer = await receiver.handle({ headers: req.headers, body: rawBody });
 */
export function createWebhookReceiver(options: WebhookReceiverOptions) {
  if (options.secret === '') {
    // CVAT sends no signature for a webhook without a secret; this receiver only takes signed deliveries.
    throw new Error('a webhook receiver needs the webhook secret');
  }
  return {
    async handle(delivery: ReceivedDelivery): Promise<ReceiverAnswer> {
      if (!verifySignature(options.secret, delivery.body, header(delivery.headers, SIGNATURE_HEADER))) {
        return { status: 403, body: 'Invalid signature' };
      }
      let event: WebhookEvent;
      try {
        event = parseWebhookEvent(JSON.parse(Buffer.from(delivery.body).toString('utf8')));
      } catch (e) {
        return { status: 400, body: `Unreadable payload: ${(e as Error).message}` };
      }
      try {
        await options.onEvent(event);
      } catch (e) {
        return { status: 500, body: `Handler failed: ${(e as Error).message}` };
      }
      return { status: 200, body: 'ok' };
    },
  };
}

export type WebhookReceiver = ReturnType<typeof createWebhookReceiver>;
