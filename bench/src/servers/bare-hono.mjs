// Baseline: the stack's ceiling. Hono + @hono/node-server answering a small JSON on every path.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.all('*', (c) => c.json({ status: 'ok', name: 'bare-hono' }));
const server = serve(
  { fetch: app.fetch, port: Number(process.argv[2] ?? 0), hostname: '127.0.0.1' },
  (info) => {
    console.log(`ready ${info.port}`);
  },
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
