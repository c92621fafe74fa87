// Webhook receiver in its own process: checks every X-Signature-256, notes the receipt time of each
// delivery by the sequence number in the body, and reports to the parent over IPC (with the first
// request's body and raw headers, which the bare loop replays).
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const secret = process.argv[2] ?? 'bench-secret';
const now = () => performance.timeOrigin + performance.now();
let state = fresh();
function fresh() {
  return {
    received: 0,
    badSignature: 0,
    duplicates: 0,
    unparsed: 0,
    receipts: new Map(),
    sample: null,
    sampleHeaders: null,
    first: 0,
    last: 0,
  };
}
function seqOf(body) {
  const m = /"name": ?"bench-(\d+)"/.exec(body);
  return m ? Number(m[1]) : -1;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (d) => chunks.push(d));
  req.on('end', () => {
    const t = now();
    const raw = Buffer.concat(chunks);
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
    const got = Buffer.from(String(req.headers['x-signature-256'] ?? ''));
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) state.badSignature++;
    const text = raw.toString('utf8');
    const seq = seqOf(text);
    state.received++;
    if (state.first === 0) state.first = t;
    state.last = t;
    if (seq < 0) state.unparsed++;
    else if (state.receipts.has(seq)) state.duplicates++;
    else state.receipts.set(seq, t);
    if (state.sample === null) {
      state.sample = text;
      state.sampleHeaders = req.rawHeaders;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
    res.end('ok');
  });
});
server.keepAliveTimeout = 5_000;
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: server.address().port });
});
process.on('message', (msg) => {
  if (msg.type === 'reset') {
    state = fresh();
    process.send?.({ type: 'reset' });
  } else if (msg.type === 'count') {
    // Cheap progress polling: a full report carries every receipt (10,000 pairs), which the parent asks
    // for once, at the end, so that polling does not take CPU from the sender being measured.
    process.send?.({ type: 'count', received: state.received });
  } else if (msg.type === 'report') {
    process.send?.({
      type: 'report',
      received: state.received,
      badSignature: state.badSignature,
      duplicates: state.duplicates,
      unparsed: state.unparsed,
      receipts: [...state.receipts.entries()],
      sample: state.sample,
      sampleHeaders: state.sampleHeaders,
      first: state.first,
      last: state.last,
    });
  }
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
