import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header CVAT signs deliveries in; sent only when the webhook has a secret (reference §2.5). */
export const SIGNATURE_HEADER = 'X-Signature-256';

/**
 * CVAT's signature of a delivery body: `sha256=` + lowercase hex HMAC-SHA256 keyed with the secret's
 * UTF-8 bytes, over exactly the body bytes sent.
 *
 * @example
 * signBody('mykey', '{"event": "ping"}'); // 'sha256=…64 hex digits…'
 */
export function signBody(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Checks a received `X-Signature-256` against the raw body, in constant time. The body must be the bytes
 * as received: CVAT signs Python's `json.dumps` output (`", "` and `": "` separators, ASCII escapes), which
 * a parse-and-reserialize round trip in JavaScript does not reproduce.
 */
export function verifySignature(secret: string, body: Uint8Array, header: string | undefined): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signBody(secret, body));
  const received = Buffer.from(header);
  return received.length === expected.length && timingSafeEqual(received, expected);
}
