/**
 * What the journal hides of a request: credentials in headers (kernel.ts keeps the list of names),
 * and secret-looking fields of JSON bodies, form bodies and queries. Applied to the copy a journal
 * entry is built from when it is read, never to what the simulator keeps or the handlers see.
 */

const REDACTED = '[REDACTED]';

/** Names compared without case, `_` or `-`: `access_token`, `accessToken` and `Access-Token` alike. */
const SECRET_NAMES = new Set([
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'authtoken',
  'sessiontoken',
  'apikey',
  'privatekey',
  'clientkey',
  'authorization',
]);
/** Any name holding one of these is secret too: `client_secret`, `new_password1`, `passwd`. */
const SECRET_PARTS = /password|passwd|secret/;

/** A field name as {@link isSecretField} compares it: `Access-Token` is `accesstoken`. */
export function fieldKey(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Whether a body field or query parameter looks like a credential. Names like `pageToken` or `key`
 * are not (a page cursor, a taint's key): only the names above, any name with password or secret,
 * and the simulator's own (`extra`, as {@link fieldKey} gives them).
 */
export function isSecretField(name: string, extra: ReadonlySet<string> = NONE): boolean {
  const key = fieldKey(name);
  return SECRET_NAMES.has(key) || SECRET_PARTS.test(key) || extra.has(key);
}

/** Header names that carry credentials whatever the list says: `x-service-token`, `x-goog-api-key`. */
const SECRET_HEADER = /(^|-)(token|secret|password|api-key|apikey)$/;

export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/**
 * Replaces the values of secret-looking fields (strings and numbers; an object under such a name,
 * like `secretManagerConfig`, is searched instead) at any depth, in place: give it a fresh copy (a
 * body just parsed). Iterative, so deep nesting cannot overflow the stack.
 */
export function redactJson<T>(value: T, extra: ReadonlySet<string> = NONE): T {
  if (value === null || typeof value !== 'object') return value;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown>;
    const isArray = Array.isArray(node);
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (v !== null && typeof v === 'object') stack.push(v);
      else if (!isArray && (typeof v === 'string' || typeof v === 'number') && isSecretField(key, extra))
        node[key] = REDACTED;
    }
  }
  return value;
}

/** A JSON member, `"name": value`, its string value possibly cut off (a truncated preview). */
const JSON_MEMBER = /"((?:[^"\\]|\\.)*)"(\s*:\s*)("(?:[^"\\]|\\.)*(?:"|$)|-?\d[\d.eE+-]*)/g;
/** One `name=value` pair of a form body or query string. */
const FORM_PAIR = /(^|&)([^=&]*)=([^&]*)/g;

function formName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * Redacts body text that is not whole JSON: a truncated JSON preview, a form body
 * (`grant_type=password&password=…`), or other text, whose JSON-looking members are redacted.
 */
export function redactText(text: string, extra: ReadonlySet<string> = NONE): string {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[') && /^[^\s=&{}[\]"]+=/.test(trimmed)) {
    return text.replace(FORM_PAIR, (pair, sep: string, name: string) =>
      isSecretField(formName(name), extra) ? `${sep}${name}=${REDACTED}` : pair,
    );
  }
  return text.replace(JSON_MEMBER, (member, name: string, colon: string) =>
    isSecretField(name, extra) ? `"${name}"${colon}"${REDACTED}"` : member,
  );
}

/** A query as the journal shows it, secret-looking parameters redacted (a copy). */
export function redactQuery(
  query: Record<string, string>,
  extra: ReadonlySet<string> = NONE,
): Record<string, string> {
  let out: Record<string, string> | undefined;
  for (const name in query) {
    if (isSecretField(name, extra)) {
      out ??= { ...query };
      out[name] = REDACTED;
    }
  }
  return out ?? query;
}
