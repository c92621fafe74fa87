import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { RequestFacts } from '../faults/engine';
import type { World } from '../world-types';
import type { JsonBudgetExcess } from './json-budget';

/** What every emulated-API handler can read from `c.var.sim`. */
export interface RequestSim<S> {
  world: World<S>;
  namespace: string;
  /** A per-request id (uuid), seeded per world. */
  requestId: string;
  /** The API operation the route named, e.g. `nodePools.update`. */
  operation?: string;
  resource?: string;
  /** Ids of the fault rules that fired for this request. */
  fired: string[];
  /**
   * The request body as text (read once by `operation()` for methods that carry one); undefined when it
   * is kept as bytes instead (`bodyBytes`).
   */
  rawBody?: string;
  /**
   * The request body as read, when it is not decoded: a content type the simulator takes as bytes
   * (`limits.bytesBodies`: file uploads), or JSON past `limits.maxJsonBytes` (`jsonOverBudget`).
   */
  bodyBytes?: Uint8Array;
  /** The request body parsed as JSON; `undefined` when absent or malformed (see `jsonError`). */
  json?: unknown;
  /** Set when the body is present but is not valid JSON (or nests too deep, or is past the budget). */
  jsonError?: string;
  /** Set when the body is JSON nested deeper than the simulator's `limits.maxJsonDepth`. */
  jsonTooDeep?: { key: string; maxDepth: number };
  /** Set (with `jsonError`) when the body is past the JSON budget's bytes or values: it is not parsed. */
  jsonOverBudget?: JsonBudgetExcess;
  /** The facts fault rules match against. */
  facts(): RequestFacts;
  /**
   * Takes a domain effect of `kind` (e.g. `operationFails`) if a rule matches this request and fires;
   * the rule's id is added to `fired` so the journal says it fired.
   */
  takeEffect<T = unknown>(kind: string): T | undefined;
}

export interface SimEnv<S> {
  Bindings: Partial<HttpBindings>;
  Variables: { sim: RequestSim<S> };
}

/** The query of a request URL, the first value of each name. */
export function queryOf(url: string): Record<string, string> {
  const q = url.indexOf('?');
  if (q === -1) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(url.slice(q + 1))) if (!(k in out)) out[k] = v;
  return out;
}

/** `c.var.sim`: made for every emulated-API request, so its methods live on the prototype. */
export class RequestContext<S> implements RequestSim<S> {
  operation?: string;
  resource?: string;
  fired: string[] = [];
  rawBody?: string;
  bodyBytes?: Uint8Array;
  json?: unknown;
  jsonError?: string;
  jsonTooDeep?: { key: string; maxDepth: number };
  jsonOverBudget?: JsonBudgetExcess;
  #facts: RequestFacts | undefined;
  readonly #c: Context<SimEnv<S>>;

  constructor(
    readonly world: World<S>,
    readonly namespace: string,
    readonly requestId: string,
    c: Context<SimEnv<S>>,
  ) {
    this.#c = c;
  }

  facts(): RequestFacts {
    const c = this.#c;
    this.#facts ??= {
      method: c.req.method,
      path: c.req.path,
      headers: Object.fromEntries(c.req.raw.headers),
      query: queryOf(c.req.url),
    };
    this.#facts.operation = this.operation;
    this.#facts.resource = this.resource;
    this.#facts.body = this.json;
    return this.#facts;
  }

  takeEffect<T>(kind: string): T | undefined {
    // No rules, nothing to take: skip building the request facts (a headers copy per call).
    if (this.world.faults.size() === 0) return undefined;
    const taken = this.world.faults.take<T>(this.facts(), kind);
    if (!taken) return undefined;
    this.fired.push(taken.rule.id);
    return taken.value;
  }
}
