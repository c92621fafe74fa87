// The egress policy (src/delivery/egress.ts, FIDELITY.md "Egress policy"): which targets a delivery may
// reach, decided after name resolution and before any connection. Every refusal here is proved with an
// injected resolver and an injected sender (or a spy on node:net that refuses to open anything but
// loopback), so a broken policy can never send a request off 127.0.0.1.
import { spawn } from 'node:child_process';
import dns from 'node:dns';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EgressResolver } from '../src/delivery/egress';
import { formatIp, parseCidr, parseIp } from '../src/delivery/egress';
import type { OutboundRequest, OutboundResult } from '../src/delivery/sender';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';

let h: Harness;
let receivers: Receiver[] = [];
/** Names the system resolver was asked for: none, ever (it is stubbed to fail, and checked after each test). */
let systemLookups: string[] = [];
beforeEach(() => {
  systemLookups = [];
  vi.spyOn(dns.promises, 'lookup').mockImplementation((async (name: string) => {
    systemLookups.push(name);
    throw Object.assign(new Error(`no DNS in these tests (${name})`), { code: 'ENOTFOUND' });
  }) as unknown as typeof dns.promises.lookup);
});
afterEach(async () => {
  expect(systemLookups).toEqual([]);
  vi.restoreAllMocks();
  h?.close();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

/** A sender that records what it was asked to send and answers 200, opening nothing. */
function fakeSender() {
  const sent: OutboundRequest[] = [];
  const sender = async (req: OutboundRequest): Promise<OutboundResult> => {
    sent.push(req);
    return { kind: 'response', status: 200, body: 'ok' };
  };
  return { sent, sender };
}

/** A resolver over a fixed table that records every name it was asked; unknown names do not exist. */
function fakeResolver(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve: EgressResolver = async (name) => {
    asked.push(name);
    const found = table[name];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found;
  };
  return { asked, resolve };
}

function world(options: Parameters<typeof createHarness>[0] = {}) {
  h = createHarness(options);
  h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p', size: 4, segment_size: 2 }],
  });
  return h;
}

async function hook(target: string) {
  const res = await h.post(
    '/api/webhooks?org=acme',
    aWebhook().forProject(1).to(target).withEvents('update:task').build(),
    { as: 'alice' },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

type Row = { status_code: number; response: string; attempt: number; redelivery: boolean; event: string };
async function rows(id: number): Promise<Row[]> {
  return (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results;
}

/** One `update:task` delivery to every webhook of project 1, and the engine idle afterwards. */
let renames = 0;
async function deliverOnce() {
  await h.patch('/api/tasks/1', { name: `renamed ${++renames}` }, { as: 'alice' });
  await h.idle();
}

const settings = (body: unknown, ns?: string) =>
  h.request('PATCH', `${ns ? `/_ns/${ns}` : ''}/_sim/deliveries/settings`, { body });

/** smokescreen's 407 body for a refused plain-HTTP target. */
const refusal = (host: string, address: string, rule: string) =>
  `Egress proxying is denied to host '${host}': The destination address (${address}) was denied by rule '${rule}'. destination address was denied by rule, see error.\n`;
const NOT_GLOBAL = 'Deny: Not Global Unicast';
const PRIVATE = 'Deny: Private Range';

describe('the default policy (metadata-only)', () => {
  it('refuses 169.254.169.254 before anything is opened and records the proxy’s 407, not retried', async () => {
    const { sent, sender } = fakeSender();
    const { asked, resolve } = fakeResolver({});
    world({ sender, delivery: { resolve } });
    const id = await hook('http://169.254.169.254/latest/meta-data/');
    await deliverOnce();
    expect(sent).toEqual([]);
    expect(asked).toEqual([]);
    const [row] = await rows(id);
    expect(row).toMatchObject({
      status_code: 407,
      attempt: 1,
      response: refusal('169.254.169.254', '169.254.169.254', NOT_GLOBAL),
    });
    const entry = h.sim.deliveries().journal().entries.at(-1);
    expect(entry).toMatchObject({
      webhookId: id,
      outcome: 'egress-refused',
      statusCode: 407,
      url: 'http://169.254.169.254/latest/meta-data/',
    });
    // A 4xx is final: nothing is scheduled, the clock brings no second attempt.
    expect(h.sim.deliveries().stats().scheduledRetries).toBe(0);
    h.advance('1d');
    await h.idle();
    expect(await rows(id)).toHaveLength(1);
    // The webhook reports it as its last status, as CVAT's does.
    expect((await h.get(`/api/webhooks/${id}`, { as: 'alice' })).body.last_status).toBe(407);
  });

  it('refuses a name that resolves to a metadata address, after resolving it and before connecting', async () => {
    const { sent, sender } = fakeSender();
    const { asked, resolve } = fakeResolver({ 'evil.example': ['169.254.169.254'] });
    world({ sender, delivery: { resolve } });
    const id = await hook('http://evil.example:8080/hook');
    await deliverOnce();
    expect(asked).toEqual(['evil.example']);
    expect(sent).toEqual([]);
    expect((await rows(id))[0]).toMatchObject({
      status_code: 407,
      response: refusal('evil.example:8080', '169.254.169.254', NOT_GLOBAL),
    });
  });

  it('refuses a name when any of its addresses is refused (the connection could try each)', async () => {
    const { sent, sender } = fakeSender();
    const { resolve } = fakeResolver({ 'split.example': ['203.0.113.7', '169.254.170.2'] });
    world({ sender, delivery: { resolve } });
    const id = await hook('http://split.example/hook');
    await deliverOnce();
    expect(sent).toEqual([]);
    expect((await rows(id))[0]?.response).toBe(refusal('split.example', '169.254.170.2', NOT_GLOBAL));
  });

  it.each([
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal'],
    ['http://METADATA.google.internal./computeMetadata/v1/', 'metadata.google.internal.'],
    // Django's URLValidator refuses a name without a TLD, so this one only comes in with a state import.
    ['http://metadata/computeMetadata/v1/', 'metadata'],
  ])('refuses %s by name, without asking the resolver', async (url, host) => {
    const { sent, sender } = fakeSender();
    const { asked, resolve } = fakeResolver({
      'metadata.google.internal': ['203.0.113.9'],
      metadata: ['203.0.113.9'],
    });
    world({ sender, delivery: { resolve } });
    const id = await hook('http://placeholder.example/');
    // A new record in place of the stored (frozen) one, as a state import would put it there.
    const webhooks = h.state().webhooks;
    webhooks.set(id, {
      ...(webhooks.get(id) as NonNullable<ReturnType<typeof webhooks.get>>),
      target_url: url,
    });
    await deliverOnce();
    expect(asked).toEqual([]);
    expect(sent).toEqual([]);
    expect((await rows(id))[0]).toMatchObject({
      status_code: 407,
      response: refusal(host, '169.254.169.254', NOT_GLOBAL),
    });
  });

  it.each([
    ['http://[fd00:ec2::254]/latest/meta-data/', '[fd00:ec2::254]', 'fd00:ec2::254', PRIVATE],
    ['http://[fe80::1]:8080/hook', '[fe80::1]:8080', 'fe80::1', NOT_GLOBAL],
    ['http://[::ffff:169.254.169.254]/', '[::ffff:a9fe:a9fe]', '169.254.169.254', NOT_GLOBAL],
    ['http://169.254.0.1:80/hook', '169.254.0.1', '169.254.0.1', NOT_GLOBAL],
  ])('refuses %s', async (url, host, address, rule) => {
    const { sent, sender } = fakeSender();
    world({ sender });
    const id = await hook(url);
    await deliverOnce();
    expect(sent).toEqual([]);
    expect((await rows(id))[0]).toMatchObject({ status_code: 407, response: refusal(host, address, rule) });
  });

  it('lets private and loopback targets through, and pins a resolved name to the addresses it checked', async () => {
    const { sent, sender } = fakeSender();
    const { asked, resolve } = fakeResolver({ 'intranet.example': ['10.0.0.8', '192.168.1.4'] });
    world({ sender, delivery: { resolve } });
    const ids = [
      await hook('http://10.1.2.3/hook'),
      await hook('http://192.168.0.10:8080/hook'),
      await hook('http://127.0.0.1:9/hook'),
      await hook('http://[::1]:9/hook'),
      await hook('http://intranet.example/hook'),
    ];
    await deliverOnce();
    expect(sent.map((r) => [r.url, r.addresses])).toEqual([
      ['http://10.1.2.3/hook', undefined],
      ['http://192.168.0.10:8080/hook', undefined],
      ['http://127.0.0.1:9/hook', undefined],
      ['http://[::1]:9/hook', undefined],
      ['http://intranet.example/hook', ['10.0.0.8', '192.168.1.4']],
    ]);
    // Addresses are never looked up: only the name was.
    expect(asked).toEqual(['intranet.example']);
    for (const id of ids) expect((await rows(id))[0]?.status_code).toBe(200);
  });

  it('delivers to a 127.0.0.1 receiver through the real delivery thread', async () => {
    world();
    const r = await startReceiver();
    receivers.push(r);
    const id = await hook(r.url);
    await deliverOnce();
    expect(r.requests).toHaveLength(1);
    expect((await rows(id))[0]).toMatchObject({ status_code: 200, response: 'ok' });
  });

  it('connects to the address it resolved and checked, never resolving the name again', async () => {
    // On the API's thread, with node:net watched: a socket for a host name without the pinned lookup
    // would mean a second resolution (and for a real name, a DNS query): the spy refuses it.
    const r = await startReceiver();
    receivers.push(r);
    const { asked, resolve } = fakeResolver({ 'receiver.test': ['127.0.0.1'] });
    const connect = net.connect;
    const seen: { host?: string; lookup?: unknown }[] = [];
    vi.spyOn(net, 'connect').mockImplementation(((opts: net.NetConnectOpts) => {
      const o = opts as net.TcpNetConnectOpts;
      seen.push({ host: o.host, lookup: o.lookup });
      if (net.isIP(o.host ?? '') === 0 && typeof o.lookup !== 'function')
        throw new Error(`would resolve ${o.host} again`);
      return connect(opts);
    }) as typeof net.connect);
    world({ delivery: { thread: 'main', resolve } });
    const id = await hook(`http://receiver.test:${r.port}/hook`);
    await deliverOnce();
    expect(asked).toEqual(['receiver.test']);
    expect(seen.map((s) => s.host)).toEqual(['receiver.test']);
    // The Host header still names the target, as it would without the policy.
    expect(r.requests[0]?.headers.host).toBe(`receiver.test:${r.port}`);
    expect((await rows(id))[0]).toMatchObject({ status_code: 200, response: 'ok' });
  });

  it('connects from the delivery thread to the resolved address too', async (ctx) => {
    // A receiver on 127.0.0.2 (another loopback address) and `localhost` resolved to it: were the thread
    // to resolve `localhost` itself (/etc/hosts, no DNS), it would knock at 127.0.0.1 or ::1 instead.
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('pinned'));
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(0, '127.0.0.2', () => resolve(true));
    });
    if (!listening) return ctx.skip();
    try {
      const port = (server.address() as net.AddressInfo).port;
      const { asked, resolve } = fakeResolver({ localhost: ['127.0.0.2'] });
      world({ delivery: { resolve } });
      const id = await hook(`http://localhost:${port}/hook`);
      await deliverOnce();
      expect(asked).toEqual(['localhost']);
      expect((await rows(id))[0]).toMatchObject({ status_code: 200, response: 'pinned' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('with an injected sender and no resolver, judges host names by name alone and resolves nothing', async () => {
    const { sent, sender } = fakeSender();
    world({ sender });
    const named = await hook('http://hooks.example.com/cvat');
    const meta = await hook('http://metadata.google.internal/computeMetadata/v1/');
    await deliverOnce();
    expect(sent.map((r) => [r.url, r.addresses])).toEqual([['http://hooks.example.com/cvat', undefined]]);
    expect((await rows(named))[0]?.status_code).toBe(200);
    expect((await rows(meta))[0]).toMatchObject({
      status_code: 407,
      response: refusal('metadata.google.internal', '169.254.169.254', NOT_GLOBAL),
    });
  });

  it('resolves nothing for a scheme the sender does not send to (it refuses ftp:// itself)', async () => {
    const { sent, sender } = fakeSender();
    const { asked, resolve } = fakeResolver({ 'files.example': ['169.254.169.254'] });
    world({ sender, delivery: { resolve } });
    await hook('ftp://files.example/hook');
    await deliverOnce();
    expect(asked).toEqual([]);
    expect(sent.map((r) => r.url)).toEqual(['ftp://files.example/hook']);
  });

  it('records a name that does not resolve as requests records a failed lookup: 502, retried', async () => {
    const { sent, sender } = fakeSender();
    const { resolve } = fakeResolver({});
    world({ sender, delivery: { resolve } });
    const id = await hook('http://nowhere.example/hook');
    await deliverOnce();
    expect(sent).toEqual([]);
    expect((await rows(id))[0]).toMatchObject({
      status_code: 502,
      response:
        "HTTPConnectionPool(host='nowhere.example', port=80): Max retries exceeded with url: /hook (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f5e2c3b1d90>: Failed to establish a new connection: [Errno -2] Name or service not known'))",
    });
    expect(h.sim.deliveries().journal().entries.at(-1)?.outcome).toBe('connection-error');
    h.advance('5s');
    await h.idle();
    expect((await rows(id)).map((r) => r.attempt)).toEqual([2, 1]);
  });

  it('accepts a webhook on a metadata address at creation, as CVAT does (it checks only when sending)', async () => {
    world({ sender: fakeSender().sender });
    const res = await h.post(
      '/api/webhooks?org=acme',
      aWebhook().forProject(1).to('http://169.254.169.254/').build(),
      { as: 'alice' },
    );
    expect(res.status).toBe(201);
    expect(res.body.target_url).toBe('http://169.254.169.254/');
  });
});

describe('the cvat-proxy policy', () => {
  it.each([
    ['http://10.1.2.3/hook', '10.1.2.3', '10.1.2.3', PRIVATE],
    ['http://172.16.5.4:8080/hook', '172.16.5.4:8080', '172.16.5.4', PRIVATE],
    ['http://192.168.1.10/hook', '192.168.1.10', '192.168.1.10', PRIVATE],
    ['http://127.0.0.1:9/hook', '127.0.0.1:9', '127.0.0.1', NOT_GLOBAL],
    ['http://127.8.9.10/hook', '127.8.9.10', '127.8.9.10', NOT_GLOBAL],
    ['http://[::1]:9/hook', '[::1]:9', '::1', NOT_GLOBAL],
    ['http://0.0.0.0/hook', '0.0.0.0', '0.0.0.0', NOT_GLOBAL],
    ['http://[fc00::1]/hook', '[fc00::1]', 'fc00::1', PRIVATE],
    ['http://[fd12:3456::1]/hook', '[fd12:3456::1]', 'fd12:3456::1', PRIVATE],
    ['http://169.254.169.254/hook', '169.254.169.254', '169.254.169.254', NOT_GLOBAL],
    ['http://224.0.0.1/hook', '224.0.0.1', '224.0.0.1', NOT_GLOBAL],
  ])('refuses %s as smokescreen does', async (url, host, address, rule) => {
    const { sent, sender } = fakeSender();
    world({ sender, delivery: { egress: { policy: 'cvat-proxy' } } });
    const id = await hook(url);
    await deliverOnce();
    expect(sent).toEqual([]);
    expect((await rows(id))[0]).toMatchObject({ status_code: 407, response: refusal(host, address, rule) });
  });

  it('lets global addresses through, checking only the first address of a name and connecting to it alone', async () => {
    const { sent, sender } = fakeSender();
    const { resolve } = fakeResolver({
      'public.example': ['203.0.113.5', '10.0.0.1'],
      'private-first.example': ['10.0.0.1', '203.0.113.5'],
    });
    world({ sender, delivery: { egress: { policy: 'cvat-proxy' }, resolve } });
    const open = await hook('http://public.example/hook');
    const shut = await hook('http://private-first.example/hook');
    const literal = await hook('http://198.51.100.1/hook');
    const cgnat = await hook('http://100.64.0.1/hook');
    await deliverOnce();
    expect(sent.map((r) => [r.url, r.addresses])).toEqual([
      ['http://public.example/hook', ['203.0.113.5']],
      ['http://198.51.100.1/hook', undefined],
      ['http://100.64.0.1/hook', undefined],
    ]);
    expect((await rows(open))[0]?.status_code).toBe(200);
    expect((await rows(literal))[0]?.status_code).toBe(200);
    expect((await rows(cgnat))[0]?.status_code).toBe(200);
    expect((await rows(shut))[0]?.response).toBe(refusal('private-first.example', '10.0.0.1', PRIVATE));
  });

  it('refuses an HTTPS target’s tunnel: 502 with the ProtocolError text, retried like any 502', async () => {
    const { sent, sender } = fakeSender();
    world({ sender, delivery: { egress: { policy: 'cvat-proxy' } } });
    const id = await hook('https://10.0.0.5/hook');
    await deliverOnce();
    expect(sent).toEqual([]);
    const tunnel =
      "('Connection aborted.', OSError('Tunnel connection failed: 407 Request rejected by proxy'))";
    expect((await rows(id))[0]).toMatchObject({ status_code: 502, response: tunnel });
    expect(h.sim.deliveries().journal().entries.at(-1)).toMatchObject({
      outcome: 'egress-refused',
      statusCode: 502,
    });
    h.advance('5s');
    await h.idle();
    expect((await rows(id)).map((r) => [r.attempt, r.status_code, r.response])).toEqual([
      [2, 502, tunnel],
      [1, 502, tunnel],
    ]);
  });

  it('refuses a real 127.0.0.1 receiver without opening a connection to it, until it is allow-listed', async () => {
    world({ delivery: { egress: { policy: 'cvat-proxy' } } });
    const r = await startReceiver();
    receivers.push(r);
    const id = await hook(r.url);
    await deliverOnce();
    expect(r.connections()).toBe(0);
    expect((await rows(id))[0]).toMatchObject({
      status_code: 407,
      response: refusal(`127.0.0.1:${r.port}`, '127.0.0.1', NOT_GLOBAL),
    });

    const patched = await settings({ egress: { allow: ['127.0.0.1'] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ egress: { policy: 'cvat-proxy', allow: ['127.0.0.1'] } });
    await deliverOnce();
    expect(r.connections()).toBe(1);
    expect(r.requests).toHaveLength(1);
    expect((await rows(id))[0]).toMatchObject({ status_code: 200, response: 'ok' });
  });

  it('opens allow-listed ranges and names, and nothing else', async () => {
    const { sent, sender } = fakeSender();
    const { resolve } = fakeResolver({ 'receiver.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
    world({
      sender,
      delivery: {
        egress: { policy: 'cvat-proxy', allow: ['10.0.0.0/8', 'fd00::/8', 'receiver.test'] },
        resolve,
      },
    });
    const ten = await hook('http://10.200.0.1/hook');
    const ula = await hook('http://[fd00::7]/hook');
    const named = await hook('http://receiver.test:8080/hook');
    const notTen = await hook('http://192.168.1.1/hook');
    const notNamed = await hook('http://other.test/hook');
    await deliverOnce();
    expect(sent.map((r) => r.url)).toEqual([
      'http://10.200.0.1/hook',
      'http://[fd00::7]/hook',
      'http://receiver.test:8080/hook',
    ]);
    for (const id of [ten, ula, named]) expect((await rows(id))[0]?.status_code).toBe(200);
    for (const id of [notTen, notNamed]) expect((await rows(id))[0]?.status_code).toBe(407);
  });
});

describe('ping and redelivery', () => {
  it('ping answers 200 with the refused row; redelivery records another refused row', async () => {
    const { sent, sender } = fakeSender();
    world({ sender });
    const id = await hook('http://169.254.169.254/');
    const ping = await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    expect(ping.status).toBe(200);
    expect(ping.body).toMatchObject({
      event: 'ping',
      status_code: 407,
      redelivery: false,
      response: refusal('169.254.169.254', '169.254.169.254', NOT_GLOBAL),
    });
    const again = await h.post(`/api/webhooks/${id}/deliveries/${ping.body.id}/redelivery`, undefined, {
      as: 'alice',
    });
    expect(again.status).toBe(200);
    await h.idle();
    expect((await rows(id)).map((r) => [r.event, r.redelivery, r.status_code])).toEqual([
      ['ping', true, 407],
      ['ping', false, 407],
    ]);
    expect(sent).toEqual([]);
    expect(
      h.sim
        .deliveries()
        .journal()
        .entries.map((e) => e.outcome),
    ).toEqual(['egress-refused', 'egress-refused']);
  });
});

describe('settings', () => {
  it('are per world, validated, survive a snapshot and return to the options on reset', async () => {
    world({ sender: fakeSender().sender, delivery: { egress: { allow: ['192.0.2.1'] } } });
    const initial = await h.get('/_sim/deliveries/settings');
    expect(initial.body).toEqual({ egress: { policy: 'metadata-only', allow: ['192.0.2.1'] } });

    const changed = await settings({
      egress: { policy: 'cvat-proxy', allow: ['127.0.0.0/8', 'Receiver.Test'] },
    });
    expect(changed.body).toEqual({
      egress: { policy: 'cvat-proxy', allow: ['127.0.0.0/8', 'Receiver.Test'] },
    });
    // Another namespace keeps the defaults.
    expect((await h.get('/_ns/other/_sim/deliveries/settings')).body).toEqual({
      egress: { policy: 'metadata-only', allow: ['192.0.2.1'] },
    });

    for (const bad of [
      { egress: { policy: 'open' } },
      { egress: { allow: ['10.0.0.0/33'] } },
      { egress: { allow: ['not a host'] } },
      { egress: { allow: '127.0.0.1' } },
      { egress: { policy: 'cvat-proxy', extra: true } },
      { egressPolicy: 'cvat-proxy' },
    ]) {
      const res = await settings(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect(
      (
        await h.request('PATCH', '/_sim/deliveries/settings', {
          raw: '{',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(400);
    // Nothing changed by the refused ones.
    expect((await h.get('/_sim/deliveries/settings')).body).toEqual(changed.body);

    const snapshot = (await h.get('/_sim/state')).body;
    expect(snapshot.state.delivery).toEqual(changed.body);
    expect((await h.post('/_sim/reset')).status).toBe(200);
    expect((await h.get('/_sim/deliveries/settings')).body).toEqual(initial.body);
    expect((await h.put('/_sim/state', snapshot)).status).toBe(200);
    expect((await h.get('/_sim/deliveries/settings')).body).toEqual(changed.body);
  });

  it('sends back what was prepared ahead when the policy changes, so it is checked again', async () => {
    world();
    const held = gate();
    const r = await startReceiver({
      behaviour: (_q, n) => (n === 1 ? { status: 200, after: held.opened } : { status: 200 }),
    });
    receivers.push(r);
    const id = await hook(r.url);
    await h.patch('/api/tasks/1', { name: 'a' }, { as: 'alice' });
    await expect.poll(() => r.requests.length).toBe(1);
    await h.patch('/api/tasks/1', { name: 'b' }, { as: 'alice' });
    await h.patch('/api/tasks/1', { name: 'c' }, { as: 'alice' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await settings({ egress: { policy: 'cvat-proxy' } });
    held.open();
    await h.idle();
    // The first was already on the wire; the two behind it met the new policy.
    expect(r.requests).toHaveLength(1);
    expect((await rows(id)).map((row) => row.status_code)).toEqual([407, 407, 200]);
  });

  it('come from SIM_EGRESS_POLICY and SIM_EGRESS_ALLOW in the CLI; a bad value is a usage error', async () => {
    const cli = await startCli({
      SIM_EGRESS_POLICY: 'cvat-proxy',
      SIM_EGRESS_ALLOW: '127.0.0.1, 10.0.0.0/8',
    });
    try {
      const res = await fetch(`${cli.url}/_sim/deliveries/settings`);
      expect(await res.json()).toEqual({
        egress: { policy: 'cvat-proxy', allow: ['127.0.0.1', '10.0.0.0/8'] },
      });
    } finally {
      cli.child.kill('SIGTERM');
      await once(cli.child, 'exit');
    }
    const bad = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', '0'], {
      cwd: appDir,
      env: { ...process.env, SIM_EGRESS_POLICY: 'wide-open' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    bad.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const [code] = await once(bad, 'exit');
    expect(code).toBe(2);
    expect(err).toContain('SIM_EGRESS_POLICY');
  }, 30_000);
});

describe('addresses', () => {
  it('are parsed and printed as Go prints them', () => {
    const show = (s: string) => formatIp(parseIp(s) as NonNullable<ReturnType<typeof parseIp>>);
    expect(show('169.254.169.254')).toBe('169.254.169.254');
    expect(show('::ffff:169.254.169.254')).toBe('169.254.169.254');
    expect(show('[FD00:EC2:0:0:0:0:0:254]')).toBe('fd00:ec2::254');
    expect(show('fe80::1%eth0')).toBe('fe80::1');
    expect(show('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(show('::')).toBe('::');
    expect(parseIp('evil.example')).toBeUndefined();
    expect(parseCidr('10.0.0.0/8')).toBeDefined();
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
    expect(parseCidr('fd00::/129')).toBeUndefined();
    expect(parseCidr('10.0.0.0/+8')).toBeUndefined();
  });
});

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const appDir = fileURLToPath(new URL('..', import.meta.url));

/** Runs the CLI with tsx and resolves once it prints the ready line. */
async function startCli(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', '0'], {
    cwd: appDir,
    env: { ...process.env, SIM_LOG: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return { url, child };
}
