import dns from 'node:dns';
import net from 'node:net';
import { lazy, parseInput } from '@sims/sim-core';
import * as z from 'zod';
import type { OutboundResult } from './outbound';

/**
 * Where webhook deliveries may go (FIDELITY.md, "Egress policy").
 *
 * - `metadata-only` (the default): link-local addresses (169.254.0.0/16, fe80::/10), AWS's IPv6
 *   metadata address fd00:ec2::254 and the metadata host names (`metadata.google.internal`, `metadata`)
 *   are refused; everything else, loopback and private ranges included, is open.
 * - `cvat-proxy`: what CVAT's egress proxy (smokescreen, as CVAT runs it: no ACL, no `--allow-range`)
 *   refuses: every address that is not global unicast (unspecified, loopback, multicast, link-local,
 *   broadcast) and the private ranges 10/8, 172.16/12, 192.168/16, fc00::/7.
 *
 * `allow` opens hosts in either mode: IP addresses, CIDR ranges (as smokescreen's `--allow-address` and
 * `--allow-range`) and host names (a simulator convenience: smokescreen without an ACL has none).
 */
export const EGRESS_POLICIES = ['metadata-only', 'cvat-proxy'] as const;
export type EgressPolicy = (typeof EGRESS_POLICIES)[number];

export interface EgressSettings {
  policy: EgressPolicy;
  /** Hosts opened whatever the policy: `127.0.0.1`, `10.0.0.0/8`, `::1`, `receiver.test`. */
  allow: string[];
}

export const DEFAULT_EGRESS: EgressSettings = { policy: 'metadata-only', allow: [] };

/**
 * Resolves a target's host name to its addresses, in the order a connection would try them. Injected
 * (`delivery.resolve`) so that tests decide what a name resolves to without asking any DNS server; an
 * error with a `code` (`ENOTFOUND`, `EAI_AGAIN`) is recorded as requests records a failed lookup.
 */
export type EgressResolver = (hostname: string) => Promise<string[]>;

/** The system's resolver (getaddrinfo, as Python's socket.create_connection asks it), in its order. */
const systemResolver: EgressResolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
};

/** Smokescreen's names for the rules that refuse an address (`ipType.String()`). */
export type DenyRule = 'Deny: Not Global Unicast' | 'Deny: Private Range';

type EgressVerdict =
  /** Open. `addresses`: what the name resolved to, the only addresses the connection may use. */
  | { allowed: true; addresses?: string[] }
  /** Refused before any connection: the address that was refused (as Go prints it) and the rule. */
  | { allowed: false; address: string; rule: DenyRule };

/** An address as 16 bytes; IPv4 (and IPv4-mapped IPv6) as `::ffff:a.b.c.d`, flagged `v4`, as Go keeps it. */
interface Ip {
  bytes: Uint8Array;
  v4: boolean;
}

interface Cidr {
  ip: Ip;
  /** Prefix length over the 16 bytes (an IPv4 /n is 96 + n). */
  bits: number;
}

/** Parses an IP address (IPv6 possibly in brackets or with a zone), or undefined. */
export function parseIp(text: string): Ip | undefined {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  const kind = net.isIP(s);
  const bytes = new Uint8Array(16);
  if (kind === 4) {
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    s.split('.').forEach((p, i) => {
      bytes[12 + i] = Number(p);
    });
    return { bytes, v4: true };
  }
  if (kind !== 6) return undefined;
  const words = (part: string): number[] => {
    const out: number[] = [];
    if (part === '') return out;
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
        out.push((a << 8) | b, (c << 8) | d);
      } else out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const gap = s.indexOf('::');
  const head = words(gap === -1 ? s : s.slice(0, gap));
  const tail = gap === -1 ? [] : words(s.slice(gap + 2));
  const all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  all.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  const mapped = bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return { bytes, v4: mapped };
}

/** Parses `a.b.c.d/n` or `x::/n` (an address alone is its own /32 or /128), or undefined. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const ip = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (!ip) return undefined;
  const max = ip.v4 ? 32 : 128;
  const n = slash === -1 ? max : Number(text.slice(slash + 1));
  if (!Number.isInteger(n) || n < 0 || n > max || (slash !== -1 && !/^\d+$/.test(text.slice(slash + 1))))
    return undefined;
  return { ip, bits: ip.v4 ? 96 + n : n };
}

/** Go's `IPNet.Contains`: an IPv4 range holds IPv4 addresses only, an IPv6 range IPv6 ones only. */
function contains(range: Cidr, ip: Ip): boolean {
  if (range.ip.v4 !== ip.v4) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const left = range.bits - bit;
    const mask = left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
    if (((range.ip.bytes[bit >> 3] as number) & mask) !== ((ip.bytes[bit >> 3] as number) & mask))
      return false;
  }
  return true;
}

/**
 * The ranges parsed on first use: parsing an IPv6 range compiles node's IPv6 pattern (~5 ms), which
 * startup does not need (docs/decisions/0009).
 */
const ranges = (...texts: string[]) => lazy(() => texts.map((t) => parseCidr(t) as Cidr));
/** Go's `IsLoopback`, `IsMulticast`, `IsLinkLocalUnicast`, `IsUnspecified`, broadcast: not global unicast. */
const NOT_GLOBAL_UNICAST = ranges(
  '127.0.0.0/8',
  '::1/128',
  '224.0.0.0/4',
  'ff00::/8',
  '169.254.0.0/16',
  'fe80::/10',
  '0.0.0.0/32',
  '::/128',
  '255.255.255.255/32',
);
/** Go's `IsPrivate` (RFC 1918, RFC 4193). */
const PRIVATE = ranges('10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7');
/** The default policy's refusals: link-local (where cloud metadata services answer) and AWS's IPv6 one. */
const LINK_LOCAL = ranges('169.254.0.0/16', 'fe80::/10');
const AWS_METADATA_V6 = ranges('fd00:ec2::254/128');
/** Host names of metadata services, refused without asking a resolver; GCP's DNS answers 169.254.169.254. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata']);
const METADATA_ADDRESS = '169.254.169.254';

const inAny = (list: readonly Cidr[], ip: Ip) => list.some((r) => contains(r, ip));

/** The address as Go's `IP.String()` prints it: dotted IPv4 (mapped too), RFC 5952 IPv6. */
export function formatIp(ip: Ip): string {
  const b = ip.bytes;
  if (ip.v4) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const words: number[] = [];
  for (let i = 0; i < 8; i++) words.push(((b[2 * i] as number) << 8) | (b[2 * i + 1] as number));
  // The longest run of two or more zero words (the first of equal ones) becomes "::".
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(':');
  if (best === -1) return hex(words);
  return `${hex(words.slice(0, best))}::${hex(words.slice(best + bestLen))}`;
}

function denyRule(policy: EgressPolicy, ip: Ip): DenyRule | undefined {
  if (policy === 'cvat-proxy') {
    // smokescreen's classifyAddr, without user-configured deny ranges (CVAT configures none).
    if (inAny(NOT_GLOBAL_UNICAST(), ip)) return 'Deny: Not Global Unicast';
    if (inAny(PRIVATE(), ip)) return 'Deny: Private Range';
    return undefined;
  }
  if (inAny(LINK_LOCAL(), ip)) return 'Deny: Not Global Unicast';
  if (inAny(AWS_METADATA_V6(), ip)) return 'Deny: Private Range';
  return undefined;
}

/** A host name as it is compared: lower case, without a trailing dot. */
const nameKey = (host: string) => host.toLowerCase().replace(/\.$/, '');

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

/** Settings as options, the control plane and snapshots take them (built on first use: decision 0009). */
const egressSettingsInputSchema = lazy(() =>
  z
    .object({
      policy: z.enum(EGRESS_POLICIES).optional(),
      allow: z
        .array(
          z.string().refine((s) => parseCidr(s) !== undefined || HOST_NAME.test(s), {
            message: 'expected an IP address, a CIDR range (10.0.0.0/8, fd00::/8) or a host name',
          }),
        )
        .optional(),
    })
    .strict(),
);

/** Validates `{policy?, allow?}` over `base`; throws SimInputError (`egress.allow[0]: …`). */
export function egressSettingsOf(input: unknown, base: EgressSettings = DEFAULT_EGRESS): EgressSettings {
  if (input === undefined || input === null) return { policy: base.policy, allow: [...base.allow] };
  const s = parseInput(egressSettingsInputSchema(), input, 'egress');
  return { policy: s.policy ?? base.policy, allow: [...(s.allow ?? base.allow)] };
}

/** One world's egress policy: its settings and the decision for a target URL. */
export interface EgressGuard {
  settings(): EgressSettings;
  /** Replaces the settings (validated first). */
  set(settings: EgressSettings): void;
  /**
   * The verdict for a URL whose host is an IP address (no resolution needed), or undefined when the host
   * is a name to resolve first. Cached per URL until the settings change.
   */
  immediate(url: string): EgressVerdict | undefined;
  /**
   * The verdict for a target: a host name is resolved first (metadata names excepted: they are refused
   * as the address they have in the cloud). Rejects with the resolver's error when the name does not
   * resolve. Nothing is connected here.
   */
  decide(url: URL): Promise<EgressVerdict>;
}

/**
 * `resolve: false` resolves nothing: a host name is judged by its name alone (the metadata names are
 * refused) and the sender connects to it by name. The simulator uses it when a sender is injected and no
 * resolver is: an injected sender is the network, and nothing may go asking a DNS server behind it.
 */
export function createEgressGuard(
  initial: EgressSettings = DEFAULT_EGRESS,
  resolve: EgressResolver | false = systemResolver,
): EgressGuard {
  let settings = egressSettingsOf(initial);
  let allowRanges: Cidr[] = [];
  let allowNames = new Set<string>();
  const cache = new Map<string, EgressVerdict | null>();
  const apply = (s: EgressSettings) => {
    settings = s;
    allowRanges = s.allow.map(parseCidr).filter((c): c is Cidr => c !== undefined);
    allowNames = new Set(s.allow.filter((a) => parseCidr(a) === undefined).map(nameKey));
    cache.clear();
  };
  apply(settings);

  /** smokescreen's order: an allowed range wins over every deny rule. */
  const verdictFor = (ip: Ip): EgressVerdict => {
    if (inAny(allowRanges, ip)) return { allowed: true };
    const rule = denyRule(settings.policy, ip);
    return rule === undefined ? { allowed: true } : { allowed: false, address: formatIp(ip), rule };
  };
  const literalOf = (url: URL) => parseIp(url.hostname);

  return {
    settings: () => ({ policy: settings.policy, allow: [...settings.allow] }),
    set: (s) => apply(egressSettingsOf(s)),
    immediate(url) {
      let v = cache.get(url);
      if (v === undefined) {
        let ip: Ip | undefined;
        try {
          ip = literalOf(new URL(url));
        } catch {
          ip = undefined;
        }
        v = ip ? verdictFor(ip) : null;
        if (cache.size >= 1024) cache.clear();
        cache.set(url, v);
      }
      return v ?? undefined;
    },
    async decide(url) {
      const literal = literalOf(url);
      if (literal) return verdictFor(literal);
      const name = nameKey(url.hostname);
      const named = allowNames.has(name);
      if (!named && METADATA_NAMES.has(name)) {
        const v = verdictFor(parseIp(METADATA_ADDRESS) as Ip);
        if (!v.allowed) return v;
      }
      if (resolve === false) return { allowed: true };
      const found = await resolve(url.hostname.replace(/\.$/, ''));
      const ips: Ip[] = [];
      for (const a of found) {
        const ip = parseIp(a);
        if (!ip) throw Object.assign(new Error(`resolver returned "${a}", not an IP address`), { code: '' });
        ips.push(ip);
      }
      if (ips.length === 0)
        throw Object.assign(new Error(`no address for ${url.hostname}`), { code: 'ENOTFOUND' });
      // smokescreen resolves the name, checks the first address and connects to it alone; the default
      // policy lets the connection try every address, so every one must pass.
      const used = settings.policy === 'cvat-proxy' ? ips.slice(0, 1) : ips;
      if (!named) {
        for (const ip of used) {
          const v = verdictFor(ip);
          if (!v.allowed) return v;
        }
      }
      return { allowed: true, addresses: used.map(formatIp) };
    },
  };
}

/**
 * What CVAT records for a delivery its egress proxy refused. A plain-HTTP target goes through the proxy
 * as an absolute-URI request, and smokescreen answers it itself: `407 Request rejected by proxy`, its
 * text/plain message as the body (a 4xx: not retried). An HTTPS target needs a CONNECT tunnel, which
 * smokescreen refuses with the same 407; http.client raises `OSError('Tunnel connection failed: 407
 * Request rejected by proxy')`, which urllib3 2 (connected to the proxy by then) wraps in
 * `ProtocolError('Connection aborted.', …)` and requests in a ConnectionError: 502 with its text,
 * retried like any 502.
 */
export function refusedDeliveryResult(
  url: URL,
  refusal: { address: string; rule: DenyRule },
): OutboundResult {
  if (url.protocol === 'https:')
    return {
      kind: 'connection-error',
      message: "('Connection aborted.', OSError('Tunnel connection failed: 407 Request rejected by proxy'))",
    };
  return {
    kind: 'response',
    status: 407,
    body: `Egress proxying is denied to host '${url.host}': The destination address (${refusal.address}) was denied by rule '${refusal.rule}'. destination address was denied by rule, see error.\n`,
  };
}
