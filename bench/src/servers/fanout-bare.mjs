// Baseline for the webhook fan-out: a bare loop that POSTs the same signed bodies with the same headers,
// the same concurrency and the same connection handling as the simulator: a new connection per delivery,
// `Connection: keep-alive` sent (as python-requests sends it) and the connection closed by the sender once
// the answer is read (as requests.post does). Forked with IPC: it warms up (unmeasured POSTs named
// `warm-up-<i>`), says {type: 'warm'}, waits for {type: 'go'} (the parent resets the receiver in between)
// and answers {type: 'done', starts: [[seq, t]...], errors}.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [url, secret, countText, concurrencyText, templatePath, headersPath, warmText] = process.argv.slice(2);
const template = readFileSync(templatePath, 'utf8');
/** The simulator's request headers as received (name, value, name, value...), in its order. */
const sampleHeaders = headersPath ? JSON.parse(readFileSync(headersPath, 'utf8')) : [];
const count = Number(countText);
const concurrency = Number(concurrencyText);
const warm = Number(warmText ?? 0);
const target = new URL(url);
if (target.hostname !== '127.0.0.1') throw new Error('127.0.0.1 only');
const now = () => performance.timeOrigin + performance.now();
// A socket per request, never reused, destroyed once its answer ends (the simulator's sender does the same).
const agent = new http.Agent({ keepAlive: false });
let errors = 0;

/**
 * The simulator's headers, in its order (Host first, as http.client writes it, and kept there: node:http
 * adds no Host of its own when the request has one), with this body's signature and length.
 */
function headersFor(body) {
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const out = [];
  for (let i = 0; i < sampleHeaders.length; i += 2) {
    const name = sampleHeaders[i];
    const lower = name.toLowerCase();
    const value =
      lower === 'x-signature-256'
        ? signature
        : lower === 'content-length'
          ? String(body.length)
          : sampleHeaders[i + 1];
    out.push([name, value]);
  }
  if (!out.some(([n]) => n.toLowerCase() === 'x-signature-256')) out.push(['X-Signature-256', signature]);
  if (!out.some(([n]) => n.toLowerCase() === 'content-length'))
    out.push(['Content-Length', String(body.length)]);
  return Object.fromEntries(out);
}

function post(name) {
  const body = Buffer.from(template.replace(/"name": ?"bench-\d+"/, `"name": "${name}"`));
  return new Promise((resolve) => {
    const req = http.request(target, { method: 'POST', headers: headersFor(body), agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end(body);
  });
}

async function loop(n, name, starts) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const seq = next++;
        starts?.push([seq, now()]);
        await post(name(seq));
      }
    }),
  );
}

await loop(warm, (i) => `warm-up-${i}`);
errors = 0;
const go = new Promise((resolve) => process.once('message', resolve));
process.send({ type: 'warm', warm });
await go;
const starts = [];
await loop(count, (seq) => `bench-${seq}`, starts);
process.send({ type: 'done', starts, errors }, () => process.disconnect());
