/**
 * Dev script (not a test): drives the events API of the real simulator and validates its JSON responses
 * against CVAT's own OpenAPI document. Tests never read the schema; this is how the facts copied into
 * code are checked against the source.
 *
 *   pnpm --filter @sims/annotation-sim exec tsx test/events/support/check-against-cvat-schema.ts ../../../shared/reference/cvat-schema.yml
 *
 * Exit code 1 when a response does not validate.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { createAnnotationSim } from '../../../src/app';

type Schema = Record<string, unknown>;
const schemaPath = process.argv[2];
if (!schemaPath) {
  console.error('usage: check-against-cvat-schema.ts <cvat-schema.yml>');
  process.exit(2);
}
const doc = parse(readFileSync(schemaPath, 'utf8')) as { components: { schemas: Record<string, Schema> } };
const component = (name: string) => doc.components.schemas[name] as Schema;

function resolve(s: Schema): Schema {
  let cur = s;
  while (typeof cur.$ref === 'string') cur = component((cur.$ref as string).split('/').pop() as string);
  return cur;
}

/** OpenAPI 3.0 subset: $ref, allOf, nullable, enum, type, properties, required, items, bounds, date-time, uri. */
function validate(value: unknown, schema: Schema, path: string, errors: string[]): void {
  const s = resolve(schema);
  if (value === null) {
    if (s.nullable !== true) errors.push(`${path}: null not allowed`);
    return;
  }
  for (const sub of (s.allOf as Schema[] | undefined) ?? []) validate(value, sub, path, errors);
  if (Array.isArray(s.enum) && !s.enum.includes(value))
    errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  const type = s.type;
  if (type === 'object') {
    if (typeof value !== 'object' || Array.isArray(value))
      return void errors.push(`${path}: expected object`);
    const obj = value as Record<string, unknown>;
    for (const r of (s.required as string[] | undefined) ?? [])
      if (!(r in obj)) errors.push(`${path}.${r}: required`);
    const props = (s.properties ?? {}) as Record<string, Schema>;
    for (const [k, v] of Object.entries(obj)) if (props[k]) validate(v, props[k], `${path}.${k}`, errors);
  } else if (type === 'array') {
    if (!Array.isArray(value)) return void errors.push(`${path}: expected array`);
    value.forEach((v, i) => void validate(v, s.items as Schema, `${path}[${i}]`, errors));
  } else if (type === 'integer') {
    if (!Number.isInteger(value)) errors.push(`${path}: expected integer`);
  } else if (type === 'number') {
    if (typeof value !== 'number') errors.push(`${path}: expected number`);
    else if (
      (typeof s.minimum === 'number' && value < s.minimum) ||
      (typeof s.maximum === 'number' && value > s.maximum)
    ) {
      errors.push(`${path}: out of bounds`);
    }
  } else if (type === 'boolean') {
    if (typeof value !== 'boolean') errors.push(`${path}: expected boolean`);
  } else if (type === 'string') {
    if (typeof value !== 'string') return void errors.push(`${path}: expected string`);
    if (s.format === 'date-time' && Number.isNaN(Date.parse(value))) errors.push(`${path}: not a date-time`);
    if (s.format === 'uri' && !URL.canParse(value)) errors.push(`${path}: not a uri`);
    if (typeof s.minLength === 'number' && value.length < s.minLength) errors.push(`${path}: too short`);
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern).test(value)) {
      errors.push(`${path}: does not match ${s.pattern}`);
    }
  }
}

const sim = createAnnotationSim({ clock: { mode: 'manual', start: '2026-08-12T10:00:00Z' } });
const auth = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
let failures = 0;

async function check(
  label: string,
  method: string,
  path: string,
  component: string,
  status: number,
  body?: unknown,
) {
  const headers: Record<string, string> = { authorization: auth };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await sim.app.request(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const errors: string[] = [];
  if (res.status !== status) errors.push(`status ${res.status}, expected ${status}: ${text}`);
  else validate(JSON.parse(text), { $ref: `#/components/schemas/${component}` }, component, errors);
  failures += errors.length > 0 ? 1 : 0;
  console.log(
    `${errors.length === 0 ? 'ok  ' : 'FAIL'} ${label} → ${component}${errors.length ? `\n  ${errors.join('\n  ')}` : ''}`,
  );
  return text ? JSON.parse(text) : undefined;
}

const advance = (by: string) =>
  sim.app.request('/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ by }) });

await check('events.create', 'POST', '/api/events', 'ClientEvents', 201, {
  timestamp: '2026-08-12T10:00:00.123456Z',
  previous_event: { scope: 'load:job', timestamp: '2026-08-12T09:59:00Z' },
  events: [
    {
      scope: 'click:element',
      obj_name: 'button',
      timestamp: '2026-08-12T10:00:00Z',
      payload: '{"a": 1}',
      job_id: 1,
    },
    { scope: 'change:frame', timestamp: '2026-08-12T10:00:00.5Z', duration: 40, count: 1 },
  ],
});
const { rq_id } = await check(
  'events.create_export',
  'POST',
  '/api/events/export?filename=x.csv',
  'RqId',
  202,
);
const rq = encodeURIComponent(rq_id);
await check('requests.retrieve (queued)', 'GET', `/api/requests/${rq}`, 'Request', 200);
await advance('1s');
await check('requests.retrieve (started)', 'GET', `/api/requests/${rq}`, 'Request', 200);
await advance('1s');
await check('requests.retrieve (finished)', 'GET', `/api/requests/${rq}`, 'Request', 200);
await sim.app.request('/_sim/events/settings', {
  method: 'PATCH',
  body: JSON.stringify({ storeConnected: false }),
});
const failed = await check('events.create_export (store down)', 'POST', '/api/events/export', 'RqId', 202);
await advance('2s');
await check(
  'requests.retrieve (failed)',
  'GET',
  `/api/requests/${encodeURIComponent(failed.rq_id)}`,
  'Request',
  200,
);
await check('requests.list', 'GET', '/api/requests', 'PaginatedRequestList', 200);
sim.close();
console.log(failures === 0 ? 'all responses validate' : `${failures} response(s) do not validate`);
process.exit(failures === 0 ? 0 : 1);
