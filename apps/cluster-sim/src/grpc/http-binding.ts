/** One `google.api.http` binding of an RPC: a verb with its path template, and what the body is. */
export interface HttpBinding {
  get?: string;
  put?: string;
  post?: string;
  delete?: string;
  patch?: string;
  body?: string;
}

/** The REST request a gRPC request message becomes. */
export interface RestRequest {
  method: string;
  path: string;
  body?: string;
}

const VERBS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const VARIABLE = /\{([a-z0-9_.]+)(?:=[^}]*)?\}/g;

const camel = (snake: string) => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function variablesOf(template: string): string[] {
  return [...template.matchAll(VARIABLE)].map((m) => camel(m[1] as string));
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/** Query parameters of the fields left over, as Google's transcoding flattens them (`a.b=…`, repeated). */
function appendQuery(query: URLSearchParams, prefix: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) for (const v of value) appendQuery(query, prefix, v);
  else if (typeof value === 'object')
    for (const [k, v] of Object.entries(value)) appendQuery(query, `${prefix}.${k}`, v);
  else query.append(prefix, String(value));
}

/**
 * Transcodes a request message (its proto3 JSON, camelCase) through the RPC's HTTP bindings, as
 * Google's front end does: the first binding whose path variables the message all fills (else the
 * first), path variables from the message, then the rest as the JSON body (`body: "*"`), one field's
 * value as the body (`body: "field"`), or query parameters.
 */
export function restRequestOf(bindings: HttpBinding[], message: Record<string, unknown>): RestRequest {
  const fits = (b: HttpBinding) => {
    const verb = VERBS.find((v) => b[v] !== undefined);
    return verb !== undefined && variablesOf(b[verb] as string).every((f) => present(message[f]));
  };
  const binding = bindings.find(fits) ?? bindings[0];
  const verb = binding && VERBS.find((v) => binding[v] !== undefined);
  if (!binding || !verb) throw new Error('the method has no HTTP binding');
  const template = binding[verb] as string;
  const rest: Record<string, unknown> = { ...message };
  const path = template.replace(VARIABLE, (_, field: string, offset: number) => {
    const key = camel(field);
    const value = String(message[key] ?? '');
    delete rest[key];
    // A `{name=projects/*/…}` variable spans segments: its slashes stay.
    return template.slice(offset).startsWith(`{${field}=`) ? encodeURI(value) : encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  let body: string | undefined;
  if (binding.body === '*') body = JSON.stringify(rest);
  else if (binding.body) {
    const key = camel(binding.body);
    body = JSON.stringify(rest[key] ?? {});
    delete rest[key];
  }
  if (binding.body !== '*') for (const [k, v] of Object.entries(rest)) appendQuery(query, k, v);
  const search = query.toString();
  return { method: verb.toUpperCase(), path: search ? `${path}?${search}` : path, body };
}
