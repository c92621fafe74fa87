import { type CvatError, parseCvatError } from './cvat-error';

export interface CvatHttpOptions {
  /** Where CVAT lives, e.g. `http://127.0.0.1:8086` (no `/api`). */
  readonly baseUrl: string;
  /** An API key from `POST /api/auth/login`; it goes out as `Authorization: Token <key>`. */
  readonly token: string;
  /** Injected so tests and embedders choose the transport; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
}

/** A CVAT answer: status, headers and the body parsed as JSON when it is JSON, else as text. */
export interface CvatResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

export type CvatResult<T> = { ok: true; value: T } | { ok: false; error: CvatError };

export type Query = Record<string, string | number | undefined>;

/**
 * CVAT's JSON media type. DRF negotiates on `Accept`: `application/vnd.cvat+json` (or `*\/*`) matches
 * CVAT's renderer, while a bare `application/json` matches none (reference cvat-webhooks-events.md §1.1).
 */
export const CVAT_JSON = 'application/vnd.cvat+json';

function isJson(contentType: string | null): boolean {
  return contentType !== null && /^application\/([\w.+-]+\+)?json\b/.test(contentType);
}

/** An answer with its body parsed as JSON when it is JSON, else as text. */
async function readBody(res: Response): Promise<CvatResponse> {
  const text = await res.text();
  const parsed =
    text !== '' && isJson(res.headers.get('content-type')) ? (JSON.parse(text) as unknown) : text;
  return { status: res.status, headers: res.headers, body: parsed };
}

/**
 * The small HTTP layer both CVAT consumers share: token auth, CVAT's Accept header, JSON in and out.
 *
 * @example
 * const http = createCvatHttp({ baseUrl: 'http://127.0.0.1:8086', token: 'key' });
 * const res = await http.request('GET', '/api/webhooks', { query: { project_id: 1 } });
 */
export function createCvatHttp(options: CvatHttpOptions) {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function send(
    url: string,
    init: { method: string; json?: unknown; accept: string },
  ): Promise<CvatResponse> {
    const headers: Record<string, string> = { Authorization: `Token ${options.token}`, Accept: init.accept };
    let body: string | undefined;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    return readBody(await doFetch(url, { method: init.method, headers, body }));
  }

  function urlOf(path: string, query: Query = {}): string {
    const url = new URL(base + path);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  return {
    /** A call to the API under `baseUrl`; `path` starts with `/api/`. */
    request(
      method: string,
      path: string,
      init: { query?: Query; json?: unknown } = {},
    ): Promise<CvatResponse> {
      return send(urlOf(path, init.query), { method, json: init.json, accept: CVAT_JSON });
    },
    /**
     * A call whose body is a form (`multipart/form-data`, a file upload such as an annotation import's
     * `annotation_file`); fetch writes the boundary into the Content-Type.
     */
    async upload(method: string, path: string, form: FormData, query: Query = {}): Promise<CvatResponse> {
      const headers = { Authorization: `Token ${options.token}`, Accept: CVAT_JSON };
      return readBody(await doFetch(urlOf(path, query), { method, headers, body: form }));
    },
    /**
     * A GET of a file the server handed out (an export's `result_url`, used as given): its bytes as
     * `body` when the answer is 200, else the error body, parsed as JSON when it is JSON.
     */
    async download(url: string): Promise<CvatResponse> {
      const res = await doFetch(url, { headers: { Authorization: `Token ${options.token}`, Accept: '*/*' } });
      if (res.status !== 200) return readBody(res);
      return { status: res.status, headers: res.headers, body: new Uint8Array(await res.arrayBuffer()) };
    },
    /**
     * A GET of an absolute URL the server handed out (`next` pages, an export's `result_url`). Such a
     * URL may name another host than `baseUrl` (CVAT builds it from the request's Host), so it is used
     * as given. Downloads ask for anything: the answer is a file, not JSON.
     */
    follow(url: string, accept = CVAT_JSON): Promise<CvatResponse> {
      return send(url, { method: 'GET', accept });
    },
  };
}

export type CvatHttp = ReturnType<typeof createCvatHttp>;

/** Turns a response into a result: `expected` statuses pass through `read`, any other is a CvatError. */
export function expectStatus<T>(
  response: CvatResponse,
  expected: number | readonly number[],
  read: (response: CvatResponse) => T,
): CvatResult<T> {
  const statuses = typeof expected === 'number' ? [expected] : expected;
  return statuses.includes(response.status)
    ? { ok: true, value: read(response) }
    : { ok: false, error: parseCvatError(response.status, response.body) };
}
