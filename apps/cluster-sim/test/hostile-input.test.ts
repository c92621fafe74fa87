import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startClusterSim } from '../src/index';
import { createHarness, type Harness, POOL } from './support/harness';

/**
 * Hostile and broken input: every answer a 4xx in Google's envelope, bounded, and nothing stored.
 * Limits: Google's front end (10 MiB bodies, `Request payload size exceeds the limit`), protobuf's JSON
 * parser (100 levels), proto3's ranges (int32, int64, Duration).
 */
let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const LIMIT = 10 * 1024 * 1024;

async function send(
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
) {
  const res = await h.sim.app.request(POOL, {
    method: 'PUT',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json', ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}

describe('request body size', () => {
  it('refuses a body past 10 MiB from its Content-Length, with the front end text, and closes the connection', async () => {
    const res = await send('{"nodeVersion":"-"}', { 'content-length': String(LIMIT + 1) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: 'Request payload size exceeds the limit: 10485760 bytes.',
      errors: [{ reason: 'badRequest', domain: 'global' }],
    });
    expect(res.headers.get('connection')).toBe('close');
  });

  it('keeps nothing past the limit: the rest is read and dropped up to 64 MiB, then the stream is cut', async () => {
    let pulled = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        // 200 MiB on offer: 11 read, then dropped (not kept) until 64 MiB in all, then cancelled.
        if (pulled > 200) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await send(stream);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Request payload size exceeds the limit: 10485760 bytes.');
    expect(pulled).toBeGreaterThan(11);
    expect(pulled).toBeLessThanOrEqual(66);
    expect(res.text.length).toBeLessThan(1000);
  });

  it('answers a client that is still sending over a real socket (no broken pipe)', async () => {
    const sim = await startClusterSim({ port: 0 });
    try {
      const answer = await new Promise<string>((resolve) => {
        const req = http.request(
          `${sim.url}/v1beta1/projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1`,
          { method: 'PUT', headers: { authorization: 'Bearer t', 'content-type': 'application/json' } },
          (res) => {
            let text = '';
            res.on('data', (d) => {
              text += d;
            });
            res.on('end', () => resolve(`${res.statusCode} ${text}`));
          },
        );
        req.on('error', (e) => resolve(`error ${e.message}`));
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 30) {
            sent++;
            if (!req.write(chunk)) {
              req.once('drain', pump);
              return;
            }
          }
          req.end();
        };
        pump();
      });
      expect(answer).toMatch(/^400 .*Request payload size exceeds the limit: 10485760 bytes\./);
      expect((await fetch(`${sim.url}/_sim/health`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it('refuses a body longer than the Content-Length it declared when that passes the limit', async () => {
    // A real server's HTTP parser never delivers more than the declared length; in-process it can.
    const res = await send(`{"nodeVersion":"-"}${' '.repeat(LIMIT)}`, { 'content-length': '20' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Request payload size exceeds the limit: 10485760 bytes.');
  });

  it('reads a body just under the limit (and answers its content)', async () => {
    const padding = ' '.repeat(LIMIT - 100);
    const res = await send(`{"nodeVersion":"-"}${padding}`);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
  });
});

describe('bad JSON and hostile values', () => {
  it('answers JSON nested past 100 levels as protobuf does, at any depth, without a stack overflow', async () => {
    for (const depth of [101, 5_000, 200_000]) {
      const res = await send(`${'{"labels":'.repeat(depth)}{}${'}'.repeat(depth)}`);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        "Invalid JSON payload received. Message too deep. Max recursion depth reached for key 'labels'",
      );
    }
    // 100 levels still parse (and fail for what they say: labels is no map of maps).
    const ok = await send(`${'{"labels":'.repeat(99)}{}${'}'.repeat(99)}`);
    expect(ok.status).toBe(400);
    expect(ok.body.error.message).not.toMatch(/too deep/);
  });

  it('treats __proto__, constructor and toString as the unknown names they are', async () => {
    const res = await send('{"__proto__":{"nodeVersion":"-"},"constructor":{},"toString":1}');
    expect(res.status).toBe(400);
    expect(
      res.body.error.details[0].fieldViolations.map((v: { description: string }) => v.description),
    ).toEqual([
      'Invalid JSON payload received. Unknown name "__proto__": Cannot find field.',
      'Invalid JSON payload received. Unknown name "constructor": Cannot find field.',
      'Invalid JSON payload received. Unknown name "toString": Cannot find field.',
    ]);
    expect(({} as Record<string, unknown>).nodeVersion).toBeUndefined();
  });

  it('refuses a map key named __proto__ rather than dropping it', async () => {
    const res = await send('{"labels":{"labels":{"__proto__":"x","team":"a"}}}');
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.message).toBe(`Invalid map key at 'labels.labels', "__proto__"`);
  });

  it('refuses numbers out of their proto3 range: int32, int64, Duration', async () => {
    const cases: [string, string][] = [
      [
        '{"kubeletConfig":{"podPidsLimit":"9223372036854775808"}}',
        `Invalid value at 'kubelet_config.pod_pids_limit' (TYPE_INT64), "9223372036854775808"`,
      ],
      [
        '{"kubeletConfig":{"imageGcHighThresholdPercent":2147483648}}',
        `Invalid value at 'kubelet_config.image_gc_high_threshold_percent' (TYPE_INT32), 2147483648`,
      ],
      [
        '{"maxRunDuration":"99999999999999999999s"}',
        `Invalid value at 'max_run_duration' (type.googleapis.com/google.protobuf.Duration), "99999999999999999999s"`,
      ],
      [
        '{"maxRunDuration":"315576000001s"}',
        `Invalid value at 'max_run_duration' (type.googleapis.com/google.protobuf.Duration), "315576000001s"`,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await send(body);
      expect(res.status, body).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    expect((await send('{"kubeletConfig":{"podPidsLimit":"9223372036854775807"}}')).status).toBe(200);
  });

  it('never echoes an unbounded input: long values and names are cut, violations are capped', async () => {
    const huge = 'x'.repeat(5 * 1024 * 1024);
    const wrongType = await send(JSON.stringify({ nodeVersion: { value: huge } }));
    expect(wrongType.status).toBe(400);
    expect(wrongType.text.length).toBeLessThan(2_000);
    const unknownName = await send(JSON.stringify({ [huge]: 1 }));
    expect(unknownName.status).toBe(400);
    expect(unknownName.text.length).toBeLessThan(2_000);
    const many = await send(JSON.stringify({ tags: { tags: Array.from({ length: 100_000 }, () => 1) } }));
    expect(many.status).toBe(400);
    expect(many.body.error.details[0].fieldViolations).toHaveLength(100);
    expect(many.body.error.message.length).toBeLessThanOrEqual(4097);
    const version = await send(JSON.stringify({ nodeVersion: huge }));
    expect(version.status).toBe(400);
    expect(version.body.error.message.length).toBeLessThanOrEqual(4097);
  });

  it('answers any content type or charset with the JSON parse error, not a 500', async () => {
    for (const [type, body] of [
      ['application/json; charset=utf-16', '\ufeff{}'],
      ['application/x-www-form-urlencoded', 'nodeVersion=-'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
      ],
      ['text/plain', 'hello'],
    ] as const) {
      const res = await send(body, { 'content-type': type });
      expect(res.status, type).toBe(400);
      expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    }
    const bytes = await send(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]));
    expect(bytes.status).toBe(400);
  });
});

describe('control plane input', () => {
  it('refuses deep or oversized JSON with a 400 in its own envelope, and stays up', async () => {
    const deep = await h.request('POST', '/_sim/seed', {
      body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      token: null,
    });
    expect(deep.status).toBe(400);
    expect(deep.body.error.message).toMatch(/nested deeper than 200 levels/);
    const settings = await h.request('PUT', '/_sim/settings', {
      body: `{"auth":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_001)}`,
      token: null,
    });
    expect(settings.status).toBe(400);
    const big = await h.sim.app.request('/_sim/seed', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) },
      body: '{}',
    });
    expect(big.status).toBe(400);
    expect(((await big.json()) as { error: { message: string } }).error.message).toMatch(
      /larger than 33554432 bytes/,
    );
    expect((await h.request('GET', '/_sim/health', { token: null })).status).toBe(200);
  });

  it('refuses a YAML alias bomb and a scenario nested thousands deep with a 400, not a crash', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [name, prev] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['f', 'e'],
    ])
      bomb.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    bomb.push('seed: *f');
    const scenario = async (text: string) =>
      h.sim.app.request('/_sim/scenarios', {
        method: 'POST',
        headers: { 'content-type': 'application/yaml' },
        body: text,
      });
    const bombed = await scenario(bomb.join('\n'));
    expect(bombed.status).toBe(400);
    const deep = await scenario(`seed: ${'['.repeat(2_000)}${']'.repeat(2_000)}`);
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as { error: { message: string } }).error.message).toMatch(
      /nested 2000 levels deep/,
    );
    const indented = await scenario(
      Array.from({ length: 400 }, (_, i) => `${' '.repeat(2 * i)}k${i}:`).join('\n'),
    );
    expect(indented.status).toBe(400);
  });

  it('refuses a clock advance past the last time a Date can hold, leaving the clock as it was', async () => {
    const before = (await h.request('GET', '/_sim/clock', { token: null })).body.now;
    for (const by of [1e20, '100000000000000000000000d']) {
      const res = await h.request('POST', '/_sim/clock/advance', { body: { by }, token: null });
      expect(res.status).toBe(400);
    }
    expect((await h.request('GET', '/_sim/clock', { token: null })).body.now).toBe(before);
  });

  it("answers an unknown control route in the control plane's envelope, not Google's", async () => {
    for (const path of ['/_sim/nope', '/_ns/x/_sim/operations//fail', '/_sim']) {
      const res = await h.request('POST', path, { token: null });
      expect(res.status, path).toBe(404);
      expect(res.body.error).toMatchObject({ status: 404, reason: expect.any(String) });
    }
  });
});

describe('intended 5xx', () => {
  it('says on every answer a fault rule makes that it was one (X-Sim-Reason)', async () => {
    await h.addFault({
      id: 'down',
      match: { operation: 'nodePools.get' },
      effect: { error: { status: 'UNAVAILABLE' } },
    });
    const res = await h.get(POOL);
    expect(res.status).toBe(503);
    expect(res.headers.get('x-sim-reason')).toBe('fault:down');
    await h.addFault({
      id: 'raw',
      match: { operation: 'clusters.get' },
      effect: { http: { status: 502, body: 'bad gateway' } },
    });
    const raw = await h.get('/v1beta1/projects/p1/locations/us-central1-a/clusters/c1');
    expect(raw.status).toBe(502);
    expect(raw.headers.get('x-sim-reason')).toBe('fault:raw');
  });
});

describe('hostile credentials', () => {
  it('takes a token named like an Object member as any other token', async () => {
    for (const token of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
      const res = await h.get(POOL, { token });
      expect(res.status, token).toBe(200);
    }
    await h.settings({ auth: { denyUnknownTokens: true } });
    const denied = await h.get(POOL, { token: 'toString' });
    expect(denied.status).toBe(401);
    expect(denied.body.error.details[0].reason).toBe('ACCESS_TOKEN_TYPE_UNSUPPORTED');
  });
});
