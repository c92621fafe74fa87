import { describe, expect, it } from 'vitest';
import { compileGlob, globMatch } from '../src/glob';

/** The glob's meaning spelled as a regular expression: the oracle for small inputs only. */
function oracle(pattern: string, text: string): boolean {
  let src = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*' && pattern[i + 1] === '*') {
      while (pattern[i + 1] === '*') i++;
      src += '.*';
    } else if (ch === '*') src += '[^/]*';
    else if (ch === '?') src += '[^/]';
    else src += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${src}$`).test(text);
}

describe('globs', () => {
  it('matches within a segment with *, across segments with **, one character with ?', () => {
    const m = compileGlob('projects/*/locations/*/clusters/c1');
    expect(m('projects/p/locations/us/clusters/c1')).toBe(true);
    expect(m('projects/p/x/locations/us/clusters/c1')).toBe(false);
    expect(globMatch('/v1beta1/**/operations/*', '/v1beta1/projects/p/locations/l/operations/op-1')).toBe(
      true,
    );
    expect(globMatch('/v1beta1/**/operations/*', '/v1beta1/projects/p/operations/op-1/x')).toBe(false);
    expect(globMatch('nodePools.?et*', 'nodePools.setSize')).toBe(true);
    expect(globMatch('a?c', 'a/c')).toBe(false);
    expect(globMatch('**', '')).toBe(true);
    expect(globMatch('*', 'a/b')).toBe(false);
    expect(globMatch('a.b', 'axb')).toBe(false);
    expect(globMatch('(x)+[y]', '(x)+[y]')).toBe(true);
  });

  it('agrees with the regular-expression reading on every small pattern and text', () => {
    const alphabet = ['a', 'b', '/'];
    const patternAlphabet = ['a', 'b', '/', '*', '?'];
    const words = (letters: string[], max: number): string[] => {
      let out = [''];
      let level = [''];
      for (let n = 1; n <= max; n++) {
        level = level.flatMap((w) => letters.map((l) => w + l));
        out = out.concat(level);
      }
      return out;
    };
    const texts = words(alphabet, 4);
    let compared = 0;
    for (const pattern of words(patternAlphabet, 4)) {
      const m = compileGlob(pattern);
      for (const text of texts) {
        expect(m(text), `${pattern} ~ ${text}`).toBe(oracle(pattern, text));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(80_000);
  });

  it('takes linear time on a pattern that makes a backtracking matcher explode', () => {
    // A regular expression needs ~2^n steps here (n = 10 already takes ~30 s); the position-set matcher answers at once.
    const pattern = `${'*a'.repeat(24)}*c`;
    const text = 'a'.repeat(10_000);
    const m = compileGlob(pattern);
    expect(m(text)).toBe(false);
    expect(m(`${text}c`)).toBe(true);
    expect(compileGlob(`${'**a'.repeat(24)}**c`)(`${'a/'.repeat(5_000)}`)).toBe(false);
  });
});
