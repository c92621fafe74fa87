import type {
  ClockState,
  FaultRuleSpec,
  FaultRule as FaultRuleView,
  JournalEntry,
  JournalStats,
  StreamEvents,
} from '@sims/sim-core';

/**
 * The dashboard talks to its simulator only through the control plane, with the types the control plane
 * itself is written in (imported from `@sims/sim-core` and the apps, type-only: nothing of them is bundled),
 * so a change to a control route's shape breaks this package's typecheck instead of the page.
 */
export type { ClockState, FaultRuleSpec, FaultRuleView, JournalEntry, StreamEvents };

/** The control plane's error envelope. */
class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

export interface Api {
  readonly namespace: string;
  /** The same calls for another namespace. */
  in(namespace: string): Api;
  get<T>(path: string): Promise<T>;
  send<T>(
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T>;
  /** The URL of the namespace's event stream (EventSource cannot send headers: the namespace is in the path). */
  streamUrl(): string;
}

/** `/_sim/` of the page's own simulator: the page is served at `…/_sim/ui/`. */
export function controlRoot(location: Location): string {
  const path = location.pathname.replace(/\/_sim\/ui\/?$/, '').replace(/^\/_ns\/[^/]+/, '');
  return `${location.origin}${path}/_sim`;
}

/** The namespace a page address names: `/_ns/<name>/_sim/ui/` or `?namespace=<name>`; else `default`. */
export function namespaceOf(location: Location): string {
  const prefixed = /^\/_ns\/([^/]+)\//.exec(location.pathname);
  if (prefixed?.[1]) return decodeURIComponent(prefixed[1]);
  return new URLSearchParams(location.search).get('namespace') || 'default';
}

export function createApi(root: string, namespace: string): Api {
  const headers = (extra: Record<string, string> = {}) => ({
    'X-Sim-UI': '1',
    'X-Sim-Namespace': namespace,
    ...extra,
  });
  async function call<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const init: RequestInit = { method, headers: headers(), credentials: 'same-origin' };
    if (body !== undefined) {
      const type = contentType ?? 'application/json';
      init.headers = headers({ 'Content-Type': type });
      init.body = typeof body === 'string' && type !== 'application/json' ? body : JSON.stringify(body);
    }
    const res = await fetch(`${root}${path}`, init);
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new ControlError(res.status, `${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    }
    if (!res.ok) {
      const error = (json as { error?: { message?: string; path?: string } } | undefined)?.error;
      throw new ControlError(res.status, error?.message ?? `${method} ${path}: ${res.status}`, error?.path);
    }
    return json as T;
  }
  return {
    namespace,
    in: (other) => createApi(root, other),
    get: (path) => call('GET', path),
    send: (method, path, body, contentType) => call(method, path, body, contentType),
    streamUrl: () => `${root.replace(/\/_sim$/, '')}/_ns/${encodeURIComponent(namespace)}/_sim/stream`,
  };
}

/** `GET /_sim/journal` */
export interface JournalList {
  entries: JournalEntry[];
  stats: JournalStats;
}
