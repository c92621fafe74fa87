import { UpdateNodePoolRequest } from '@sims/cluster-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createParseCache, parseRequest } from '../src/http/parse';
import { aCluster, aNodePool } from './support/fixtures';
import { createHarness, POOL } from './support/harness';

// Request bodies are parsed once per distinct body text (bench/, issue 8); these pin that a remembered
// parse is the parse a fresh one would give, and that nobody can change it.
const parse = (text: string) => (text.trim() === '' ? undefined : JSON.parse(text));

describe('createParseCache', () => {
  it('gives the same answer as a fresh parse, for good and bad bodies, strict or not', () => {
    const parseBody = createParseCache(8);
    const field = fc.constantFrom(
      'nodeVersion',
      'etag',
      'imageType',
      'node_version',
      'locations',
      'bogusField',
    );
    const value = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(field, value, { maxKeys: 4 }),
        fc.boolean(),
        fc.boolean(),
        (body, strict, twice) => {
          const text = JSON.stringify(body);
          if (twice) parseBody(UpdateNodePoolRequest, text, parse(text), strict);
          expect(parseBody(UpdateNodePoolRequest, text, parse(text), strict)).toEqual(
            parseRequest(UpdateNodePoolRequest, parse(text), strict),
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('remembers per strictness: an unknown field is refused when strict and let through when not', () => {
    const parseBody = createParseCache();
    const text = '{"nodeVersion":"1.33","bogusField":1}';
    expect(parseBody(UpdateNodePoolRequest, text, parse(text), true).ok).toBe(false);
    expect(parseBody(UpdateNodePoolRequest, text, parse(text), false).ok).toBe(true);
    expect(parseBody(UpdateNodePoolRequest, text, parse(text), true).ok).toBe(false);
  });

  it('hands out one frozen result per body text, and fresh ones for bodies over the size limit', () => {
    const parseBody = createParseCache(256, 64);
    const small = '{"nodeVersion":"1.33","locations":["a"]}';
    const first = parseBody(UpdateNodePoolRequest, small, parse(small), true);
    expect(parseBody(UpdateNodePoolRequest, small, parse(small), true)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    if (!first.ok) throw new Error('expected a parsed body');
    expect(() => {
      (first.value.locations as string[]).push('b');
    }).toThrow(TypeError);
    const big = JSON.stringify({ nodeVersion: '1.33', locations: ['x'.repeat(80)] });
    const a = parseBody(UpdateNodePoolRequest, big, parse(big), true);
    expect(parseBody(UpdateNodePoolRequest, big, parse(big), true)).not.toBe(a);
    expect(Object.isFrozen(a)).toBe(false);
  });
});

describe('PUT nodePool with a body sent again', () => {
  it('answers each request from the current state, not from the first answer to the same bytes', async () => {
    const h = createHarness();
    try {
      await h.seed({ clusters: [aCluster().withPools(aNodePool('np1')).build()] });
      const stale = { nodeVersion: '-', etag: 'c3RhbGU=' };
      const first = await h.put(POOL, stale);
      const second = await h.put(POOL, stale);
      expect([first.status, second.status]).toEqual([409, 409]);
      // The same bytes with the current etag now succeed: the parse is shared, the decision is not.
      const etag = (await h.get(POOL)).body.etag as string;
      const ok = await h.put(POOL, { nodeVersion: '-', etag });
      expect(ok.status, ok.text).toBe(200);
      expect(second.body.error.details[0].requestId).not.toBe(first.body.error.details[0].requestId);
    } finally {
      h.close();
    }
  });
});
