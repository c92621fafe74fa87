/**
 * Dev script: drives the simulator through its endpoints and validates every JSON response against
 * CVAT's own OpenAPI document (the response schema of the matching path, method and status), and the
 * webhook payloads the schema has a component for (the `request` of `completed:request[create:task]`).
 *
 *   pnpm --filter @sims/annotation-sim validate:schema -- ../../../shared/reference/cvat-schema.yml
 *   pnpm --filter @sims/annotation-sim exec tsx scripts/validate-against-schema.ts ../../../shared/reference/cvat-schema.yml
 *
 * Background requests (`GET /api/requests/{id}`, `GET /api/requests`, the completion payload) are also
 * checked the other way: a key the schema does not list fails, a key it lists that the simulator leaves
 * out is printed as a note.
 *
 * Exit code 1 when any response does not validate. Tests never read the schema file: this script is
 * how the facts copied into code are checked against the source.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'yaml';
import { createAnnotationSim } from '../src/app';

type Schema = Record<string, unknown>;
// `pnpm … validate:schema -- <file>` passes the `--` through.
const schemaPath = process.argv.slice(2).find((arg) => arg !== '--');
if (!schemaPath) {
  console.error('usage: validate-against-schema.ts <cvat-schema.yml>');
  process.exit(2);
}
const doc = parse(readFileSync(schemaPath, 'utf8')) as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
};

function resolve(s: Schema): Schema {
  let cur = s;
  while (typeof cur.$ref === 'string')
    cur = doc.components.schemas[(cur.$ref as string).split('/').pop() as string] as Schema;
  return cur;
}

/**
 * A small OpenAPI 3.0 schema validator: type, nullable, enum, properties, required, items,
 * allOf/anyOf/oneOf, formats, lengths, patterns, bounds. `strict`: an object schema that lists its
 * properties (and combines no others) allows no other key, whatever `additionalProperties` says.
 */
function validate(value: unknown, schema: Schema, path: string, errors: string[], strict = false): void {
  const s = resolve(schema);
  if (value === null) {
    if (s.nullable === true) return;
    if (Array.isArray(s.allOf) && s.nullable) return;
    if (s.type === undefined && !s.allOf && !s.anyOf && !s.oneOf) return;
    errors.push(`${path}: null is not allowed`);
    return;
  }
  if (Array.isArray(s.allOf))
    for (const sub of s.allOf as Schema[]) validate(value, sub, path, errors, strict);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key])) {
      const ok = (s[key] as Schema[]).some((sub) => {
        const e: string[] = [];
        validate(value, sub, path, e, strict);
        return e.length === 0;
      });
      if (!ok) errors.push(`${path}: matches none of ${key}`);
    }
  }
  if (Array.isArray(s.enum) && !(s.enum as unknown[]).includes(value))
    errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  switch (s.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value))
        return void errors.push(`${path}: expected object`);
      const obj = value as Record<string, unknown>;
      for (const r of (s.required as string[] | undefined) ?? [])
        if (!(r in obj)) errors.push(`${path}.${r}: required`);
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const closed = s.additionalProperties === false || (strict && s.properties !== undefined && !s.allOf);
      for (const [k, v] of Object.entries(obj)) {
        if (props[k]) validate(v, props[k], `${path}.${k}`, errors, strict);
        else if (closed) errors.push(`${path}.${k}: not in the schema`);
      }
      return;
    }
    case 'array':
      if (!Array.isArray(value)) return void errors.push(`${path}: expected array`);
      value.forEach((v, i) => {
        if (s.items) validate(v, s.items as Schema, `${path}[${i}]`, errors, strict);
      });
      return;
    case 'integer':
    case 'number':
      if (s.type === 'integer' ? !Number.isInteger(value) : typeof value !== 'number')
        errors.push(`${path}: expected ${s.type}, got ${JSON.stringify(value)}`);
      else {
        if (typeof s.minimum === 'number' && (value as number) < s.minimum)
          errors.push(`${path}: below minimum`);
        if (typeof s.maximum === 'number' && (value as number) > s.maximum)
          errors.push(`${path}: above maximum`);
      }
      return;
    case 'boolean':
      if (typeof value !== 'boolean') errors.push(`${path}: expected boolean`);
      return;
    case 'string': {
      if (typeof value !== 'string')
        return void errors.push(`${path}: expected string, got ${JSON.stringify(value)}`);
      if (typeof s.maxLength === 'number' && value.length > s.maxLength)
        errors.push(`${path}: longer than ${s.maxLength}`);
      if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value))
        errors.push(`${path}: does not match ${s.pattern}`);
      if (s.format === 'date-time' && Number.isNaN(Date.parse(value)))
        errors.push(`${path}: not a date-time`);
      if (s.format === 'uri' && !/^[a-z][a-z0-9+.-]*:/i.test(value)) errors.push(`${path}: not a uri`);
      return;
    }
  }
}

/** Keys an object schema lists (through `$ref` and `allOf`) that `value` leaves out, as paths. */
function absentKeys(value: unknown, schema: Schema, path: string): string[] {
  const s = resolve(schema);
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) {
    return s.items ? value.flatMap((v, i) => absentKeys(v, s.items as Schema, `${path}[${i}]`)) : [];
  }
  const obj = value as Record<string, unknown>;
  const out = ((s.allOf as Schema[] | undefined) ?? []).flatMap((sub) => absentKeys(value, sub, path));
  for (const [k, sub] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
    if (!(k in obj)) out.push(`${path}.${k}`);
    else out.push(...absentKeys(obj[k], sub, `${path}.${k}`));
  }
  return out;
}

/** The body of a `completed:request[create:task]` delivery (reference §2.4); `request` is CVAT's `Request`. */
const COMPLETED_TASK_CREATION: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'request', 'webhook_id'],
  properties: {
    event: { type: 'string', enum: ['completed:request[create:task]'] },
    request: { $ref: '#/components/schemas/Request' },
    webhook_id: { type: 'integer' },
  },
};

function templateFor(path: string, method: string): string | undefined {
  const candidates = Object.keys(doc.paths).filter((tpl) => {
    const re = new RegExp(`^${tpl.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return re.test(path) && doc.paths[tpl]?.[method] !== undefined;
  });
  // The most literal template wins (/api/webhooks/events over /api/webhooks/{id}).
  return candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
}

async function main() {
  const receivers: http.Server[] = [];
  /** Every delivery body the receiver got, parsed. */
  const delivered: Record<string, unknown>[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      delivered.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      res.writeHead(200).end('ok');
    });
  });
  receivers.push(receiver);
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const sim = createAnnotationSim({ seed: 1, clock: { mode: 'manual', start: '2026-01-01T00:00:00.250Z' } });
  const basic = (u: string, p = 'password') => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
  sim.kernel.def.seed(sim.world(), {
    users: [{ username: 'alice' }, { username: 'bob' }],
    organizations: [
      { slug: 'acme', owner: 'alice', members: [{ user: 'bob', role: 'maintainer' }], invitations: [] },
    ],
  });
  let failures = 0;
  let checked = 0;
  const results: Record<string, unknown> = {};
  /** Reports one check: its errors (a failure) and notes (printed only). */
  function report(name: string, what: string, errors: string[], notes: string[] = []) {
    checked++;
    if (errors.length > 0) {
      failures++;
      console.log(`FAIL ${name}: ${what}\n  ${errors.slice(0, 8).join('\n  ')}`);
    } else console.log(`ok   ${name}: ${what}`);
    for (const note of notes) console.log(`     note: ${note}`);
  }
  async function call(
    name: string,
    method: string,
    path: string,
    body?: unknown,
    user = 'alice',
    { strict = false }: { strict?: boolean } = {},
  ) {
    const headers: Record<string, string> = {
      authorization: user === 'admin' ? basic('admin', 'admin') : basic(user),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await sim.app.request(`http://localhost${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json =
      text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
    results[name] = json;
    const tpl = templateFor(path.split('?')[0] as string, method.toLowerCase());
    const op = tpl ? doc.paths[tpl]?.[method.toLowerCase()] : undefined;
    const responses = (op?.responses ?? {}) as Record<
      string,
      { content?: Record<string, { schema?: Schema }> }
    >;
    const schema = responses[String(res.status)]?.content?.['application/vnd.cvat+json']?.schema;
    const errors: string[] = [];
    const notes: string[] = [];
    if (!tpl) errors.push('no path in the schema');
    else if (!responses[String(res.status)])
      errors.push(`status ${res.status} is not documented (${Object.keys(responses).join(', ')})`);
    else if (schema && json !== undefined) {
      validate(json, schema, '$', errors, strict);
      if (strict) notes.push(...absentKeys(json, schema, '$').map((p) => `${p} (in the schema) is absent`));
    }
    report(
      name,
      `${method} ${path} → ${res.status}${tpl && errors.length === 0 ? ` (${tpl})` : ''}`,
      errors,
      notes,
    );
    return json as Record<string, unknown>;
  }

  await call('users.self', 'GET', '/api/users/self');
  for (const [name, path] of [
    ['server.retrieve_about', '/api/server/about'],
    ['server.retrieve_annotation_formats', '/api/server/annotation/formats'],
    ['server.retrieve_plugins', '/api/server/plugins'],
    ['server.list_share', '/api/server/share'],
  ] as const)
    await call(name, 'GET', path, undefined, 'alice', { strict: true });
  await call('users.list', 'GET', '/api/users');
  const pat = await call('auth.create_access_tokens', 'POST', '/api/auth/access_tokens', {
    name: 'ci',
    read_only: true,
  });
  await call('auth.list_access_tokens', 'GET', '/api/auth/access_tokens');
  await call('auth.retrieve_access_tokens', 'GET', `/api/auth/access_tokens/${pat.id}`);
  await call('auth.partial_update_access_tokens', 'PATCH', `/api/auth/access_tokens/${pat.id}`, {
    name: 'ci2',
  });
  await call('organizations.list', 'GET', '/api/organizations');
  await call('organizations.retrieve', 'GET', '/api/organizations/1');
  await call('organizations.partial_update', 'PATCH', '/api/organizations/1', { name: 'Acme Inc' });
  await call('memberships.list', 'GET', '/api/memberships?org=acme');
  await call('memberships.retrieve', 'GET', '/api/memberships/2');
  const inv = await call('invitations.create', 'POST', '/api/invitations?org=acme', {
    email: 'new@example.com',
    role: 'worker',
  });
  await call('invitations.list', 'GET', '/api/invitations?org=acme');
  await call('invitations.retrieve', 'GET', `/api/invitations/${inv.key}`);
  await call('projects.create', 'POST', '/api/projects?org=acme', { name: 'P', labels: [{ name: 'cat' }] });
  await call('projects.list', 'GET', '/api/projects?org=acme');
  await call('projects.retrieve', 'GET', '/api/projects/1');
  await call('tasks.create', 'POST', '/api/tasks?org=acme', { name: 'T', project_id: 1, segment_size: 2 });
  const completionHook = await call('webhooks.create (completed:request)', 'POST', '/api/webhooks?org=acme', {
    target_url: target,
    type: 'organization',
    events: ['completed:request[create:task]'],
  });
  const created = await call('tasks.create_data', 'POST', '/api/tasks/1/data/', {
    image_quality: 70,
    server_files: ['a.jpg', 'b.jpg', 'c.jpg'],
  });
  const requestPath = (rqId: unknown) => `/api/requests/${encodeURIComponent(String(rqId))}`;
  const strict = { strict: true };
  const finished = await call(
    'requests.retrieve (finished task creation)',
    'GET',
    requestPath(created.rq_id),
    undefined,
    'alice',
    strict,
  );
  // The completion webhook: `{event, request, webhook_id}`, `request` being CVAT's `Request`.
  await sim.deliveries().idle();
  const completions = delivered.filter((b) => b.event === 'completed:request[create:task]');
  for (const payload of completions) {
    const errors: string[] = [];
    validate(payload, COMPLETED_TASK_CREATION, '$', errors, true);
    if (payload.webhook_id !== completionHook.id)
      errors.push(`$.webhook_id: ${JSON.stringify(payload.webhook_id)}, not ${completionHook.id}`);
    if (JSON.stringify(payload.request) !== JSON.stringify(finished))
      errors.push(
        `$.request differs from GET ${requestPath(created.rq_id)}: ${JSON.stringify(payload.request)}`,
      );
    const notes = absentKeys(payload, COMPLETED_TASK_CREATION, '$').map(
      (p) => `${p} (in the schema) is absent`,
    );
    report('webhook completed:request[create:task]', 'payload.request against Request', errors, notes);
  }
  if (completions.length !== 1)
    report('webhook completed:request[create:task]', 'deliveries', [
      `${completions.length} deliveries, not 1`,
    ]);
  // A request still queued (started_date, finished_date and expiry_date null), then both in the list.
  await call('tasks.create (second)', 'POST', '/api/tasks?org=acme', {
    name: 'T-queued',
    project_id: 1,
    segment_size: 2,
  });
  const settings = await sim.app.request('http://localhost/_sim/requests/settings', {
    method: 'PATCH',
    body: JSON.stringify({ queued: '1s', taskCreation: '3s' }),
  });
  if (!settings.ok) throw new Error(`PATCH /_sim/requests/settings answered ${settings.status}`);
  const queued = await call('tasks.create_data (second)', 'POST', '/api/tasks/2/data/', {
    image_quality: 50,
    server_files: ['d.jpg'],
  });
  await call(
    'requests.retrieve (queued task creation)',
    'GET',
    requestPath(queued.rq_id),
    undefined,
    'alice',
    strict,
  );
  await call('requests.list', 'GET', '/api/requests', undefined, 'alice', strict);
  await call('tasks.list', 'GET', '/api/tasks?org=acme');
  await call('tasks.retrieve', 'GET', '/api/tasks/1');
  await call('tasks.partial_update', 'PATCH', '/api/tasks/1', { name: 'T2', assignee_id: 3 });
  await call('jobs.list', 'GET', '/api/jobs?task_id=1');
  await call('jobs.retrieve', 'GET', '/api/jobs/1');
  await call('jobs.partial_update', 'PATCH', '/api/jobs/1', { stage: 'validation', assignee: 2 });
  await call('issues.create', 'POST', '/api/issues', {
    frame: 0,
    position: [1.5, 2, 3, 4],
    job: 1,
    message: 'fix',
  });
  await call('issues.list', 'GET', '/api/issues?job_id=1');
  await call('issues.partial_update', 'PATCH', '/api/issues/1', { resolved: true });
  await call('comments.create', 'POST', '/api/comments', { issue: 1, message: 'ok' });
  await call('comments.list', 'GET', '/api/comments?issue_id=1');
  await call('comments.retrieve', 'GET', '/api/comments/1');
  const hook = await call('webhooks.create', 'POST', '/api/webhooks?org=acme', {
    target_url: target,
    type: 'project',
    project_id: 1,
    events: ['update:task', 'create:issue'],
    secret: 'k',
  });
  await call('webhooks.create (org)', 'POST', '/api/webhooks?org=acme', {
    target_url: target,
    type: 'organization',
    events: ['update:organization'],
  });
  await call('webhooks.retrieve', 'GET', `/api/webhooks/${hook.id}`);
  await call('webhooks.partial_update', 'PATCH', `/api/webhooks/${hook.id}`, { description: 'd' });
  await call('webhooks.update', 'PUT', `/api/webhooks/${hook.id}`, {
    target_url: target,
    events: ['update:task'],
    type: 'project',
  });
  await call('webhooks.events', 'GET', '/api/webhooks/events?type=project');
  const ping = await call('webhooks.create_ping', 'POST', `/api/webhooks/${hook.id}/ping`);
  await call('tasks.partial_update (delivery)', 'PATCH', '/api/tasks/1', { name: 'T3' });
  await sim.deliveries().idle();
  await call('webhooks.list', 'GET', '/api/webhooks?org=acme');
  await call('webhooks.list_deliveries', 'GET', `/api/webhooks/${hook.id}/deliveries`);
  await call('webhooks.retrieve_deliveries', 'GET', `/api/webhooks/${hook.id}/deliveries/${ping.id}`);
  await call(
    'webhooks.create_deliveries_redelivery',
    'POST',
    `/api/webhooks/${hook.id}/deliveries/${ping.id}/redelivery`,
  );
  await call('webhooks.destroy', 'DELETE', `/api/webhooks/${hook.id}`);
  await call('comments.destroy', 'DELETE', '/api/comments/1');
  await call('tasks.destroy', 'DELETE', '/api/tasks/1');
  await call('projects.destroy', 'DELETE', '/api/projects/1');
  await sim.deliveries().idle();
  sim.close();
  for (const r of receivers) r.close();
  console.log(`\n${checked} responses checked, ${failures} failed`);
  process.exit(failures > 0 ? 1 : 0);
}

await main();
