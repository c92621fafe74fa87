import fc from 'fast-check';
import {
  anyJson,
  HOSTILE_NUMBER_LITERALS,
  hostileString,
  nested,
  PROTO_KEYS,
  protoEntries,
} from '../arbitraries';
import { plainRequest, send } from '../http';
import { JObj, JRaw, type JValue } from '../json-text';
import type { HeaderChoice, Instance } from './types';

/** How a request selects its namespace: header, `/_ns/` prefix, both, none, or a malformed name. */
export function namespaceArb(ns: string): fc.Arbitrary<HeaderChoice> {
  const invalid = fc.oneof(
    fc.constantFrom('-x', '.', 'a/b', 'a b', 'x'.repeat(64), '__proto__', '🙂', '%ZZ', '..', 'a%2Fb'),
    hostileString.filter((s) => s.trim() !== ''),
  );
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant({ headers: [['x-sim-namespace', ns]], tags: [], pathPrefix: '' }) },
    {
      weight: 3,
      arbitrary: fc.constant({ headers: [], tags: ['namespace by path prefix'], pathPrefix: `/_ns/${ns}` }),
    },
    {
      weight: 1,
      arbitrary: fc.constant({
        headers: [['x-sim-namespace', 'other-ns']],
        tags: ['namespace header and prefix disagree'],
        pathPrefix: `/_ns/${ns}`,
      }),
    },
    { weight: 1, arbitrary: fc.constant({ headers: [], tags: ['default namespace'], pathPrefix: '' }) },
    {
      weight: 1,
      arbitrary: invalid.map((name) => ({
        headers: [['x-sim-namespace', name]] as [string, string][],
        tags: ['malformed namespace header'],
        pathPrefix: '',
      })),
    },
    {
      weight: 1,
      arbitrary: invalid.map((name) => {
        let seg = name;
        try {
          seg = encodeURIComponent(name);
        } catch {
          // lone surrogate: raw
        }
        return { headers: [], tags: ['malformed namespace prefix'], pathPrefix: `/_ns/${seg}` };
      }),
    },
  ) as fc.Arbitrary<HeaderChoice>;
}

/** Merges header choices (later ones add headers; the first non-empty prefix wins). */
export function mergeHeaders(...parts: HeaderChoice[]): HeaderChoice {
  return {
    headers: parts.flatMap((p) => p.headers),
    tags: parts.flatMap((p) => p.tags),
    pathPrefix: parts.find((p) => p.pathPrefix !== '')?.pathPrefix ?? '',
  };
}

/** Values that replace a leaf of an example body. */
const hostileLeaf: fc.Arbitrary<JValue> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBER_LITERALS).map((t) => new JRaw(t) as JValue),
  hostileString as fc.Arbitrary<JValue>,
  fc.constantFrom<JValue>(null, true, -1, 1.5, [], new JObj([]), '99999999999999999999s', '-1s', 'NaNms'),
  fc.integer({ min: 100, max: 20_000 }).map((n) => nested(n, 'array')),
  protoEntries.map((e) => new JObj(e) as JValue),
);

function leafCount(v: JValue, keep: ReadonlySet<string>): number {
  if (Array.isArray(v)) return 1 + v.reduce<number>((n, x) => n + leafCount(x, keep), 0);
  if (v instanceof JObj) {
    return 1 + v.entries.reduce<number>((n, [k, x]) => n + (keep.has(k) ? 0 : leafCount(x, keep)), 0);
  }
  return 1;
}

/** The value with its `index`-th node (pre-order, not counting what is under a `keep` key) replaced. */
function replaceAt(v: JValue, index: number, replacement: JValue, keep: ReadonlySet<string>): JValue {
  let i = index;
  const walk = (x: JValue): JValue => {
    if (i === 0) {
      i = -1;
      return replacement;
    }
    i--;
    if (i < 0) return x;
    if (Array.isArray(x)) return x.map(walk);
    if (x instanceof JObj)
      return new JObj(x.entries.map(([k, y]) => [k, keep.has(k) ? y : walk(y)] as const));
    return x;
  };
  return walk(v);
}

/** Examples as they are, or with one node replaced by a hostile value, or with prototype/unknown keys. */
export function mutatedExamples(
  examples: readonly JValue[],
  /** Keys whose values are never replaced (see the caller for why). */
  keep: ReadonlySet<string> = new Set(),
): fc.Arbitrary<{ value: JValue; tags: string[] }> {
  const example = fc.constantFrom(...examples);
  return fc.oneof(
    { weight: 4, arbitrary: example.map((value) => ({ value, tags: [] as string[] })) },
    {
      weight: 4,
      arbitrary: fc.tuple(example, fc.nat(), hostileLeaf).map(([value, at, leaf]) => ({
        value: replaceAt(value, 1 + (at % Math.max(1, leafCount(value, keep) - 1)), leaf, keep),
        tags: ['hostile field values'],
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          example,
          fc.oneof(
            protoEntries,
            fc.array(fc.tuple(fc.constantFrom(...PROTO_KEYS, 'unknownField'), anyJson), {
              minLength: 1,
              maxLength: 3,
            }),
          ),
        )
        .map(([value, extra]) => ({
          value:
            value instanceof JObj ? new JObj([...value.entries, ...(extra as [string, JValue][])]) : value,
          tags: ['unknown or prototype keys'],
        })),
    },
  );
}

/**
 * Resets every namespace the simulator has (requests of a batch may have made worlds under the default
 * namespace or other names), so that a batch starts from the same state whichever batches came before.
 */
export async function resetAll(inst: Instance): Promise<void> {
  const listed = (await must(inst, 'GET', '/_sim/namespaces', undefined, [])) as { namespaces?: string[] };
  for (const name of listed.namespaces ?? []) {
    if (name === 'default') await must(inst, 'POST', '/_sim/reset', undefined, [['x-sim-namespace', name]]);
    else
      await must(inst, 'DELETE', `/_sim/namespaces/${encodeURIComponent(name)}`, undefined, [], [204, 404]);
  }
}

/** Sends a JSON request and fails loudly unless the status is as expected (setup steps only). */
export async function must(
  inst: Instance,
  method: string,
  path: string,
  body: unknown,
  headers: [string, string][],
  expected: number[] = [200, 201, 202, 204],
): Promise<unknown> {
  const out = await send(inst.app, plainRequest(method, path, body, headers), { timeoutMs: 10_000 });
  if (out.kind !== 'response') throw new Error(`${method} ${path}: ${out.kind}`);
  if (!expected.includes(out.res.status)) {
    throw new Error(`${method} ${path}: ${out.res.status} ${out.res.text.slice(0, 500)}`);
  }
  try {
    return out.res.text === '' ? undefined : JSON.parse(out.res.text);
  } catch {
    return out.res.text;
  }
}
