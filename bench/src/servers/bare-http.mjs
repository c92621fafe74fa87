// Baseline: the runtime's ceiling. node:http answering a small JSON on every path.
import http from 'node:http';

const body = JSON.stringify({ status: 'ok', name: 'bare-node-http' });
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`ready ${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
