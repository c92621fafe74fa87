import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed URLs of CVAT ≤ 2.45 (`?sign=`, `signatureAuth`), removed in 2.46. CVAT's `Signer` used
 * `django.core.signing.dumps({"user_id", "username"}, salt=sha256(url without "sign").hexdigest())`
 * and `loads(..., max_age=30)`. Django's format: `b64(json):b62(timestamp):b64(hmac)` where the HMAC
 * is SHA-256 keyed with `sha256(salt + "signer" + SECRET_KEY)` (`salted_hmac`), base64url without
 * padding. The JSON is compact (`separators=(",", ":")`).
 */

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function b62Encode(n: number): string {
  if (n === 0) return '0';
  let s = '';
  let v = Math.floor(n);
  while (v > 0) {
    s = B62[v % 62] + s;
    v = Math.floor(v / 62);
  }
  return s;
}

function b62Decode(s: string): number {
  let n = 0;
  for (const ch of s) {
    const i = B62.indexOf(ch);
    if (i < 0) return Number.NaN;
    n = n * 62 + i;
  }
  return n;
}

const b64 = (buf: Buffer) => buf.toString('base64url');

/** The salt CVAT used: sha256 hex of the absolute URL with the `sign` parameter removed. */
function signingSalt(url: string): string {
  const u = new URL(url);
  u.searchParams.delete('sign');
  let normalized = u.toString();
  if (u.search === '' && normalized.endsWith('?')) normalized = normalized.slice(0, -1);
  return createHash('sha256').update(normalized, 'utf8').digest('hex');
}

function signature(value: string, salt: string, secretKey: string): string {
  const key = createHash('sha256').update(`${salt}signer${secretKey}`, 'utf8').digest();
  return b64(createHmac('sha256', key).update(value, 'utf8').digest());
}

/** `signing.dumps(data, salt)` at clock time `nowMs`. */
export function signUrlToken(
  user: { id: number; username: string },
  url: string,
  secretKey: string,
  nowMs: number,
): string {
  const data = b64(Buffer.from(`{"user_id":${user.id},"username":${JSON.stringify(user.username)}}`, 'utf8'));
  const value = `${data}:${b62Encode(Math.floor(nowMs / 1000))}`;
  return `${value}:${signature(value, signingSalt(url), secretKey)}`;
}

/** `signing.loads(token, salt, max_age)`: the payload, or why it failed. */
export function verifyUrlToken(
  token: string,
  url: string,
  secretKey: string,
  nowMs: number,
  maxAgeS = 30,
): { ok: true; userId: number; username: string } | { ok: false; reason: 'expired' | 'bad' } {
  const parts = token.split(':');
  if (parts.length !== 3) return { ok: false, reason: 'bad' };
  const [data, ts, sig] = parts as [string, string, string];
  const expected = signature(`${data}:${ts}`, signingSalt(url), secretKey);
  const a = Buffer.from(sig);
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, reason: 'bad' };
  const age = nowMs / 1000 - b62Decode(ts);
  if (!(age <= maxAgeS)) return { ok: false, reason: 'expired' };
  try {
    const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as {
      user_id: number;
      username: string;
    };
    return { ok: true, userId: payload.user_id, username: payload.username };
  } catch {
    return { ok: false, reason: 'bad' };
  }
}
