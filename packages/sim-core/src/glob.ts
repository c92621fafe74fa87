/** A compiled glob: whether a text matches it. */
export type GlobMatcher = (text: string) => boolean;

/**
 * Compiles a glob: `*` matches within one `/`-separated segment, `**` across segments, `?` one character.
 * A pattern without wildcards compares as a plain string. Callers compile once (a fault rule when it is
 * added, a journal filter per query) and keep the matcher where they keep the pattern, so no cache lives
 * outside the world that owns the pattern.
 *
 * @example compileGlob('projects/*\/locations/*\/clusters/c1')('projects/p/locations/us/clusters/c1') // true
 */
export function compileGlob(pattern: string): GlobMatcher {
  if (!/[*?]/.test(pattern)) return (text) => text === pattern;
  let src = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        src += '.*';
        i++;
      } else src += '[^/]*';
    } else if (ch === '?') src += '[^/]';
    else src += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const re = new RegExp(`^${src}$`);
  return (text) => re.test(text);
}

/**
 * Matches `text` against a glob once (compiling it each call: for a pattern used repeatedly, keep
 * {@link compileGlob}'s matcher instead).
 *
 * @example globMatch('projects/*\/locations/*\/clusters/c1', 'projects/p/locations/us/clusters/c1') // true
 */
export function globMatch(pattern: string, text: string): boolean {
  return compileGlob(pattern)(text);
}
