// Baseline for the webhook fan-out: a bare loop that POSTs the same signed bodies with the same
// concurrency and the same connection handling as the simulator (a new connection per delivery, like
// requests.post). Prints one JSON line: {starts: [[seq, t]...], errors}.
import { createHmac } from 'node:crypto';
import http from 'node:http';

const [url, secret, countText, concurrencyText, templatePath] = process.argv.slice(2);
const { readFileSync } = await import('node:fs');
const template = readFileSync(templatePath, 'utf8');
const count = Number(countText);
const concurrency = Number(concurrencyText);
const target = new URL(url);
if (target.hostname !== '127.0.0.1') throw new Error('127.0.0.1 only');
const now = () => performance.timeOrigin + performance.now();
const starts = [];
let errors = 0;
let next = 0;

function post(seq) {
  const body = Buffer.from(template.replace(/"name": ?"bench-\d+"/, `"name": "bench-${seq}"`));
  const headers = {
    'content-type': 'application/json',
    'content-length': body.length,
    'x-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    'user-agent': 'bench-bare-loop',
  };
  return new Promise((resolve) => {
    const req = http.request(target, { method: 'POST', headers, agent: false }, (res) => {
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
async function worker() {
  while (next < count) {
    const seq = next++;
    starts.push([seq, now()]);
    await post(seq);
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
process.stdout.write(`${JSON.stringify({ starts, errors })}\n`);
