/**
 * What a simulator hands the runner: how to start a fresh instance for one pact provider, how to empty
 * its world before each interaction, and a handler per provider-state template.
 */

/** Provider-state params once narrowed (pact sends JSON; handlers take `unknown` and narrow with `paramsOf`). */
export type StateParams = Record<string, unknown>;

/**
 * Sets one provider state up. It may return values that Pact injects into the request
 * (`fromProviderState('${etag}', …)` on the consumer side). A handler that cannot set its state up
 * throws: the interaction then fails with the error as its mismatch.
 */
export type StateHandler = (params: unknown) => Promise<Record<string, unknown> | undefined>;

/** A message as the provider would deliver it: the body bytes (or JSON) and the metadata (headers). */
export interface ProducedMessage {
  /** The exact body as delivered (a string is sent as-is, so signatures over it stay valid). */
  body: string | Record<string, unknown>;
  metadata: Record<string, string>;
}

/** The message interaction Pact asks for (description and states, as in the pact file). */
export interface MessageRequest {
  description: string;
  providerStates: { name: string; params?: StateParams }[];
}

/** One running provider: a fresh simulator with its handlers. Nothing in it outlives `close()`. */
export interface ProviderSession {
  /** Base URL of the simulator for HTTP interactions; absent for a message-only provider. */
  baseUrl?: string;
  /** Empties the world; the runner calls it before the first state of every interaction. */
  reset(): Promise<void>;
  /** Handlers keyed by state template (the state's name in the pact). */
  states: Record<string, StateHandler>;
  /** Called after the states and before the interaction's request or message (e.g. to seed what they noted). */
  beforeRequest?(): Promise<void>;
  /** For message pacts: the message the interaction's states produced. */
  message?(request: MessageRequest): Promise<ProducedMessage>;
  close(): Promise<void>;
}

/** A pact provider name and how to start a fresh session for it. */
export interface ProviderDefinition {
  /** The provider name in pact files (`provider.name`), e.g. `cluster-sim`. */
  name: string;
  start(): Promise<ProviderSession>;
}

/** Narrows a state's params to a record of the given keys, or throws naming what is missing. */
export function paramsOf<K extends string>(
  params: unknown,
  template: string,
  ...keys: K[]
): Record<K, unknown> {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    throw new Error(`state "${template}": params must be an object, got ${JSON.stringify(params)}`);
  }
  const record = params as Record<string, unknown>;
  const missing = keys.filter((k) => !(k in record));
  if (missing.length > 0) {
    throw new Error(`state "${template}": missing params ${missing.join(', ')} in ${JSON.stringify(params)}`);
  }
  return record as Record<K, unknown>;
}

/** A string param, or throws. */
export function str(value: unknown, name: string): string {
  if (typeof value !== 'string')
    throw new Error(`param ${name} must be a string, got ${JSON.stringify(value)}`);
  return value;
}

/** An integer param (also accepts a string of digits), or throws. */
export function int(value: unknown, name: string): number {
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw new Error(`param ${name} must be an integer, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** A string-array param, or throws. */
export function strings(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new Error(`param ${name} must be an array of strings, got ${JSON.stringify(value)}`);
  }
  return value as string[];
}
