import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The text of a scenario file in this folder. */
export function scenario(file: string): string {
  return readFileSync(join(here, '..', file), 'utf8');
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON
export type AnyJson = any;

export async function send(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: AnyJson; headers: Headers }> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}
