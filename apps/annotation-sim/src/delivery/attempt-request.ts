// How one delivery's request is written: the target's parts, the headers as python-requests writes them,
// the request the sender takes, and the egress policy's decision before anything is opened.
import { signWebhookBody } from '../domain/signing';
import type { AttemptSettings } from './attempt-types';
import { type EgressGuard, refusedDeliveryResult } from './egress';
import { failedConnectionResult, type OutboundResult } from './outbound';
import type { OutboundRequest } from './outbound-request';

/** The request-writing half of an engine's attempts (attempt.ts), with its cache of parsed target URLs. */
export function createRequestMaker(egress: EgressGuard, settings: AttemptSettings) {
  const { connectTimeoutMs, readTimeoutMs, userAgent } = settings;
  /** `target_url` → its path for the fault facts and its `Host` (parsed once per URL, not per delivery). */
  const parts = new Map<string, { path: string; host: string }>();
  const partsOf = (url: string) => {
    let p = parts.get(url);
    if (p === undefined) {
      if (parts.size >= 1024) parts.clear();
      p = urlParts(url);
      parts.set(url, p);
    }
    return p;
  };

  /**
   * The request's headers as they go on the wire. http.client writes `Host` first (`putrequest`); then
   * python-requests' own: the session's defaults, the request's `X-Signature-256`, then what
   * `prepare_body` adds for `json=`: `Content-Length` (`prepare_content_length`) and only then
   * `Content-Type`.
   */
  function headersFor(url: string, body: string, secret: string, corrupt: boolean): [string, string][] {
    const host = partsOf(url).host;
    const h: [string, string][] = host === '' ? [] : [['Host', host]];
    h.push(
      ['User-Agent', userAgent],
      ['Accept-Encoding', 'gzip, deflate'],
      ['Accept', '*/*'],
      ['Connection', 'keep-alive'],
    );
    if (secret !== '') {
      let sig = signWebhookBody(secret, body);
      if (corrupt)
        sig = `sha256=${[...sig.slice(7)].map((c) => ((Number.parseInt(c, 16) + 1) % 16).toString(16)).join('')}`;
      h.push(['X-Signature-256', sig]);
    }
    // The body is ASCII (json.dumps escapes the rest): as many bytes as characters.
    h.push(['Content-Length', String(body.length)], ['Content-Type', 'application/json']);
    return h;
  }

  function requestOf(
    url: string,
    headers: [string, string][],
    bodyText: string,
    verifyTls: boolean,
    deadlineMs: number | undefined,
    addresses?: string[],
  ): OutboundRequest {
    let bytes: Buffer | undefined;
    const request: OutboundRequest = {
      url,
      headers,
      get body() {
        bytes ??= Buffer.from(bodyText, 'latin1');
        return bytes;
      },
      bodyText,
      verifyTls,
      connectTimeoutMs,
      readTimeoutMs,
    };
    if (deadlineMs !== undefined) request.deadlineMs = deadlineMs;
    if (addresses !== undefined) request.addresses = addresses;
    return request;
  }

  /**
   * The egress policy's decision for a target, before any connection: go (to these addresses), or the
   * result CVAT records for a delivery its proxy refused, or for a name that does not resolve.
   */
  async function egressCheck(
    url: string,
  ): Promise<
    { go: true; addresses?: string[] } | { go: false; result: OutboundResult; outcome?: 'egress-refused' }
  > {
    const known = egress.immediate(url);
    if (known?.allowed) return { go: true };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      // Not a URL the sender can parse: it refuses it before opening anything, as it always has.
      return { go: true };
    }
    // Nor a scheme it sends to (Django's URLValidator also lets ftp:// through): nothing to resolve.
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return { go: true };
    try {
      const verdict = known ?? (await egress.decide(target));
      if (verdict.allowed) return { go: true, addresses: verdict.addresses };
      return { go: false, result: refusedDeliveryResult(target, verdict), outcome: 'egress-refused' };
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown };
      const code = typeof e?.code === 'string' ? e.code : '';
      return { go: false, result: failedConnectionResult(target, code, String(e?.message ?? err)) };
    }
  }

  return { partsOf, headersFor, requestOf, egressCheck };
}

/**
 * A target URL's path, and its `Host` header as http.client writes it: the host (IPv6 in brackets) and
 * the port unless it is the scheme's default.
 */
function urlParts(url: string): { path: string; host: string } {
  try {
    const u = new URL(url);
    return { path: u.pathname, host: u.host };
  } catch {
    return { path: '/', host: '' };
  }
}
