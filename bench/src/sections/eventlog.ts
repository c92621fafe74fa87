import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json, request } from '../lib/http';
import { lineMatching, rssMb, start, stop } from '../lib/proc';
import { BENCH_DIR, launch, type Running } from '../lib/targets';

const ADMIN = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };

interface Download {
  rows: number;
  bytes: number;
  seconds: number;
  head: string;
  peakRssMb: number;
}

/** Streams a CSV download, counting rows and sampling `pid`'s RSS every 10 ms meanwhile. */
function download(url: string, headers: Record<string, string>, pid: number): Promise<Download> {
  return new Promise((resolve, reject) => {
    let peak = rssMb(pid);
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 10);
    const t0 = performance.now();
    const req = http.get(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        clearInterval(sampler);
        reject(new Error(`download ${res.statusCode}`));
        res.resume();
        return;
      }
      let newlines = 0;
      let bytes = 0;
      let head = '';
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        if (head.length < 4096) head += d.toString('utf8');
        let i = d.indexOf(10);
        while (i !== -1) {
          newlines++;
          i = d.indexOf(10, i + 1);
        }
      });
      res.on('end', () => {
        clearInterval(sampler);
        peak = Math.max(peak, rssMb(pid));
        resolve({
          rows: newlines - 1,
          bytes,
          seconds: (performance.now() - t0) / 1000,
          head,
          peakRssMb: peak,
        });
      });
    });
    req.on('error', (e) => {
      clearInterval(sampler);
      reject(e);
    });
  });
}

/**
 * Figure 6: `count` events stored (the control plane's bulk path, 10,000 per request), then exported
 * (`POST /api/events/export`, finished at once through `/_sim/events/exports/complete`) and downloaded
 * as CSV; against a bare loop writing the same CSV to a socket. Memory growth is the simulator's RSS
 * peak during the download over its RSS before the export.
 */
export async function eventLog(opts: { count: number; log: (s: string) => void }) {
  let sim: Running | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'sims-bench-'));
  try {
    sim = await launch('annotation-sim');
    const pid = sim.child.pid as number;
    await new Promise((r) => setTimeout(r, 500));
    const rssIdle = rssMb(pid);
    // The store keeps the newest 100,000 rows unless told otherwise: this figure measures `count`.
    await json(`${sim.url}/_sim/events/settings`, { method: 'PATCH', body: { maxEvents: opts.count } });
    const batch = 10_000;
    const t0 = performance.now();
    for (let done = 0; done < opts.count; done += batch) {
      const n = Math.min(batch, opts.count - done);
      const events = Array.from({ length: n }, (_, i) => ({
        scope: 'click:element',
        source: 'client',
        obj_name: 'button',
        obj_val: `v${done + i}`,
        count: 1,
        duration: 12,
        project_id: 1,
        task_id: 1 + ((done + i) % 7),
        job_id: 1 + ((done + i) % 29),
        user_id: 1,
        user_name: 'admin',
        user_email: 'admin@localhost',
        payload: '{"x": 1}',
      }));
      await json(`${sim.url}/_sim/events/records`, { method: 'POST', body: { events }, expect: 201 });
    }
    const storeSeconds = (performance.now() - t0) / 1000;
    const info = await json<{ stored: number }>(`${sim.url}/_sim/events`);
    if (info.stored < opts.count) throw new Error(`stored ${info.stored} of ${opts.count}`);
    await new Promise((r) => setTimeout(r, 300));
    const rssStored = rssMb(pid);
    opts.log(
      `  stored ${info.stored} events in ${storeSeconds.toFixed(1)} s, RSS ${rssStored.toFixed(0)} MB`,
    );

    const exp = await json<{ rq_id: string }>(`${sim.url}/api/events/export`, {
      method: 'POST',
      headers: ADMIN,
      body: {},
      expect: 202,
    });
    await json(`${sim.url}/_sim/events/exports/complete`, { method: 'POST', body: { rq_id: exp.rq_id } });
    const rssBefore = rssMb(pid);
    const simDl = await download(
      `${sim.url}/api/events/download?rq_id=${encodeURIComponent(exp.rq_id)}`,
      ADMIN,
      pid,
    );
    if (simDl.rows < opts.count) throw new Error(`downloaded ${simDl.rows} rows of ${opts.count}`);
    opts.log(
      `  export: ${simDl.rows} rows, ${(simDl.bytes / 1e6).toFixed(0)} MB in ${simDl.seconds.toFixed(2)} s, RSS peak ${simDl.peakRssMb.toFixed(0)} MB`,
    );

    const lines = simDl.head.split(/\r?\n/);
    const headerPath = join(dir, 'csv-head.txt');
    writeFileSync(headerPath, `${lines[0]}\n${lines[1]}`);
    const bare = start(process.execPath, [
      join(BENCH_DIR, 'src/servers/csv-bare.mjs'),
      headerPath,
      String(simDl.rows),
    ]);
    const [, port] = await lineMatching(bare, /^ready (\d+)/, 10_000);
    const bareDl = await download(`http://127.0.0.1:${port}/`, {}, bare.pid as number);
    await stop(bare);
    opts.log(`  bare loop: ${bareDl.rows} rows in ${bareDl.seconds.toFixed(2)} s`);
    const check = await request(`${sim.url}/_sim/health`);
    return {
      events: info.stored,
      storeSeconds,
      storePerSecond: info.stored / storeSeconds,
      rssIdleMb: rssIdle,
      rssStoredMb: rssStored,
      rssPerMillionMb: ((rssStored - rssIdle) * 1e6) / info.stored,
      simulator: {
        rows: simDl.rows,
        bytes: simDl.bytes,
        seconds: simDl.seconds,
        rowsPerSecond: simDl.rows / simDl.seconds,
      },
      exportGrowthMb: simDl.peakRssMb - rssBefore,
      bare: {
        rows: bareDl.rows,
        bytes: bareDl.bytes,
        seconds: bareDl.seconds,
        rowsPerSecond: bareDl.rows / bareDl.seconds,
      },
      healthyAfter: check.status === 200,
    };
  } finally {
    if (sim) await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
