/**
 * The request a gRPC call hands the simulator's Hono app: a `Request` in every way the app can tell
 * (its prototype is `Request.prototype`, so `instanceof` holds), built lazily as @hono/node-server
 * builds REST's. Method, URL, headers and the body's bytes are kept as given; the `Headers` object is
 * made when something reads it, and a native (undici) `Request` only when something asks for what
 * only it has (`signal`, `body`, `clone()`, …). Building the native one for every call was the
 * largest item of the bridge's own work in a CPU profile (an AbortSignal, WebIDL conversions, header
 * validation, and their garbage: bench figure 11, docs/decisions/0025-grpc-transport.md).
 */

/** What a request is made of; kept under a symbol, as own fields would hide Request's accessors. */
export interface RequestParts {
  method: string;
  url: string;
  /** Header names in lower case, as HTTP/2 delivers them. */
  headers: Record<string, string>;
  /** Backed by an ArrayBuffer, as a `BodyInit` is under the DOM library. */
  body: Uint8Array<ArrayBuffer> | undefined;
}

const STATE = Symbol('bridge request');

interface State extends RequestParts {
  parsedHeaders?: Headers;
  used: boolean;
  native?: Request;
}

type Self = { [STATE]: State };

function headersOf(state: State): Headers {
  if (!state.parsedHeaders) state.parsedHeaders = new Headers(state.headers);
  return state.parsedHeaders;
}

function native(state: State): Request {
  if (!state.native) {
    // A body already read whole through the fast path is gone, as a read native body would be.
    const body = state.used || state.method === 'GET' || state.method === 'HEAD' ? undefined : state.body;
    state.native = new Request(state.url, { method: state.method, headers: headersOf(state), body });
  }
  return state.native;
}

const decoder = new TextDecoder();

/**
 * The body's bytes, read once as a native Request allows (a rejected promise the second time), or
 * from the native request once one was made.
 */
function readBody<T>(
  self: Self,
  fromNative: (r: Request) => Promise<T>,
  fromBytes: (b: Uint8Array) => T,
): Promise<T> {
  const state = self[STATE];
  if (state.native) return fromNative(state.native);
  if (state.used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
  state.used = true;
  try {
    return Promise.resolve(fromBytes(state.body ?? new Uint8Array(0)));
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * Request's accessors and methods, of its prototype and those above it: @hono/node-server replaces the
 * global `Request` with a subclass of undici's, whose own prototype declares almost none.
 */
function requestMembers(): Map<string, PropertyDescriptor> {
  const members = new Map<string, PropertyDescriptor>();
  for (let p: object | null = Request.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(p))) {
      if (name !== 'constructor' && !members.has(name)) members.set(name, descriptor);
    }
  }
  return members;
}

const prototype: object = Object.create(Request.prototype);
// Every accessor and method of Request answered by the native request, built on first use ...
for (const [name, descriptor] of requestMembers()) {
  if (descriptor.get) {
    Object.defineProperty(prototype, name, {
      configurable: true,
      get(this: Self) {
        return (native(this[STATE]) as unknown as Record<string, unknown>)[name];
      },
    });
  } else if (typeof descriptor.value === 'function') {
    Object.defineProperty(prototype, name, {
      configurable: true,
      value(this: Self, ...args: unknown[]) {
        const request = native(this[STATE]) as unknown as Record<string, (...a: unknown[]) => unknown>;
        return request[name]?.apply(request, args);
      },
    });
  }
}
// ... but what the app reads on every call is kept as given, or made from what is kept.
Object.defineProperties(prototype, {
  method: {
    get(this: Self) {
      return this[STATE].method;
    },
  },
  url: {
    get(this: Self) {
      return this[STATE].url;
    },
  },
  headers: {
    get(this: Self) {
      return headersOf(this[STATE]);
    },
  },
  bodyUsed: {
    get(this: Self) {
      const state = this[STATE];
      return state.native ? state.native.bodyUsed : state.used;
    },
  },
  arrayBuffer: {
    value(this: Self) {
      return readBody(
        this,
        (r) => r.arrayBuffer(),
        (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength),
      );
    },
  },
  text: {
    value(this: Self) {
      return readBody(
        this,
        (r) => r.text(),
        (b) => decoder.decode(b),
      );
    },
  },
  json: {
    value(this: Self) {
      return readBody(
        this,
        (r) => r.json(),
        (b) => JSON.parse(decoder.decode(b)) as unknown,
      );
    },
  },
});

/**
 * A lightweight `Request` for the app: what `new Request(url, init)` would be, as far as the app can
 * observe, without building undici's request unless something needs it.
 */
export function bridgeRequest(parts: RequestParts): Request {
  const request = Object.create(prototype) as Self;
  request[STATE] = { ...parts, used: false };
  return request as unknown as Request;
}
