import { createHmac } from 'node:crypto';

/**
 * CVAT's webhook signature: `"sha256=" + HMAC_SHA256(key=secret utf-8, msg=body bytes).hexdigest()`.
 * Only sent when the secret is non-empty.
 */
export function signWebhookBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;
}
