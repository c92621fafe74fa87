import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, type TestContext } from 'vitest';

/**
 * Large bodies under a small heap (hardening II and III): each simulator runs as a CLI with a 256 MB
 * heap, as in a small container, and takes 12 distinct 40 MB bodies, six of each of two shapes: a long string
 * (a simulator that kept a body after answering it, in a cache, the journal or an error message, runs out
 * of heap within a few) and an array of small objects (JSON.parse of millions of objects took
 * annotation-sim from 58 to 941 MB and killed it: issue 33). Then the worst each JSON budget lets through
 * (a long string with a character outside Latin-1, so two bytes a character, and small objects, just
 * under the budget's bytes), the control plane's (a seed, a scenario and a snapshot of 30 MB), and for
 * annotation-sim an event payload of 5 million numbers (JSON inside a string), a 100 MB binary file in
 * a multipart upload, which keeps the 100 MiB limit and is never decoded, and the two multipart shapes
 * that killed or blocked it (issue 33 review): 94 MB of 1.8 million tiny parts (refused by the count of
 * parts), and a data request of 99,999 `client_files[i]` parts with 255-character names (read,
 * in linear work). Every JSON body gets a 4xx (the file a 200), and the simulator is healthy after the last.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BODIES = 12;
const MB = 1024 * 1024;
const BODY_BYTES = 40 * MB;

/**
 * Starts an app's CLI from its sources under a 256 MB heap; resolves with its URL. It is killed when the
 * test that started it ends (the two tests run at the same time, each with its own simulator).
 */
function startUnderSmallHeap(app: string, ctx: TestContext): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=256',
      '--conditions=@sims/source',
      '--import',
      'tsx',
      'src/main.ts',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
    ],
    { cwd: join(ROOT, 'apps', app), env: { ...process.env, SIM_PORT: undefined, SIM_HOST: undefined } },
  );
  ctx.onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /ready at (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('exit', (code) => reject(new Error(`${app} exited with ${code}: ${out}${err.slice(-2_000)}`)));
  });
}

/** 16 random hex digits: what makes each body distinct from every other. */
const tag = () => randomBytes(8).toString('hex');

/** Random base64 (40 MB), made once: every long string is a slice of it after a tag of its own. */
const BASE64 = Buffer.from(randomBytes(30 * MB).toString('base64'), 'latin1');

/**
 * A JSON document `${prefix}"<tag><random base64>"}` of `size` bytes (up to 40 MB): a different one
 * every time, from its tag on; `twoByte` ends the string with `€`, so the decoded text and the parsed
 * string take two bytes a character.
 */
function longStringBody(prefix: string, size: number, twoByte = false): Buffer {
  const head = Buffer.from(`${prefix}"${tag()}`);
  const end = Buffer.from(twoByte ? '€"}' : '"}');
  return Buffer.concat([head, BASE64.subarray(0, size - head.length - end.length), end]);
}

/** 128 Ki objects of eight bytes, `{"q":7},`, their keys and digits random; made once. */
const SMALL_OBJECTS = (() => {
  const item = 8; // {"a":1},
  const items = 128 * 1024;
  const block = Buffer.alloc(items * item);
  const random = randomBytes(items * 2);
  block.fill('{"a":1},', 'latin1');
  for (let i = 0; i < items; i++) {
    block[i * item + 2] = 0x61 + ((random[2 * i] as number) % 26);
    block[i * item + 5] = 0x30 + ((random[2 * i + 1] as number) % 10);
  }
  return block;
})();

/**
 * `[{"<tag>":1},{"a":1},{"q":7},…]` of about `size` bytes: millions of small objects (eight bytes each,
 * as in issue 33), a different document every time from its first object on.
 */
function smallObjectsBody(size: number): Buffer {
  const head = Buffer.from(`[{"${tag()}":1},`);
  const count = Math.floor((size - head.length) / 8);
  const body = Buffer.allocUnsafe(head.length + count * 8);
  head.copy(body);
  body.fill(SMALL_OBJECTS, head.length);
  body[body.length - 1] = 0x5d; // ] over the last comma
  return body;
}

/**
 * The most a JSON budget of `values` lets through in `size` bytes: `values` less a few of the costliest
 * kind (objects with a member name of their own: a hidden class each), then a long string with a
 * character outside Latin-1 (two bytes a character, in the text and in the string parsed out of it).
 */
function worstWithinBody(size: number, values: number): Buffer {
  const objects = Math.floor((values - 10) / 3);
  const items = Array.from({ length: objects }, (_, i) => `{"k${i.toString(36)}":1}`).join(',');
  const head = `{"a":[${items}],"s":`;
  return longStringBody(head, size - 8, true);
}

/**
 * One request; its status (-1 when the simulator cut the connection before reading it all, -2 when
 * nothing listens any more: the simulator died).
 */
function send(url: string, method: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent: false, headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    // The simulator may answer and close before it has read everything: that is its answer.
    req.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'EPIPE' || e.code === 'ECONNRESET'
        ? resolve(-1)
        : e.code === 'ECONNREFUSED'
          ? resolve(-2)
          : reject(e),
    );
    req.end(body);
  });
}

async function health(url: string): Promise<number> {
  const res = await fetch(`${url}/_sim/health`);
  await res.arrayBuffer();
  return res.status;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** Statuses of `BODIES` distinct 40 MB bodies, of each shape in turn, sent by `post`. */
async function bothShapes(post: (body: Buffer) => Promise<number>, prefix: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < BODIES; i++)
    statuses.push(await post(i % 2 ? smallObjectsBody(BODY_BYTES) : longStringBody(prefix, BODY_BYTES)));
  return statuses;
}

const is4xx = (s: number) => s >= 400 && s < 500;

/** Bodies the control plane reads whole (its limit is 32 MiB) that its budgets refuse or parse. */
async function controlBodies(url: string): Promise<number[]> {
  return [
    await send(`${url}/_sim/seed`, 'POST', JSON_TYPE, smallObjectsBody(30 * MB)),
    // Scenarios go to the YAML parser (~240 bytes a node): a budget of its own.
    await send(`${url}/_sim/scenarios`, 'POST', JSON_TYPE, smallObjectsBody(30 * MB)),
    // Parsed (a long string is one value), then refused as a snapshot.
    await send(`${url}/_sim/state`, 'PUT', JSON_TYPE, longStringBody('{"state":', 30 * MB, true)),
    // The most its JSON budget lets through.
    await send(`${url}/_sim/state`, 'PUT', JSON_TYPE, worstWithinBody(32 * MB, 1_000_000)),
  ];
}

// Concurrent: each test's work is mostly its own simulator's (a process of its own), so the two overlap on
// two cores instead of queueing (decision 0022).
describe.concurrent('distinct 40 MB bodies of both shapes under a 256 MB heap', () => {
  it('cluster-sim refuses each (past its 10 MiB limit or its JSON budget) and lives', {
    timeout: 120_000,
  }, async (ctx) => {
    const { url, child } = await startUnderSmallHeap('cluster-sim', ctx);
    const headers = { ...JSON_TYPE, authorization: 'Bearer t' };
    let n = 0;
    const put = (body: Buffer) =>
      send(
        `${url}/v1beta1/projects/p1/locations/us-central1-a/clusters/c1/nodePools/np${n++}`,
        'PUT',
        headers,
        body,
      );
    const big = await bothShapes(put, '{"nodeVersion":');
    // Under the 10 MiB limit: a long string is parsed (and refused: no such cluster), small objects are
    // past the count of values.
    const underLimit = [
      await put(longStringBody('{"nodeVersion":', 10 * MB - 1024, true)),
      await put(smallObjectsBody(10 * MB - 1024)),
      await put(worstWithinBody(10 * MB, 1_000_000)),
    ];
    const control = await controlBodies(url);
    expect(big.filter((s) => !is4xx(s) && s !== -1)).toEqual([]);
    expect(underLimit.every(is4xx)).toBe(true);
    expect(control).toEqual([400, 400, 400, 400]);
    expect(child.exitCode).toBeNull();
    expect(await health(url)).toBe(200);
  });

  it('annotation-sim refuses each (past its JSON budget, or a name past 256 characters), takes a 100 MB file, refuses 1.8 million parts, reads 99,999 files and lives', {
    timeout: 120_000,
  }, async (ctx) => {
    const { url, child } = await startUnderSmallHeap('annotation-sim', ctx);
    const auth = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };
    const post = (body: Buffer) => send(`${url}/api/projects`, 'POST', { ...JSON_TYPE, ...auth }, body);
    const big = await bothShapes(post, '{"name":');
    const underBudget = [
      await post(longStringBody('{"name":', 16 * MB - 1024, true)),
      await post(smallObjectsBody(16 * MB - 1024)),
      await post(worstWithinBody(16 * MB, 1_000_000)),
    ];
    const payload = `[${'1,'.repeat(5_000_000)}1]`;
    const events = await send(
      `${url}/api/events`,
      'POST',
      { ...JSON_TYPE, ...auth },
      Buffer.from(
        JSON.stringify({
          events: [{ scope: 'send:exception', timestamp: '2026-01-01T00:00:00Z', payload }],
          timestamp: '2026-01-01T00:00:00Z',
        }),
      ),
    );
    // Payloads that are one long string, plain or full of escapes: read and written a character at a
    // time (~32 bytes each), an 8 MB one aborted a 256 MB heap. Both are kept.
    const eventWith = (text: string) =>
      send(
        `${url}/api/events`,
        'POST',
        { ...JSON_TYPE, ...auth },
        Buffer.from(
          JSON.stringify({
            events: [{ scope: 'send:exception', timestamp: '2026-01-01T00:00:00Z', payload: text }],
            timestamp: '2026-01-01T00:00:00Z',
          }),
        ),
      );
    const longPayloads = [
      await eventWith(JSON.stringify(randomBytes(6 * MB).toString('base64'))),
      await eventWith(JSON.stringify('\n"\\é\ud800'.repeat(MB / 2))),
    ];
    const control = await controlBodies(url);
    const upload = await uploadFile(url, auth, 100 * MB - 4096);
    const parts = await manyParts(url, auth);
    expect(big).toEqual(Array(BODIES).fill(400));
    expect(underBudget).toEqual([400, 400, 400]);
    expect(events).toBe(400);
    expect(longPayloads).toEqual([201, 201]);
    expect(control).toEqual([400, 400, 400, 400]);
    expect(upload).toBe(200);
    expect(parts).toEqual({ tiny: 400, clientFiles: 202 });
    expect(child.exitCode).toBeNull();
    expect(await health(url)).toBe(200);
  });
});

/** A new task's data URL. */
async function newTaskData(url: string, auth: Record<string, string>): Promise<string> {
  const task = await fetch(`${url}/api/tasks`, {
    method: 'POST',
    headers: { ...auth, ...JSON_TYPE },
    body: JSON.stringify({ name: 't', labels: [{ name: 'car' }] }),
  });
  const { id } = (await task.json()) as { id: number };
  return `${url}/api/tasks/${id}/data/`;
}

/** `count` copies of one empty part with header `head`, after `before` and then the closing delimiter. */
function partsBody(count: number, head: string, before = ''): Buffer {
  const part = Buffer.from(`--B\r\n${head}\r\n\r\n\r\n`);
  const parts = Buffer.alloc(part.length * count);
  parts.fill(part);
  return Buffer.concat([Buffer.from(before), parts, Buffer.from('--B--\r\n')]);
}

/**
 * The multipart shapes of the issue 33 review: an `Upload-Multiple` of 94 MB of 52-byte parts (1.8
 * million: the second such body killed a 256 MB heap; refused now before any part is built), and a
 * one-request data upload of 99,999 `client_files[i]` parts with names of 255 characters (a copy of the
 * list per part made 20,000 of them minutes of work).
 */
async function manyParts(url: string, auth: Record<string, string>) {
  const type = { 'content-type': 'multipart/form-data; boundary=B' };
  const data = await newTaskData(url, auth);
  await send(data, 'POST', { ...auth, 'upload-start': '' }, Buffer.alloc(0));
  const tinyBody = partsBody(Math.floor((94 * MB) / 52), 'content-disposition:name="a";filename="b"');
  const tiny = await send(data, 'POST', { ...auth, 'upload-multiple': '', ...type }, tinyBody);
  const files = partsBody(
    99_999,
    `content-disposition:name="client_files[0]";filename="${'f'.repeat(251)}.jpg"`,
    '--B\r\ncontent-disposition: form-data; name="image_quality"\r\n\r\n70\r\n',
  );
  const clientFiles = await send(await newTaskData(url, auth), 'POST', { ...auth, ...type }, files);
  return { tiny, clientFiles };
}

/** A new task's `Upload-Multiple` of one file of `size` random bytes (not UTF-8); the answer's status. */
async function uploadFile(url: string, auth: Record<string, string>, size: number): Promise<number> {
  const data = await newTaskData(url, auth);
  await send(data, 'POST', { ...auth, 'upload-start': '' }, Buffer.alloc(0));
  const boundary = 'heapBoundary7MA4YWxkTrZu0gW';
  const form = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="client_files[0]"; filename="a.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    randomBytes(size),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const type = `multipart/form-data; boundary=${boundary}`;
  return send(data, 'POST', { ...auth, 'upload-multiple': '', 'content-type': type }, form);
}
