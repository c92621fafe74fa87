// `npm start`: both simulators on their default ports, in memory, with demo data, and a built-in echo
// receiver for the demo webhook. Ctrl-C (or SIGTERM) stops everything. SIM_CLUSTER_PORT (8085),
// SIM_ANNOTATION_PORT (8086) and SIM_ECHO_PORT (8087) move them; 0 picks a free port, and the printed
// URLs are the real ones.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAnnotationSim } from '@sims/annotation-sim';
import { startClusterSim } from '@sims/cluster-sim';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const host = process.env.SIM_HOST ?? '127.0.0.1';
const ECHO_SECRET = 'demo-secret';
/** The demo webhook's `target_url` in scenarios/demo-annotation.yaml: the echo receiver's default address. */
const DEMO_WEBHOOK_TARGET = 'http://127.0.0.1:8087/';

function scenarioText(file: string): string {
  return readFileSync(join(root, 'scenarios', file), 'utf8');
}

async function loadScenario(url: string, file: string, text = scenarioText(file)): Promise<void> {
  const res = await fetch(`${url}/_sim/scenarios?source=${encodeURIComponent(file)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml' },
    body: text,
  });
  if (!res.ok) throw new Error(`loading ${file}: ${res.status} ${await res.text()}`);
}

/** Prints each webhook delivery it receives and whether its X-Signature-256 is valid. */
function startEchoReceiver(listenPort: number): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const given = String(req.headers['x-signature-256'] ?? '');
      const expected = `sha256=${createHmac('sha256', ECHO_SECRET).update(body).digest('hex')}`;
      const valid =
        given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
      let event = '?';
      try {
        event = JSON.parse(body.toString('utf8')).event;
      } catch {}
      console.log(
        `echo receiver: ${event} (${body.length} bytes, signature ${given ? (valid ? 'valid' : 'INVALID') : 'absent'})`,
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) =>
      reject(new Error(`echo receiver on 127.0.0.1:${listenPort}: ${err.message}`)),
    );
    server.listen(listenPort, '127.0.0.1', () => {
      const { port: actual } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${actual}`, close: () => server.close() });
    });
  });
}

const echo = await startEchoReceiver(port('SIM_ECHO_PORT', 8087));
const cluster = await startClusterSim({ port: port('SIM_CLUSTER_PORT', 8085), host });
const annotation = await startAnnotationSim({ port: port('SIM_ANNOTATION_PORT', 8086), host });
await loadScenario(cluster.url, 'demo-cluster.yaml');
// The demo webhook targets the echo receiver's default address: point it at the receiver's real one.
const demoAnnotation = scenarioText('demo-annotation.yaml');
if (!demoAnnotation.includes(DEMO_WEBHOOK_TARGET)) {
  throw new Error(
    `scenarios/demo-annotation.yaml: no webhook targets ${DEMO_WEBHOOK_TARGET} (the echo receiver)`,
  );
}
await loadScenario(
  annotation.url,
  'demo-annotation.yaml',
  demoAnnotation.replaceAll(DEMO_WEBHOOK_TARGET, `${echo.url}/`),
);

const c = cluster.url;
const a = annotation.url;
console.log(`cluster-sim     ${c}   (dashboard ${c}/_sim/ui/, control plane ${c}/_sim, API docs ${c}/openapi.json)
annotation-sim  ${a}   (dashboard ${a}/_sim/ui/, control plane ${a}/_sim, API docs ${a}/openapi.json)
echo receiver   ${echo.url}   (target of the demo webhook; prints each delivery)

Try:
  curl -H 'Authorization: Bearer any' ${c}/v1beta1/projects/demo-project/locations/us-central1-a/clusters/demo-cluster/nodePools/default-pool
  curl -X PUT -H 'Authorization: Bearer any' -H 'Content-Type: application/json' -d '{"nodeVersion":"latest"}' \\
       ${c}/v1beta1/projects/demo-project/locations/us-central1-a/clusters/demo-cluster/nodePools/default-pool
  curl -u admin:admin ${a}/api/tasks
  curl -u admin:admin -X PATCH -H 'Content-Type: application/json' -d '{"name":"renamed"}' ${a}/api/tasks/1
      (the echo receiver prints the signed update:task delivery)
  curl ${a}/_sim/journal        # what the simulator received
Stop with Ctrl-C.`);

const stop = async () => {
  await Promise.allSettled([cluster.close(), annotation.close()]);
  echo.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
