import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * Large bodies under a small heap (hardening II): each simulator runs as a CLI with a 256 MB heap, as in
 * a small container, and takes 20 distinct 40 MB bodies. A simulator that kept a body after answering
 * it (in a cache, the journal, an error message) runs out of heap within a few of them; this one must
 * answer every request and still be healthy after the last.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BODIES = 20;
const BODY_BYTES = 40 * 1024 * 1024;

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
});

/** Starts an app's CLI from its sources under a 256 MB heap; resolves with its URL. */
function startUnderSmallHeap(app: string): Promise<{ url: string; child: ChildProcess }> {
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
  children.add(child);
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

/** One request with a body of `size` distinct random bytes (a JSON document around them); its status. */
function sendBig(
  url: string,
  method: string,
  headers: Record<string, string>,
  prefix: string,
): Promise<number> {
  // base64 of random bytes: a different body every time, so nothing can be answered from a cache.
  const filler = randomBytes(Math.floor((BODY_BYTES * 3) / 4)).toString('base64');
  const body = Buffer.from(`${prefix}${JSON.stringify(filler)}}`);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent: false,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    // The simulator may answer and close before it has read everything: that is its answer.
    req.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'EPIPE' || e.code === 'ECONNRESET' ? resolve(-1) : reject(e),
    );
    req.end(body);
  });
}

async function health(url: string): Promise<number> {
  const res = await fetch(`${url}/_sim/health`);
  await res.arrayBuffer();
  return res.status;
}

describe('20 distinct 40 MB bodies under a 256 MB heap', () => {
  it('cluster-sim refuses each (past its 10 MiB limit) and lives', { timeout: 180_000 }, async () => {
    const { url, child } = await startUnderSmallHeap('cluster-sim');
    const statuses: number[] = [];
    for (let i = 0; i < BODIES; i++) {
      statuses.push(
        await sendBig(
          `${url}/v1beta1/projects/p1/locations/us-central1-a/clusters/c1/nodePools/np${i}`,
          'PUT',
          { authorization: 'Bearer t' },
          '{"nodeVersion":',
        ),
      );
    }
    expect(statuses.filter((s) => s !== 400 && s !== -1)).toEqual([]);
    expect(child.exitCode).toBeNull();
    expect(await health(url)).toBe(200);
  });

  it('annotation-sim reads, refuses each (a name past 256 characters) and lives', {
    timeout: 180_000,
  }, async () => {
    const { url, child } = await startUnderSmallHeap('annotation-sim');
    const basic = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
    const statuses: number[] = [];
    for (let i = 0; i < BODIES; i++) {
      statuses.push(await sendBig(`${url}/api/projects`, 'POST', { authorization: basic }, '{"name":'));
    }
    expect(statuses).toEqual(Array(BODIES).fill(400));
    expect(child.exitCode).toBeNull();
    expect(await health(url)).toBe(200);
  });
});
