import { toMilliseconds } from './duration';
import { parseControlError, SimControlError, SimWaitTimeoutError } from './errors';
import { describeFilter, formatEntries } from './format';
import type {
  ClockMode,
  ClockState,
  ClockTime,
  Duration,
  FaultRule,
  FaultRuleInput,
  HealthStatus,
  JournalEntry,
  JournalFilter,
  JournalStats,
  NamespaceCreateResult,
  ScenarioInput,
  ScenarioResult,
  SeedResult,
  SimStateSnapshot,
} from './types';

/** Header that selects a namespace (docs/decisions/0001-namespace-selection.md). */
export const NAMESPACE_HEADER = 'X-Sim-Namespace';
/** Header that carries the admin token (the kernel also accepts `Authorization: Bearer <token>`). */
export const ADMIN_TOKEN_HEADER = 'X-Sim-Admin-Token';

/** Default wait of the journal `waitFor` helpers: below vitest's 5 s test timeout, so our message wins. */
const DEFAULT_WAIT: Duration = '3s';
/** Extra wall time a long-poll is given beyond the server's own timeout before the client gives up. */
const LONG_POLL_GRACE_MS = 5_000;

const SIM_CLIENT = Symbol.for('@sims/sim-client/client');
const FAULT_RULE_HANDLE = Symbol.for('@sims/sim-client/fault-rule-handle');

export interface SimClientOptions {
  /** Where the simulator listens, e.g. `http://127.0.0.1:8085` (a `/_ns/<name>` prefix works too). */
  baseUrl: string | URL;
  /** Namespace to act on (sent as `X-Sim-Namespace`); `default` when absent. */
  namespace?: string;
  /** The simulator's admin token (`--admin-token` / `SIM_ADMIN_TOKEN`), sent as `X-Sim-Admin-Token`. */
  adminToken?: string;
  /** A fetch implementation; the global `fetch` by default. */
  fetch?: typeof fetch;
}

export interface SimRequestOptions {
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A fault rule by id, in one namespace: what `expect(rule).toHaveFired()` reads. */
export interface FaultRuleHandle {
  readonly id: string;
  readonly namespace: string;
  /** Re-reads the rule with its current `matched` / `fired` counters. */
  get(): Promise<FaultRule>;
  /** Removes the rule; a SimControlError 404 when it is already gone. */
  remove(): Promise<void>;
}

/** What `faults.add` returns: a handle plus the rule as the simulator stored it (counters as of then). */
export interface AddedFaultRule extends FaultRuleHandle {
  readonly rule: FaultRule;
}

export interface SimFaults {
  add(rule: FaultRuleInput): Promise<AddedFaultRule>;
  /** Adds all rules or none (the simulator validates the whole batch first). */
  addMany(rules: FaultRuleInput[]): Promise<AddedFaultRule[]>;
  /**
   * Adds the rules of a YAML text (`Content-Type: application/yaml`): one rule, or a list of them
   * added all or none. Answers with the rules added, in order (one for a single rule).
   */
  addYaml(text: string): Promise<AddedFaultRule[]>;
  list(options?: { unfired?: boolean }): Promise<FaultRule[]>;
  get(id: string): Promise<FaultRule>;
  /** A handle for a rule added elsewhere (a scenario, another client); makes no request. */
  handle(id: string): FaultRuleHandle;
  remove(id: string): Promise<void>;
  clear(): Promise<void>;
  /** Rules that never fired: a test whose fault silently stopped applying is caught by this. */
  unfired(): Promise<FaultRule[]>;
}

export interface SimClock {
  get(): Promise<ClockState>;
  /** Moves world time forward, firing due timers in order (a manual clock moves only this way). */
  advance(by: Duration): Promise<ClockState>;
  /** Jumps to a time (ISO string or epoch ms). */
  set(time: ClockTime): Promise<ClockState>;
  configure(options: { mode?: ClockMode; speed?: number }): Promise<ClockState>;
}

export interface JournalWaitOptions {
  /** Wall-clock time to wait; default 3 s. */
  timeout?: Duration;
  signal?: AbortSignal;
}

export interface SimJournal {
  /** Entries matching `filter`, oldest first; `limit` keeps the newest N. */
  list(filter?: JournalFilter & { limit?: number }): Promise<JournalEntry[]>;
  /** One entry by its `seq`; a SimControlError 404 when it was never recorded or has been dropped since. */
  get(seq: number): Promise<JournalEntry>;
  stats(): Promise<JournalStats>;
  clear(): Promise<void>;
  /**
   * One long-poll (`POST /_sim/journal/wait`): the first entry matching `filter`, existing or future, or
   * `undefined` when none arrived within `timeout` (default 3 s).
   */
  wait(filter?: JournalFilter, timeout?: Duration): Promise<JournalEntry | undefined>;
  /**
   * Like `wait`, but throws a SimWaitTimeoutError listing the journal's recent entries on timeout.
   * Resolves as soon as the entry exists: the server answers the long-poll the moment it is recorded.
   */
  waitFor(filter?: JournalFilter, options?: JournalWaitOptions): Promise<JournalEntry>;
}

export interface SimNamespaces {
  list(): Promise<string[]>;
  /**
   * Creates a namespace ahead of its first use (`created: false` when it already exists); a
   * SimControlError 400 for an invalid name.
   */
  create(name: string): Promise<NamespaceCreateResult>;
  /** Drops a namespace's world whole; a SimControlError 404 when it does not exist. */
  delete(name: string): Promise<void>;
}

export interface SimClient {
  readonly baseUrl: string;
  /** The namespace this client acts on (`default` when none was chosen). */
  readonly namespace: string;
  health(): Promise<HealthStatus>;
  /** Empties this namespace's world (state, faults, journal); clock mode and speed are kept. */
  reset(): Promise<void>;
  state: {
    export<S = unknown>(): Promise<SimStateSnapshot<S>>;
    /** Replaces the world from a snapshot, all or nothing. */
    import(snapshot: SimStateSnapshot): Promise<void>;
  };
  /** Creates resources directly; `input` is the simulator's own seed shape. */
  seed<T = unknown>(input: unknown): Promise<SeedResult<T>>;
  faults: SimFaults;
  clock: SimClock;
  journal: SimJournal;
  namespaces: SimNamespaces;
  scenarios: {
    /** Loads a scenario: YAML/JSON text, or an object (sent as JSON). `source` names it in error messages. */
    load(scenario: string | ScenarioInput, options?: { source?: string }): Promise<ScenarioResult>;
  };
  /** The control plane's own OpenAPI document (`/_sim/openapi.json`). */
  openApi(): Promise<Record<string, unknown>>;
  /** A client for another namespace, sharing base URL, token and fetch. */
  withNamespace(name: string): SimClient;
  /**
   * Any control-plane route, e.g. a simulator-specific one: the answer's JSON (`undefined` for an empty
   * body); a non-2xx answer is a SimControlError. `path` is relative to the base URL (`/_sim/…`).
   */
  request<T = unknown>(method: string, path: string, body?: unknown, options?: SimRequestOptions): Promise<T>;
}

/**
 * True for a value made by `createSimClient` (used by the vitest matchers).
 *
 * @example isSimClient(createSimClient({ baseUrl: 'http://127.0.0.1:8085' })) // true
 */
export function isSimClient(value: unknown): value is SimClient {
  return typeof value === 'object' && value !== null && SIM_CLIENT in value;
}

/**
 * True for a fault rule handle (what `faults.add` and `faults.handle` return).
 *
 * @example isFaultRuleHandle(await sim.faults.add({ effect: { delay: '1s' } })) // true
 */
export function isFaultRuleHandle(value: unknown): value is FaultRuleHandle {
  return typeof value === 'object' && value !== null && FAULT_RULE_HANDLE in value;
}

function journalQuery(filter: JournalFilter & { limit?: number }): SimRequestOptions['query'] {
  const { operation, resource, method, path, status, fault, since, limit } = filter;
  return { operation, resource, method, path, status, fault, since, limit };
}

/**
 * Creates a typed client for a simulator's control plane (`/_sim`), cluster-sim or annotation-sim alike.
 *
 * @example
 * const sim = createSimClient({ baseUrl: 'http://127.0.0.1:8085', namespace: 'test-42' });
 * const rule = await sim.faults.add({
 *   match: { operation: 'nodePools.update' },
 *   trigger: { times: 1 },
 *   effect: { error: { status: 'ABORTED' } },
 * });
 * await runTheCodeUnderTest();
 * await sim.journal.waitFor({ operation: 'nodePools.update', status: 200 });
 * expect((await rule.get()).fired).toBe(1);
 */
export function createSimClient(options: SimClientOptions): SimClient {
  const baseUrl = String(options.baseUrl).replace(/\/+$/, '');
  // A `/_ns/<name>` prefix in the base URL selects the namespace and wins over the header.
  const prefix = /\/_ns\/([^/]+)$/.exec(baseUrl);
  const namespace = prefix ? decodeURIComponent(prefix[1] as string) : (options.namespace ?? 'default');
  const doFetch = options.fetch ?? globalThis.fetch;

  async function request<T>(
    method: string,
    path: string,
    body?: unknown,
    opts: SimRequestOptions = {},
  ): Promise<T> {
    let url = `${baseUrl}${path.startsWith('/') ? path : `/${path}`}`;
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(opts.query ?? {})) {
      if (value !== undefined) params.set(key, String(value));
    }
    if ([...params].length > 0) url += `${url.includes('?') ? '&' : '?'}${params}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.namespace !== undefined) headers[NAMESPACE_HEADER] = options.namespace;
    if (options.adminToken !== undefined) headers[ADMIN_TOKEN_HEADER] = options.adminToken;
    let payload: string | undefined;
    if (body !== undefined) {
      // Text goes as is (YAML scenarios); everything else as JSON.
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      headers['content-type'] = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
    }
    Object.assign(headers, opts.headers);
    const res = await doFetch(url, { method, headers, body: payload, signal: opts.signal });
    const text = await res.text();
    if (!res.ok) throw parseControlError(res.status, text, { method, url });
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      return text as T;
    }
  }

  function handle(id: string): FaultRuleHandle {
    const path = `/_sim/faults/${encodeURIComponent(id)}`;
    return {
      [FAULT_RULE_HANDLE]: true,
      id,
      namespace,
      get: () => request<FaultRule>('GET', path),
      remove: async () => {
        await request('DELETE', path);
      },
    } as FaultRuleHandle;
  }
  const added = (rule: FaultRule): AddedFaultRule => ({ ...handle(rule.id), rule });

  async function wait(filter: JournalFilter = {}, timeout: Duration = DEFAULT_WAIT, signal?: AbortSignal) {
    const guard = AbortSignal.timeout(toMilliseconds(timeout) + LONG_POLL_GRACE_MS);
    try {
      const res = await request<{ entry: JournalEntry }>(
        'POST',
        '/_sim/journal/wait',
        { ...filter, timeout },
        { signal: signal ? AbortSignal.any([signal, guard]) : guard },
      );
      return res.entry;
    } catch (err) {
      if (err instanceof SimControlError && err.status === 408) return undefined;
      throw err;
    }
  }

  const client: SimClient & { [SIM_CLIENT]: true } = {
    [SIM_CLIENT]: true,
    baseUrl,
    namespace,
    health: () => request('GET', '/_sim/health'),
    reset: async () => {
      await request('POST', '/_sim/reset');
    },
    state: {
      export: () => request('GET', '/_sim/state'),
      import: async (snapshot) => {
        await request('PUT', '/_sim/state', snapshot);
      },
    },
    seed: (input) => request('POST', '/_sim/seed', input ?? {}),
    faults: {
      add: async (rule) => added(await request<FaultRule>('POST', '/_sim/faults', rule)),
      addMany: async (rules) =>
        (await request<{ faults: FaultRule[] }>('POST', '/_sim/faults', rules)).faults.map(added),
      addYaml: async (text) => {
        // A single rule is answered as the rule, a list as `{ faults }`.
        const res = await request<FaultRule | { faults: FaultRule[] }>('POST', '/_sim/faults', text, {
          headers: { 'content-type': 'application/yaml' },
        });
        return ('faults' in res ? res.faults : [res]).map(added);
      },
      list: async (opts = {}) =>
        (
          await request<{ faults: FaultRule[] }>('GET', '/_sim/faults', undefined, {
            query: { unfired: opts.unfired ? 'true' : undefined },
          })
        ).faults,
      get: (id) => handle(id).get(),
      handle,
      remove: (id) => handle(id).remove(),
      clear: async () => {
        await request('DELETE', '/_sim/faults');
      },
      unfired: async () => (await request<{ faults: FaultRule[] }>('GET', '/_sim/faults/unfired')).faults,
    },
    clock: {
      get: () => request('GET', '/_sim/clock'),
      advance: (by) => request('POST', '/_sim/clock/advance', { by }),
      set: (time) => request('PATCH', '/_sim/clock', { set: time }),
      configure: ({ mode, speed }) => request('PATCH', '/_sim/clock', { mode, speed }),
    },
    journal: {
      list: async (filter = {}) =>
        (
          await request<{ entries: JournalEntry[] }>('GET', '/_sim/journal', undefined, {
            query: journalQuery(filter),
          })
        ).entries,
      get: async (seq) =>
        (await request<{ entry: JournalEntry }>('GET', `/_sim/journal/${encodeURIComponent(seq)}`)).entry,
      stats: async () =>
        (
          await request<{ stats: JournalStats }>('GET', '/_sim/journal', undefined, {
            query: { limit: 1 },
          })
        ).stats,
      clear: async () => {
        await request('DELETE', '/_sim/journal');
      },
      wait: (filter, timeout) => wait(filter, timeout),
      waitFor: async (filter = {}, opts = {}) => {
        const timeout = opts.timeout ?? DEFAULT_WAIT;
        const entry = await wait(filter, timeout, opts.signal);
        if (entry) return entry;
        const recent = await client.journal.list({ limit: 10 });
        throw new SimWaitTimeoutError(
          `no journal entry matching ${describeFilter(filter)} arrived within ${String(timeout)} ` +
            `(namespace "${namespace}"). ${formatEntries(recent, 'Most recent entries')}`,
        );
      },
    },
    namespaces: {
      list: async () => (await request<{ namespaces: string[] }>('GET', '/_sim/namespaces')).namespaces,
      create: (name) => request('PUT', `/_sim/namespaces/${encodeURIComponent(name)}`),
      delete: async (name) => {
        await request('DELETE', `/_sim/namespaces/${encodeURIComponent(name)}`);
      },
    },
    scenarios: {
      load: (scenario, opts = {}) =>
        request(
          'POST',
          '/_sim/scenarios',
          typeof scenario === 'string' ? scenario : JSON.stringify(scenario),
          {
            query: { source: opts.source },
          },
        ),
    },
    openApi: () => request('GET', '/_sim/openapi.json'),
    withNamespace: (name) =>
      createSimClient({
        ...options,
        baseUrl: prefix ? baseUrl.slice(0, prefix.index) : baseUrl,
        namespace: name,
      }),
    request,
  };
  return client;
}
